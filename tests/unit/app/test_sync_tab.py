"""Settings → Sync and the app's own syncing: the QR code of the pairing code, the device list and the
last result as they read, and the tab and scheduler driving the real engine's sync over a real folder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import segno
from PySide6.QtGui import QColor

from hindsight_desktop.app.sync_scheduler import incoming_dirs, refused_reason
from hindsight_desktop.app.sync_tab import QR_MODULE_PX, device_rows, qr_pixmap, report_line

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
    assert rows[3][1] == "3 hours ago" and rows[3][2] == "4 changes not applied here yet"
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
