"""The whole app syncing on its own with another device that uses the command line: the other device's memory
shows in the open timeline once its files land in the folder, and a memory written in the app reaches the other
device with nobody pressing Sync now. The folder is a plain one both read (the sync service's part is
test_sync_syncthing.py's)."""

from __future__ import annotations

import json
from pathlib import Path

from support.app import wait
from support.mcp import cli, prepare_data_dir

from hindsight_desktop.core.errors import NotFound


def has(engine, memory_id: str) -> bool:
    try:
        engine.get(memory_id)
    except NotFound:
        return False
    return True


def run(data_dir: Path, *args: str) -> dict:
    return json.loads(cli(data_dir, "--json", *args).stdout)


def test_the_app_syncs_by_itself_with_a_device_on_the_command_line(qtbot, shell, tmp_path, model_dir):
    folder = tmp_path / "synced"
    folder.mkdir()
    laptop = prepare_data_dir(tmp_path / "laptop-data", model_dir)
    code = run(laptop, "sync", "setup", str(folder), "--name", "laptop")["code"]
    from_laptop = run(laptop, "add", "The boat club meets on the first Sunday of the month.")
    assert run(laptop, "sync", "now")["sent"] >= 1

    shell.sync.debounce.setInterval(300)
    engine = shell.backend.engine
    wait(qtbot, shell.backend.call(lambda e: e.sync_join(folder, code, name="desk")))
    window = shell.open_timeline()
    wait(qtbot, shell.sync.refresh(sync_after=True))
    qtbot.waitUntil(lambda: has(engine, from_laptop["id"]), timeout=60_000)
    qtbot.waitUntil(
        lambda: from_laptop["id"] in {m.id for m in window.timeline.memories()} and not window.timeline.loading,
        timeout=30_000,
    )
    assert shell.tray.act_sync.text() in ("Sync: synced", "Sync: syncing…")

    # Written in the app: sent after the debounce, on the app's own change signal.
    qtbot.waitUntil(lambda: not shell.sync.running, timeout=30_000)
    shell.sync.last_report = None  # only a sync after this write counts below
    mine = engine.write("Desk note: the printer needs A4 paper.", explicit=True)
    qtbot.waitUntil(lambda: (shell.sync.last_report or {}).get("sent", 0) >= 1, timeout=60_000)
    assert run(laptop, "sync", "now")["applied"] >= 1
    assert run(laptop, "show", mine.id)["content"] == "Desk note: the printer needs A4 paper."

    # Written on the laptop after: the folder watch brings it into the open timeline.
    later = run(laptop, "add", "The boat club moved its meeting to the harbour office.")
    run(laptop, "sync", "now")
    qtbot.waitUntil(lambda: later["id"] in {m.id for m in window.timeline.memories()}, timeout=60_000)
    qtbot.waitUntil(lambda: shell.sync.state == "synced", timeout=30_000)
    assert shell.tray.act_sync.text() == "Sync: synced"
