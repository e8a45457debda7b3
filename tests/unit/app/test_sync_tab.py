"""Settings → Sync and the app's own syncing: the QR code of the pairing code, the device list and the
last result as they read, and the tab and scheduler driving the real engine's sync over a real folder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import segno
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QMessageBox
from support.app import wait

from hindsight_desktop.app.sync_scheduler import incoming_dirs, refused_reason
from hindsight_desktop.app.sync_tab import QR_MODULE_PX, SyncTab, device_rows, qr_pixmap, report_line
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import NotFound

CODE = "HS1-MFRG-GZDF-MZTW-Q2LK-NNWG-23TP-OBYX-E4ZT-OR2X-M53Y-PB4X-U2LQ"


def test_the_qr_code_paints_exactly_segno_s_modules_for_the_code(qtbot):
    border = 4
    image = qr_pixmap(CODE, border=border).toImage()
    matrix = segno.make(CODE, error="m").matrix
    assert image.width() == image.height() == (len(matrix) + 2 * border) * QR_MODULE_PX
    black, white = QColor("black").rgb(), QColor("white").rgb()
    for y, row in enumerate(matrix):
        for x, dark in enumerate(row):
            centre = ((x + border) * QR_MODULE_PX + QR_MODULE_PX // 2, (y + border) * QR_MODULE_PX + QR_MODULE_PX // 2)
            assert image.pixel(*centre) == (black if dark else white), (x, y)
    assert image.pixel(1, 1) == white  # the quiet zone a scanner needs


def test_devices_read_this_one_first_then_by_name_with_their_state():
    now = datetime.now(UTC)
    devices = [
        {
            "device_id": "b" * 16,
            "name": "Work laptop",
            "last_seen": (now - timedelta(hours=3)).isoformat(),
            "behind": 4,
        },
        {"device_id": "a" * 16, "name": "desk", "this_device": True, "last_seen": now.isoformat()},
        {"device_id": "c" * 16, "name": "old phone", "last_seen": None, "removed": True},
        {"device_id": "d" * 16, "name": "Attic", "last_seen": (now - timedelta(days=2)).isoformat()},
    ]
    rows = device_rows(devices)
    assert [r[0] for r in rows] == ["desk (this device)", "Attic", "old phone", "Work laptop"]
    assert rows[0][1] == "now" and rows[1][1] == "2 days ago" and rows[2][1] == "never"
    assert rows[3][1] == "3 hours ago" and rows[3][2] == "behind: 4 changes from this device not applied there yet"
    assert rows[1][2] == "up to date" and rows[2][2].startswith("removed")
    assert rows[3][3] == "b" * 16


def test_the_last_result_names_what_was_refused():
    assert report_line(None) == "Last sync: none yet"
    ok = {"sent": 2, "applied": 5, "refused": [], "at": datetime.now(UTC).isoformat()}
    assert report_line(ok) == "Last sync just now: sent 2, applied 5."
    bad = {**ok, "refused": [{"file": "changes/x/1.hsc", "reason": "truncated"}, {"file": "y", "reason": "z"}]}
    assert refused_reason(bad) == "refused changes/x/1.hsc: truncated (and 1 more)"
    assert report_line(bad).endswith("; refused changes/x/1.hsc: truncated (and 1 more)")


def test_the_app_watches_other_devices_folders_never_its_own(tmp_path):
    changes = tmp_path / "hindsight-sync" / "changes"
    for device in ("aaaa", "bbbb", ".hidden"):
        (changes / device).mkdir(parents=True)
    status = {"set_up": True, "folder": str(tmp_path), "device_id": "aaaa"}
    assert incoming_dirs(status) == [str(changes), str(changes / "bbbb")]
    assert incoming_dirs({**status, "set_up": False}) == []
    assert incoming_dirs({**status, "folder": str(tmp_path / "gone")}) == []


# ---- the tab and the scheduler over the real engine ------------------------------------------------------


def has(engine: MemoryEngine, memory_id: str) -> bool:
    try:
        engine.get(memory_id)
    except NotFound:
        return False
    return True


@pytest.fixture
def other_device(tmp_path, embedder):
    """A second device: its own data folder and engine (the person's other computer)."""
    engine = MemoryEngine(tmp_path / "other-data", embedder=embedder)
    yield engine
    engine.close()


def open_tab(qtbot, shell) -> SyncTab:
    dialog = shell.open_settings()
    tab = dialog.sync
    dialog.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: bool(tab.status), timeout=30_000)
    return tab


def test_setting_up_shows_the_pairing_code_once_with_its_qr_code(qtbot, shell, tmp_path):
    tab = open_tab(qtbot, shell)
    assert tab.setup_group.isVisible() and not tab.synced_group.isVisible()
    assert shell.tray.act_sync.text().startswith("Sync: off")
    tab.folder.setText(str(tmp_path / "synced"))
    (tmp_path / "synced").mkdir()
    tab.name.setText("desk")
    wait(qtbot, tab.set_up())
    assert tab.code.startswith("HS1-") and tab.code in tab.code_text.text()
    assert tab.code_group.isVisible() and not tab.qr.pixmap().isNull()
    qtbot.waitUntil(lambda: tab.synced_group.isVisible(), timeout=30_000)
    qtbot.waitUntil(lambda: tab.devices.rowCount() == 1, timeout=30_000)
    assert tab.devices.item(0, 0).text() == "desk (this device)"
    assert tab.device_label.text() == "desk"
    qtbot.waitUntil(lambda: shell.tray.act_sync.text() in ("Sync: synced", "Sync: syncing…"), timeout=30_000)
    dialog = shell.settings_dialog
    dialog.tabs.setCurrentIndex(0)  # a look at another tab keeps it
    dialog.tabs.setCurrentWidget(tab)
    assert tab.code.startswith("HS1-") and tab.code_group.isVisible()
    dialog.hide()  # closing the window forgets the code: it is shown once
    assert tab.code == "" and not tab.code_group.isVisible() and tab.qr.pixmap().isNull()
    assert "HS1-" not in tab.code_text.text()


def test_joining_brings_the_other_device_s_memories_and_later_writes_travel_on_their_own(
    qtbot, shell, tmp_path, other_device
):
    folder = tmp_path / "synced"
    folder.mkdir()
    code = other_device.sync_setup(folder, name="laptop")["code"]
    written = other_device.write("My bicycle lock code is kept in the green notebook.", explicit=True)
    other_device.sync_now()

    shell.sync.debounce.setInterval(200)
    tab = open_tab(qtbot, shell)
    tab.folder.setText(str(folder))
    tab.name.setText("desk")
    tab.code_input.setText(code.lower().replace("-", " "))  # typed loosely: case, spaces
    wait(qtbot, tab.join())
    engine = shell.backend.engine
    qtbot.waitUntil(lambda: has(engine, written.id), timeout=60_000)
    qtbot.waitUntil(lambda: shell.sync.state == "synced", timeout=60_000)
    assert shell.tray.act_sync.text() == "Sync: synced"
    qtbot.waitUntil(lambda: tab.devices.rowCount() == 2, timeout=30_000)
    assert {tab.devices.item(r, 0).text() for r in range(2)} == {"desk (this device)", "laptop"}
    assert "applied" in tab.result_label.text()

    # A write here is sent after the debounce, without anyone pressing Sync now.
    qtbot.waitUntil(lambda: not shell.sync.running, timeout=30_000)
    shell.sync.last_report = None  # only a sync after this write counts below
    mine = engine.write("The plumber comes on Friday at eight.", explicit=True)
    shell.backend.memories_changed.emit()  # what the app's own write paths emit
    qtbot.waitUntil(lambda: (shell.sync.last_report or {}).get("sent", 0) >= 1, timeout=60_000)
    other_device.sync_now()
    assert other_device.get(mine.id).content == "The plumber comes on Friday at eight."

    # A write on the other device arrives through the folder watch (no periodic sync in this test's time).
    laptop_dir = str(folder / "hindsight-sync" / "changes" / other_device.sync_status()["device_id"])
    qtbot.waitUntil(lambda: laptop_dir in shell.sync.watcher.directories(), timeout=30_000)
    theirs = other_device.write("The car's winter tyres are in the garage loft.", explicit=True)
    other_device.sync_now()
    qtbot.waitUntil(lambda: has(engine, theirs.id), timeout=60_000)


def test_a_missing_folder_is_an_error_with_its_reason_in_the_tray(qtbot, shell, tmp_path):
    folder = tmp_path / "synced"
    folder.mkdir()
    wait(qtbot, shell.backend.call(lambda engine: engine.sync_setup(folder, name="desk")))
    wait(qtbot, shell.sync.refresh())
    wait(qtbot, shell.sync.run())
    assert shell.sync.state == "synced"
    folder.rename(tmp_path / "unplugged")  # an unmounted drive
    task = shell.sync.run()
    qtbot.waitUntil(lambda: task.is_finished, timeout=30_000)
    assert shell.sync.state == "error" and str(folder) in shell.sync.detail
    assert shell.tray.act_sync.text().startswith("Sync: error:")
    assert str(folder) in shell.tray.act_sync.toolTip()
    assert shell.tray.messages[-1][0] == "Sync needs attention" and str(folder) in shell.tray.messages[-1][1]
    (tmp_path / "unplugged").rename(folder)  # plugged back in: the next sync goes through
    wait(qtbot, shell.sync.run())
    assert shell.sync.state == "synced" and shell.tray.act_sync.text() == "Sync: synced"


def test_removing_a_device_and_leaving_from_the_tab(qtbot, shell, tmp_path, other_device, monkeypatch):
    folder = tmp_path / "synced"
    folder.mkdir()
    code = other_device.sync_setup(folder, name="laptop")["code"]
    other_device.sync_now()
    wait(qtbot, shell.backend.call(lambda engine: engine.sync_join(folder, code, name="desk")))
    tab = open_tab(qtbot, shell)
    wait(qtbot, tab.refresh())
    assert tab.devices.rowCount() == 2
    laptop = next(r for r in range(2) if tab.devices.item(r, 0).text() == "laptop")
    tab.devices.selectRow(laptop)
    laptop_id = tab.selected_device()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    tab._remove_selected()
    wait(qtbot, tab.task)
    qtbot.waitUntil(
        lambda: any(d["device_id"] == laptop_id and d.get("removed") for d in tab.status.get("devices", [])),
        timeout=30_000,
    )
    wait(qtbot, tab.leave())
    qtbot.waitUntil(lambda: tab.setup_group.isVisible(), timeout=30_000)
    qtbot.waitUntil(lambda: shell.tray.act_sync.text().startswith("Sync: off"), timeout=30_000)


def test_one_sync_at_a_time_and_the_periodic_one_catches_up_without_a_folder_event(
    qtbot, shell, tmp_path, other_device
):
    folder = tmp_path / "synced"
    folder.mkdir()
    code = other_device.sync_setup(folder, name="laptop")["code"]
    wait(qtbot, shell.backend.call(lambda engine: engine.sync_join(folder, code, name="desk")))
    wait(qtbot, shell.sync.refresh())
    first = shell.sync.run()
    assert first is not None and shell.sync.run() is None and shell.sync.again  # asked again while it runs
    wait(qtbot, first)
    qtbot.waitUntil(lambda: not shell.sync.running and not shell.sync.debounce.isActive(), timeout=30_000)

    shell.sync.stop()  # no folder events, no debounce: only the period is left to bring changes in
    shell.sync.watcher.directoryChanged.disconnect()
    theirs = other_device.write("The library books are due back on the 14th.", explicit=True)
    other_device.sync_now()
    shell.sync.period.setInterval(300)
    shell.sync.period.start()
    qtbot.waitUntil(lambda: has(shell.backend.engine, theirs.id), timeout=60_000)
