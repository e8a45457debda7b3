"""Sync when things go wrong: `kill -9` in the middle of `sync now` on the writing and on the applying
side; truncated, tampered and foreign files in the folder; a device on an older program receiving files
from a newer one; the folder gone for a while (an unmounted drive)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.sync_folder import device_id, memory_state

from hindsight_desktop.config import Settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import SyncFolderUnavailable
from hindsight_desktop.core.sync import crypto, devices, service
from hindsight_desktop.core.sync.folder import Folder, write_atomically
from hindsight_desktop.core.sync.service import UNKNOWN_DEVICE

# A process that opens one data folder, says so, and runs `sync now`: the test kills it at some moment.
CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.core.model.default_model import ensure_default_model
    from hindsight_desktop.core.model.embedder import load_embedder
    engine = MemoryEngine(Path(sys.argv[1]), embedder=load_embedder(ensure_default_model(Path(sys.argv[2]))))
    print("ready", flush=True)
    engine.sync_now()
    print("done", flush=True)
    """
)
# Moments after "ready" at which the process is killed: the first ones within the sync, the last after it.
KILL_AFTER_S = (0.0, 0.01, 0.03, 0.06, 0.1, 0.15, 0.25, 0.4, 0.7, 1.5)


def _open(data: Path, embedder, clock) -> MemoryEngine:
    return MemoryEngine(data, settings=Settings(), embedder=embedder, clock=clock)


def _sync_killed(data: Path, model_dir: Path, after: float) -> bool:
    """Run `sync now` in its own process and kill -9 it `after` seconds in; whether it finished first."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data), str(model_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == b"ready", proc.stderr.read() if proc.stderr else line
        time.sleep(after)
        finished = proc.poll() is not None
        if not finished:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        out = proc.stdout.read()
        return finished and b"done" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")
def test_kill_9_during_sync_now_on_either_side_loses_nothing_and_applies_nothing_twice(
    tmp_path, embedder, clock, model_dir
):
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = _open(tmp_path / "a", embedder, clock), _open(tmp_path / "b", embedder, clock)
    b.sync_join(folder, a.sync_setup(folder, name="a")["code"], name="b")
    a.sync_now()
    a.close()
    b.close()
    written: list[str] = []
    finished_early = 0
    for round_number, after in enumerate(KILL_AFTER_S):
        a = _open(tmp_path / "a", embedder, clock)
        for n in range(12):
            clock.advance(seconds=1)
            pool = ("Receipt {} for the bicycle repair was filed", "第{}张自行车维修收据已经归档")[n % 2]
            written.append(a.write(pool.format(f"{round_number}-{n}"), explicit=True).id)
        if round_number % 3 == 1:
            a.edit(written[round_number], content=f"Receipt {round_number} was corrected")
        a.close()
        finished_early += _sync_killed(tmp_path / "a", model_dir, after)  # the writing side
        a = _open(tmp_path / "a", embedder, clock)
        a.sync_now()  # what the killed one left undone
        a.close()
        finished_early += _sync_killed(tmp_path / "b", model_dir, after)  # the applying side
        b = _open(tmp_path / "b", embedder, clock)
        b.sync_now()
        b.close()
    print(f"kills that landed inside a sync: {2 * len(KILL_AFTER_S) - finished_early} of {2 * len(KILL_AFTER_S)}")
    assert finished_early < 2 * len(KILL_AFTER_S), "no kill landed inside a sync: the test tested nothing"
    a, b = _open(tmp_path / "a", embedder, clock), _open(tmp_path / "b", embedder, clock)
    try:
        a.sync_now()
        b.sync_now()
        state_a, state_b = memory_state(a), memory_state(b)
        assert set(written) <= set(state_b[0])
        assert state_a == state_b
        with b.store.read() as db:
            rows = db.execute("SELECT count(*), count(DISTINCT device || '/' || seq) FROM sync_applied").fetchone()
            writes = db.execute(
                "SELECT count(*), count(DISTINCT memory_id) FROM events WHERE kind = 'write'"
            ).fetchone()
        assert rows[0] == rows[1]  # each file applied once
        assert writes == (0, 0)  # B wrote nothing itself: every memory arrived once, by sync
        assert b.check_indexes().ok, b.check_indexes().detail  # no keyword row or vector twice, none missing
        assert not list(folder.rglob("*.hsc")) or all(p.stat().st_size > 0 for p in folder.rglob("*.hsc"))
    finally:
        a.close()
        b.close()


@pytest.fixture
def pair(tmp_path, embedder, clock):
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = _open(tmp_path / "a", embedder, clock), _open(tmp_path / "b", embedder, clock)
    b.sync_join(folder, a.sync_setup(folder, name="a")["code"], name="b")
    yield folder, a, b
    a.close()
    b.close()


def test_truncated_tampered_and_foreign_files_are_refused_by_name_and_the_rest_applied(pair, clock):
    folder, a, b = pair
    ids = []
    for text in ("The first note about the garden", "The second note about the boat", "The third note about bees"):
        clock.advance(seconds=5)
        ids.append(a.write(text, explicit=True).id)
        a.sync_now()
    view = Folder(folder)
    mine = [f for f in view.files("changes") if f.device == device_id(a)]
    first, second, third = mine[-3:]
    first.path.write_bytes(first.path.read_bytes()[:40])  # truncated
    tampered = bytearray(second.path.read_bytes())
    tampered[len(tampered) // 2] ^= 0x40
    second.path.write_bytes(bytes(tampered))
    stranger = "00000000feedf00d"
    write_atomically(
        view.file_path("changes", stranger, 1), crypto.seal(bytes(32), crypto.Sealed("changes", stranger, 1), b"x", 1)
    )
    foreign = view.file_path("changes", device_id(a), 99)
    write_atomically(foreign, crypto.seal(bytes(32), crypto.Sealed("changes", device_id(a), 99), b"x", 1))
    (view.root / "changes" / device_id(a) / ".syncthing.0000000100.hsc.tmp").write_bytes(b"half")

    report = b.sync_now()
    refused = {r["file"]: r["reason"] for r in report["refused"]}
    assert set(refused) == {
        first.name,
        second.name,
        f"changes/{stranger}/0000000001.hsc",
        f"changes/{device_id(a)}/0000000099.hsc",
    }
    assert "truncated" in refused[first.name] or "failed authentication" in refused[first.name]
    assert "failed authentication" in refused[second.name]
    assert refused[f"changes/{stranger}/0000000001.hsc"] == UNKNOWN_DEVICE
    assert "failed authentication" in refused[f"changes/{device_id(a)}/0000000099.hsc"]
    assert not report["ok"] and b.get(ids[2]).content == "The third note about bees"  # the rest went on
    status = b.sync_status()
    assert {r["file"] for r in status["refused"]} == set(refused)


def test_a_device_on_an_older_program_refuses_newer_files_until_it_is_updated(pair, clock, monkeypatch):
    folder, a, b = pair
    note = a.write("The boiler service is booked for the ninth", explicit=True)
    newer = devices.FORMAT + 1
    with monkeypatch.context() as newer_program:
        newer_program.setattr(service, "FORMAT", newer)
        newer_program.setattr(devices, "FORMAT", newer)
        a.sync_now()
    report = b.sync_now()
    reasons = " ".join(r["reason"] for r in report["refused"])
    assert "update Hindsight Desktop on this device" in reasons
    assert f"devices/{device_id(a)}.hsd" in {r["file"] for r in report["refused"]}
    with pytest.raises(Exception, match="no memory"):
        b.get(note.id)
    with monkeypatch.context() as updated:
        updated.setattr(service, "FORMAT", newer)
        updated.setattr(devices, "FORMAT", newer)
        assert b.sync_now()["refused"] == []
        assert b.get(note.id).content == "The boiler service is booked for the ninth"


def test_the_folder_gone_for_a_while_loses_nothing(pair, clock, tmp_path):
    folder, a, b = pair
    away = tmp_path / "unmounted"
    folder.rename(away)
    kept = a.write("The spare tyre is in the garage loft", explicit=True)
    with pytest.raises(SyncFolderUnavailable, match="is not there"):
        a.sync_now()
    status = a.sync_status()
    assert not status["folder_reachable"] and "is not there" in status["last_error"]
    assert status["pending"] >= 1
    folder.mkdir()  # an empty mount point: the folder is there but holds none of our files
    with pytest.raises(SyncFolderUnavailable, match="no longer holds"):
        a.sync_now()
    folder.rmdir()
    away.rename(folder)
    assert a.sync_now()["sent"] >= 1
    b.sync_now()
    assert b.get(kept.id).content == "The spare tyre is in the garage loft"
    assert a.sync_status()["last_error"] is None
