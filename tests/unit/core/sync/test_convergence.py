"""Three devices, random writes, edits, forgets, restores, purges, links and pins on each, their files
delivered between the devices' copies of the folder in random order, late, twice, or deleted late: at the
end every device holds the same memory, nothing written is lost, and no purged text is left in any
device's memory file or in any file of the folder (decrypted)."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.clock import FakeClock
from support.sync_folder import device_id, memory_state, plaintexts, raw_bytes, sync_key, tables_holding

from hindsight_desktop.config import Settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.sync.folder import ROOT
from hindsight_desktop.core.sync.service import UNKNOWN_DEVICE

ENGLISH = [
    "Dentist appointment moved to the afternoon",
    "My sister prefers green tea over coffee",
    "The project deadline for the Atlas report is Friday",
    "I keep the spare house key with the neighbour",
    "Book club reads a novel about lighthouses next month",
    "The car needs new winter tyres before December",
]
CHINESE = [
    "我妹妹更喜欢喝绿茶",
    "周五之前要交季度报告",
    "备用钥匙放在邻居家",
    "下个月读书会读一本关于灯塔的小说",
    "冬天之前车要换雪地胎",
    "牙医预约改到了下午",
]
REPLICAS = 3

write = st.tuples(st.just("write"), st.integers(0, 2), st.booleans(), st.integers(0, 5))
op = st.one_of(
    write,
    write,
    write,
    st.tuples(st.just("edit"), st.integers(0, 2), st.integers(0, 99), st.booleans()),
    st.tuples(st.just("forget"), st.integers(0, 2), st.integers(0, 99)),
    st.tuples(st.just("restore"), st.integers(0, 2), st.integers(0, 99)),
    st.tuples(st.just("purge"), st.integers(0, 2), st.integers(0, 99)),
    st.tuples(st.just("link"), st.integers(0, 2), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("pin"), st.integers(0, 2), st.integers(0, 99), st.booleans()),
    st.tuples(st.just("sync"), st.integers(0, 2)),
    st.tuples(st.just("deliver"), st.integers(0, 2), st.integers(0, 2), st.integers(0, 2**16)),
)


class Network:
    """Each device's own copy of the sync folder; `deliver` moves one device's files to another's copy
    the way a sync service might: some of them, in any order, again, and deletions late."""

    def __init__(self, root: Path) -> None:
        self.folders = [root / f"folder{i}" for i in range(REPLICAS)]
        for folder in self.folders:
            folder.mkdir()
        self.devices: list[str] = []

    def own_files(self, i: int) -> dict[str, Path]:
        base = self.folders[i] / ROOT
        device = self.devices[i]
        out = {}
        for path in base.rglob("*"):
            rel = path.relative_to(base).as_posix()
            if path.is_file() and not path.name.startswith(".") and (device in rel or rel == "folder.hsf"):
                out[rel] = path
        return out

    def deliver(self, src: int, dst: int, seed: int, everything: bool = False) -> None:
        if src == dst or src >= len(self.devices):
            return
        rng = random.Random(seed)
        files = sorted(self.own_files(src).items())
        rng.shuffle(files)
        chosen = files if everything else files[: rng.randint(0, len(files))]
        for rel, path in chosen:
            target = self.folders[dst] / ROOT / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        # Files the source pruned go from the copy too, some of them only later.
        have = self.own_files(src)
        base = self.folders[dst] / ROOT
        for path in list(base.rglob("*")):
            rel = path.relative_to(base).as_posix()
            if path.is_file() and self.devices[src] in rel and rel not in have and (everything or rng.random() < 0.5):
                path.unlink()


def _pick(ids: list[str], n: int) -> str | None:
    return ids[n % len(ids)] if ids else None


def _ids(engine: MemoryEngine, status: str | None = None) -> list[str]:
    with engine.store.read() as db:
        where = "layer != 'working'" + (" AND status = ?" if status else "")
        return [
            r[0] for r in db.execute(f"SELECT id FROM memories WHERE {where} ORDER BY id", (status,) if status else ())
        ]


@pytest.mark.filterwarnings("ignore::ResourceWarning")
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(ops=st.lists(op, min_size=15, max_size=45))
def test_three_devices_converge_whatever_the_delivery(embedder, ops):
    root = Path(tempfile.mkdtemp(prefix="hindsight-sync-prop-"))
    engines: list[MemoryEngine] = []
    try:
        net = Network(root)
        clock = FakeClock()
        for i in range(REPLICAS):
            engines.append(
                MemoryEngine(
                    root / f"data{i}", settings=Settings(encrypt_memory_file=False), embedder=embedder, clock=clock
                )
            )
        code = engines[0].sync_setup(net.folders[0], name="d0")["code"]
        net.devices.append(device_id(engines[0]))
        for i in (1, 2):
            net.deliver(0, i, 0, everything=True)
            engines[i].sync_join(net.folders[i], code, name=f"d{i}")
            net.devices.append(device_id(engines[i]))

        texts: dict[str, set[str]] = {}  # every text each memory ever had
        written: set[str] = set()
        purged: set[str] = set()
        serial = 0
        # A few memories every device holds, so that the steps below edit, link and purge the same ones.
        for i, engine in enumerate(engines):
            for pool in (ENGLISH, CHINESE):
                serial += 1
                text = f"{pool[(i + serial) % 6]} (note {serial} on d{i})"
                result = engine.write(text, explicit=True)
                written.add(result.id)
                texts.setdefault(result.id, set()).add(text)
        for _ in range(2):
            for i in range(REPLICAS):
                engines[i].sync_now()
                for dst in range(REPLICAS):
                    net.deliver(i, dst, 0, everything=True)
        for step in ops:
            serial += 1
            kind, r = step[0], step[1]
            engine = engines[r]
            clock.advance(seconds=1)
            try:
                if kind == "write":
                    pool = CHINESE if step[2] else ENGLISH
                    text = f"{pool[step[3]]} (note {serial} on d{r})"
                    result = engine.write(text, explicit=True)
                    if result.stored and result.id not in written and result.layer != "working":
                        written.add(result.id)
                        texts.setdefault(result.id, set()).add(text)
                elif kind == "edit" and (target := _pick(_ids(engine), step[2])):
                    text = f"{(CHINESE if step[3] else ENGLISH)[serial % 6]} (edit {serial} on d{r})"
                    engine.edit(target, content=text)
                    texts.setdefault(target, set()).add(text)
                elif kind == "forget" and (target := _pick(_ids(engine, "active"), step[2])):
                    engine.forget(ids=[target])
                elif kind == "restore" and (target := _pick(_ids(engine, "archived"), step[2])):
                    engine.restore(target)
                elif kind == "purge" and (target := _pick(_ids(engine), step[2])):
                    receipt = engine.forget(ids=[target], purge=True)
                    purged.update(receipt.forgotten)
                elif kind == "link" and (ids := _ids(engine)) and len(ids) > 1:
                    a, b = _pick(ids, step[2]), _pick(ids, step[3])
                    if a and b and a != b:
                        engine.link(a, b, "related")
                elif kind == "pin" and (target := _pick(_ids(engine), step[2])):
                    engine.edit(target, pinned=step[3])
                elif kind == "sync":
                    report = engine.sync_now()
                    # A device's files may come before its record; nothing else is ever refused.
                    assert {x["reason"] for x in report["refused"]} <= {UNKNOWN_DEVICE}
                elif kind == "deliver":
                    net.deliver(r, step[2], step[3])
            except HindsightError:
                pass  # e.g. editing what this device saw purged; the other devices never heard of the attempt

        for last in (False, False, False, True):  # the sync service catches up at last
            for src in range(REPLICAS):
                for dst in range(REPLICAS):
                    net.deliver(src, dst, 0, everything=True)
            for i in range(REPLICAS):
                report = engines[i].sync_now()
                assert report["refused"] == []
                assert not last or report["applied"] == 0, "still changing after three full rounds"
        for src in range(REPLICAS):
            for dst in range(REPLICAS):
                net.deliver(src, dst, 0, everything=True)

        states = [memory_state(e) for e in engines]
        assert states[0] == states[1] == states[2]
        memories, _links = states[0]
        assert written - purged <= set(memories), "a memory written on one device is missing"
        assert not purged & set(memories), "a purged memory came back"
        for e in engines:
            assert e.check_indexes().ok, e.check_indexes().detail  # FTS and vectors rebuilt on arrival
        purged_texts = {t for mid in purged for t in texts.get(mid, ())}
        all_texts = {t for ts in texts.values() for t in ts}
        for i, e in enumerate(engines):
            for text in purged_texts:
                assert tables_holding(e, text) == [], (i, text)
            key = sync_key(e)
            for name, plain in plaintexts(net.folders[i], key).items():
                for text in purged_texts:
                    assert text.encode() not in plain, (i, name, text)
            on_disk = raw_bytes(net.folders[i])
            assert not [t for t in all_texts if t.encode() in on_disk], "the folder holds plaintext"
    finally:
        for e in engines:
            e.close()
        shutil.rmtree(root, ignore_errors=True)
