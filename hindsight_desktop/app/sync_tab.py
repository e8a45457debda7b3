"""Settings → Sync: the folder this memory syncs through, this device's name, the pairing code (shown once,
with its QR code), the other devices with when each was last seen, and the last sync's result.

Every engine call runs on a worker through the backend; the automatic syncs are the `SyncScheduler`'s.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QHideEvent, QPainter, QPixmap, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.app.sync_scheduler import SyncScheduler, parse_time, refused_reason
from hindsight_desktop.app.workers import Task

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import MemoryEngine

QR_MODULE_PX = 5  # screen pixels per QR module: large enough for a phone camera at arm's length


def qr_pixmap(text: str, module_px: int = QR_MODULE_PX, border: int = 4) -> QPixmap:
    """The text as a QR code (segno computes the modules; Qt paints them), black on white."""
    import segno

    code = segno.make(text, error="m")
    matrix = code.matrix
    size = (len(matrix) + 2 * border) * module_px
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor("white"))
    painter = QPainter(pixmap)
    try:
        for y, row in enumerate(matrix):
            for x, dark in enumerate(row):
                if dark:
                    painter.fillRect(
                        (x + border) * module_px, (y + border) * module_px, module_px, module_px, QColor("black")
                    )
    finally:
        painter.end()
    return pixmap


def device_rows(devices: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """(name, last seen, state, device id) for each device in the folder, this one first."""
    rows = []
    for device in sorted(devices, key=lambda d: (not d.get("this_device"), str(d.get("name", "")).lower())):
        name = str(device.get("name") or device.get("device_id"))
        if device.get("this_device"):
            name += " (this device)"
        seen = "now" if device.get("this_device") else fmt.ago(parse_time(device.get("last_seen")))
        if device.get("removed"):
            state = "removed: its files are not read"
        elif device.get("left"):
            state = "left the folder"
        elif device.get("behind"):
            state = f"behind: {fmt.count(int(device['behind']), 'change')} from this device not applied there yet"
        else:
            state = "up to date"
        rows.append((name, seen, state, str(device.get("device_id", ""))))
    return rows


def report_line(report: dict[str, Any] | None) -> str:
    """The last sync's result in one sentence."""
    if not report:
        return "Last sync: none yet"
    at = parse_time(report.get("at"))
    when = fmt.ago(at) if at else "just now"
    text = f"Last sync {when}: sent {report.get('sent', 0)}, applied {report.get('applied', 0)}"
    problem = refused_reason(report)
    return f"{text}; {problem}" if problem else text + "."


# The sync core's advice names commands; in this tab each is one of its own buttons.
HERE = {
    "sync setup": "“Start syncing in this folder (first device)”",
    "sync join": "“Join” (with the code the first device showed)",
    "sync leave": "“Stop syncing on this device…”",
    "sync remove-device": "“Remove device…”",
    "sync devices": "this tab",
    "sync now": "“Sync now”",
}


class SyncTab(QWidget):
    message = Signal(str)  # a line for the person (set-up done, a failure)

    def __init__(self, backend: Backend, scheduler: SyncScheduler | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.scheduler: SyncScheduler | None = None
        self.status: dict[str, Any] = {}
        self.task: Task | None = None
        self.code = ""  # the pairing code, held only while this tab shows it

        self.intro = QLabel(
            "Keep this memory the same on your other computers through a folder you already sync (Syncthing, "
            "Dropbox, iCloud Drive, OneDrive, Google Drive, Nextcloud). Only encrypted files go into the folder."
        )
        self.intro.setWordWrap(True)

        # Not set up: choose the folder, then start a new sync or join one with a code.
        self.setup_group = QGroupBox("Set up")
        form = QFormLayout(self.setup_group)
        self.folder = QLineEdit()
        self.folder.setPlaceholderText("a folder your sync service keeps in sync")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_folder)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        form.addRow("Sync folder", row)
        self.name = QLineEdit(socket.gethostname())
        form.addRow("This device's name", self.name)
        self.setup_button = QPushButton("Start syncing in this folder (first device)")
        self.setup_button.clicked.connect(self.set_up)
        form.addRow("", self.setup_button)
        self.code_input = QLineEdit()
        self.code_input.setPlaceholderText("HS1-… from Settings → Sync on your other device")
        self.join_button = QPushButton("Join")
        self.join_button.clicked.connect(self.join)
        join_row = QHBoxLayout()
        join_row.addWidget(self.code_input, 1)
        join_row.addWidget(self.join_button)
        form.addRow("Pairing code", join_row)

        # The pairing code, once, right after set-up.
        self.code_group = QGroupBox("Pairing code (shown once)")
        code_layout = QHBoxLayout(self.code_group)
        self.qr = QLabel()
        self.qr.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.code_text = QLabel()
        self.code_text.setWordWrap(True)
        self.code_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        code_layout.addWidget(self.qr)
        code_layout.addWidget(self.code_text, 1)
        self.code_group.hide()

        # Set up: where, who, the devices, the last result.
        self.synced_group = QGroupBox("Syncing")
        sform = QFormLayout(self.synced_group)
        self.folder_label = QLabel()
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.device_label = QLabel()
        self.result_label = QLabel("Last sync: none yet")
        self.result_label.setWordWrap(True)
        sform.addRow("Folder", self.folder_label)
        sform.addRow("This device", self.device_label)
        sform.addRow("", self.result_label)
        self.devices = QTableWidget(0, 3)
        self.devices.setHorizontalHeaderLabels(["Device", "Last seen", "State"])
        header = self.devices.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.devices.verticalHeader().hide()
        self.devices.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.devices.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.devices.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.sync_button = QPushButton("Sync now")
        self.sync_button.clicked.connect(self.sync_now)
        self.remove_button = QPushButton("Remove device…")
        self.remove_button.setToolTip("Its files stop being read here; the memories it sent stay.")
        self.remove_button.clicked.connect(self._remove_selected)
        self.leave_button = QPushButton("Stop syncing on this device…")
        self.leave_button.clicked.connect(self.leave)
        buttons = QHBoxLayout()
        for button in (self.sync_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.leave_button)
        inner = QVBoxLayout()
        inner.addWidget(self.devices)
        inner.addLayout(buttons)
        sform.addRow(inner)
        self.synced_group.hide()

        self.note = QLabel("")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        for widget in (self.intro, self.setup_group, self.code_group, self.synced_group, self.note):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.use_scheduler(scheduler)

    # ---- the scheduler ---------------------------------------------------------------------------
    def use_scheduler(self, scheduler: SyncScheduler | None) -> None:
        """Follow the app's automatic syncs (the shell hands its scheduler over; tests may leave it out)."""
        if scheduler is None or scheduler is self.scheduler:
            return
        self.scheduler = scheduler
        scheduler.status_read.connect(self.show_status)
        scheduler.synced.connect(lambda report: self.result_label.setText(report_line(report)))
        scheduler.state_changed.connect(self._scheduler_state)
        if scheduler.status:
            self.show_status(scheduler.status)

    def _scheduler_state(self, state: str, detail: str) -> None:
        self.sync_button.setEnabled(state != "syncing")
        if state == "syncing":
            self.result_label.setText("Syncing…")
        elif state == "error" and detail:
            self.result_label.setText(f"Sync failed: {detail}")

    # ---- reading ---------------------------------------------------------------------------------
    def refresh(self) -> Task | None:
        if not self.backend.is_ready:
            return None
        return self._call(lambda engine: engine.sync_status(), "sync status", self.show_status)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.refresh()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt's name
        super().hideEvent(event)
        # Shown once: forgotten when the window closes (still visible to it: only a switch to another tab).
        if self.isVisibleTo(self.window()) or self.window() is self:
            self.forget_code()

    def show_status(self, status: dict[str, Any]) -> None:
        self.status = status
        set_up = bool(status.get("set_up"))
        self.setup_group.setVisible(not set_up)
        self.synced_group.setVisible(set_up)
        if not set_up:
            return
        folder = str(status.get("folder") or "")
        reachable = status.get("folder_reachable", True)
        self.folder_label.setText(folder if reachable else f"{folder} (cannot be reached: is the drive connected?)")
        self.device_label.setText(str(status.get("device_name") or status.get("device_id") or ""))
        if status.get("last_error"):
            self.result_label.setText(f"Last sync failed: {status['last_error']}")
        elif not (self.scheduler and self.scheduler.running):
            self.result_label.setText(report_line(status.get("last_sync")))
        self._fill_devices(status.get("devices") or [])

    def _fill_devices(self, devices: list[dict[str, Any]]) -> None:
        rows = device_rows(devices)
        self.devices.setRowCount(len(rows))
        for r, (name, seen, state, device_id) in enumerate(rows):
            for c, text in enumerate((name, seen, state)):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, device_id)
                self.devices.setItem(r, c, item)

    # ---- actions ---------------------------------------------------------------------------------
    def set_up(self) -> Task | None:
        folder, name = self.folder.text().strip(), self.name.text().strip() or None
        if not folder:
            self._say("Choose the sync folder first.")
            return None
        return self._call(
            lambda engine: engine.sync_setup(folder, name=name), "sync set-up", self._set_up_done, self._failed
        )

    def _set_up_done(self, result: dict[str, Any]) -> None:
        self.show_code(str(result["code"]))
        self._say(
            "Sync is set up. On your other device, choose the same synced folder in Settings → Sync and enter "
            "the pairing code (or scan it)."
        )
        self._changed()

    def show_code(self, code: str) -> None:
        self.code = code
        self.code_text.setText(
            f"<b>{fmt.esc(code)}</b><br><br>This code opens your synced memory: enter it on your other device "
            "now, or keep it somewhere safe. It is not shown again."
        )
        try:
            self.qr.setPixmap(qr_pixmap(code))
        except ImportError:  # the QR library is optional in a source checkout: the text still works
            self.qr.clear()
        self.code_group.show()

    def forget_code(self) -> None:
        self.code = ""
        self.code_text.clear()
        self.qr.clear()
        self.code_group.hide()

    def join(self) -> Task | None:
        folder, code = self.folder.text().strip(), self.code_input.text().strip()
        name = self.name.text().strip() or None
        if not folder or not code:
            self._say("Choose the sync folder and enter the pairing code from your other device.")
            return None
        return self._call(
            lambda engine: engine.sync_join(folder, code, name=name), "sync join", self._joined, self._failed
        )

    def _joined(self, result: dict[str, Any]) -> None:
        self.code_input.clear()
        self._say(f"Joined as {result.get('device_name', 'this device')}; bringing in your memories now.")
        self._changed(sync=True)

    def sync_now(self) -> Task | None:
        if self.scheduler is not None:
            return self.scheduler.run("asked")
        return self._call(
            lambda engine: engine.sync_now(),
            "sync",
            lambda report: (self.result_label.setText(report_line(report)), self.refresh()),
            self._failed,
        )

    def selected_device(self) -> str | None:
        row = self.devices.currentRow()
        item = self.devices.item(row, 0) if row >= 0 else None
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def _remove_selected(self) -> None:
        device_id = self.selected_device()
        if device_id is None:
            self._say("Select the device to remove.")
            return
        if device_id == self.status.get("device_id"):
            self._say("This is this device: use Stop syncing on this device instead.")
            return
        answer = QMessageBox.question(
            self,
            "Remove device",
            "Stop reading this device's files? The memories it already sent stay here.",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.remove_device(device_id)

    def remove_device(self, device_id: str) -> Task | None:
        return self._call(
            lambda engine: engine.sync_remove_device(device_id),
            "remove sync device",
            lambda _result: self._changed(),
            self._failed,
        )

    def leave(self, confirm: bool = True) -> Task | None:
        if confirm:
            answer = QMessageBox.question(
                self,
                "Stop syncing",
                "Stop syncing this device? Its memories stay here; other devices keep theirs.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return None
        return self._call(lambda engine: engine.sync_leave(), "leave sync", lambda _r: self._changed(), self._failed)

    def _changed(self, sync: bool = False) -> None:
        """After set-up, join, removal or leaving: the scheduler and this tab read the new status."""
        if self.scheduler is not None:
            self.scheduler.refresh(sync_after=sync)
        elif sync:
            self.sync_now()
        self.refresh()

    def _choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Sync folder", self.folder.text())
        if path:
            self.folder.setText(path)

    # ---- plumbing --------------------------------------------------------------------------------
    def _call(
        self,
        fn: Callable[[MemoryEngine], Any],
        name: str,
        on_done: Callable[[Any], Any],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> Task | None:
        if not self.backend.is_ready:
            self._say("The memory is still opening; try again in a moment.")
            return None
        self.task = self.backend.call(fn, name=name, on_done=on_done, on_error=on_error or self._failed)
        return self.task

    def _failed(self, exc: BaseException) -> None:
        self._say(str(exc))

    def _say(self, text: str) -> None:
        text = in_app(text, HERE)
        self.note.setText(text)
        self.message.emit(text)
