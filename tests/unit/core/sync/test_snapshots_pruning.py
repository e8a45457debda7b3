"""The folder does not grow without bound: change files every device has applied are pruned once a
snapshot covers them, a device away for months stops holding that back, and catches up from the
snapshot plus the newer files when it returns."""

from __future__ import annotations

import pytest
from support.sync_folder import device_id, memory_state

from hindsight_desktop.config import Settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.sync import snapshots
from hindsight_desktop.core.sync.folder import Folder


@pytest.fixture
def three(tmp_path, embedder, clock, monkeypatch):
    monkeypatch.setattr(snapshots, "EVERY", 3)
    folder = tmp_path / "Sync"
    folder.mkdir()
    engines = [MemoryEngine(tmp_path / f"d{i}", settings=Settings(), embedder=embedder, clock=clock) for i in range(3)]
    code = engines[0].sync_setup(folder, name="d0")["code"]
    for e in engines[1:]:
        e.sync_join(folder, code)
    for e in engines:
        e.sync_now()
    yield folder, engines
    for e in engines:
        e.close()


def _own_change_files(folder, engine) -> list[int]:
    return [f.seq for f in Folder(folder).files("changes") if f.device == device_id(engine)]


def test_files_stay_while_a_device_lags_and_go_once_every_device_applied_them(three, clock):
    folder, (a, b, c) = three
    for n in range(6):
        clock.advance(minutes=10)
        a.write(f"Meeting notes number {n}: the roof repair quote arrived", explicit=True)
        a.sync_now()
        b.sync_now()
    kept = _own_change_files(folder, a)
    assert len(kept) >= 6  # c has applied none of them and was seen minutes ago: nothing pruned
    lagging = {d["device_id"]: d for d in a.sync_devices()}[device_id(c)]
    assert lagging["behind"] >= 6 and lagging["not_applied_here"] == 0
    c.sync_now()
    a.sync_now()
    left = _own_change_files(folder, a)
    # Every device applied them: those a snapshot covers are gone, only the few written since stay.
    assert len(left) < snapshots.EVERY and (not left or min(left) > max(kept) - snapshots.EVERY)
    assert memory_state(a) == memory_state(b) == memory_state(c)


def test_a_device_away_for_months_catches_up_from_the_snapshot_and_newer_files(three, clock):
    folder, (a, b, c) = three
    clock.advance(days=120)  # c is not seen for longer than the devices wait
    ids = []
    for n in range(7):
        clock.advance(minutes=10)
        ids.append(a.write(f"Garden diary {n}: planted a row of broad beans", explicit=True).id)
        if n == 3:
            b.sync_now()
            b.forget(ids=[ids[0]], purge=True)
        a.sync_now()
        b.sync_now()
    a.sync_now()
    assert len(_own_change_files(folder, a)) < 7  # c no longer holds pruning back: it missed pruned files
    report = c.sync_now()  # back after months: the snapshot, then what is newer
    assert report["refused"] == [] and report["applied"] > 0
    c.sync_now()
    assert memory_state(c) == memory_state(a) == memory_state(b)
    assert ids[0] not in memory_state(c)[0] and set(ids[1:]) <= set(memory_state(c)[0])
    assert c.check_indexes().ok
