"""The tray icon and its menu. It shows state and offers actions; the shell decides what they do."""

from __future__ import annotations

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from hindsight_desktop import logs
from hindsight_desktop.app import fmt
from hindsight_desktop.app.activity import ClientsSeen
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.client_setup import client_kinds
from hindsight_desktop.app.icons import tray_icon
from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.app.inbox_view import InboxWatch, waiting_words, with_badge
from hindsight_desktop.app.port_busy import server_words

STATE_WORDS = {
    "starting": "starting…",
    "running": "remembering",
    "paused": "paused: nothing new is remembered",
    "maintenance": "maintenance running",
    "error": "needs attention",
}


def open_log_folder() -> None:
    """The folder of the app's, `serve`'s and `mcp`'s log files, in the desktop's file manager."""
    folder = logs.log_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


def _names(names: tuple[str, ...], most: int = 4) -> str:
    """A short list for a menu line: the first few names, then how many more."""
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


class Tray(QObject):
    open_timeline = Signal()
    open_settings = Signal()
    open_stats = Signal()
    run_maintenance = Signal()
    pause_toggled = Signal(bool)
    copy_config = Signal(str)  # a client kind key
    quit_requested = Signal()

    def __init__(self, backend: Backend, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.seen = ClientsSeen()  # the clients last shown
        self.messages: list[tuple[str, str]] = []  # every notification, newest last (shown or not)
        self.icon = QSystemTrayIcon(tray_icon("starting"), self)
        self.menu = QMenu()
        self._build()
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        backend.state_changed.connect(self.show_state)
        backend.server_changed.connect(self.show_server)
        backend.paused_changed.connect(self._paused)
        self.waiting = 0  # inbox items waiting for the person: a badge on the icon, one notification a batch
        self.inbox_watch = InboxWatch(backend, self)
        self.inbox_watch.counted.connect(self.show_inbox)
        self.inbox_watch.arrived.connect(self._proposals_arrived)
        self.show_state(backend.state)
        self.show_server()

    def _build(self) -> None:
        m = self.menu
        self.act_open = m.addAction("Open timeline")
        self.act_open.triggered.connect(self.open_timeline)
        self.act_stats = m.addAction("Stats")
        self.act_stats.triggered.connect(self.open_stats)
        m.addSeparator()
        self.act_status = self._info("Hindsight Desktop: starting…")
        self.act_pause = m.addAction("Pause memory")
        self.act_pause.setCheckable(True)
        self.act_pause.toggled.connect(self.pause_toggled)
        self.act_server = self._info("MCP server: starting…")
        self.act_clients = self._info("Clients: none yet")
        self.act_inbox = m.addAction(waiting_words(0))
        self.act_inbox.triggered.connect(self.open_timeline)  # the timeline opens its Inbox panel
        self.act_sync = self._info("Sync: off (Settings → Sync)")
        self.copy_menu = m.addMenu("Copy client config")
        self.copy_actions: dict[str, QAction] = {}
        for key, label in client_kinds():
            action = self.copy_menu.addAction(label)
            action.triggered.connect(lambda _checked=False, k=key: self.copy_config.emit(k))
            self.copy_actions[key] = action
        m.addSeparator()
        self.act_maintain = m.addAction("Run maintenance now")
        self.act_maintain.triggered.connect(self.run_maintenance)
        self.act_last = self._info("Last maintenance: never")
        m.addSeparator()
        self.act_settings = m.addAction("Settings…")
        self.act_settings.triggered.connect(self.open_settings)
        self.act_log = m.addAction("Open log folder")
        self.act_log.triggered.connect(open_log_folder)
        self.act_quit = m.addAction("Quit Hindsight Desktop")
        self.act_quit.triggered.connect(self.quit_requested)

    def _info(self, text: str) -> QAction:
        action = self.menu.addAction(text)
        action.setEnabled(False)  # a line of status, not a command
        return action

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.open_timeline.emit()

    # ---- showing state --------------------------------------------------------------------------
    def redraw(self, _dark: bool = False) -> None:
        """Draw the icon again for the desktop's panel (after a theme change)."""
        self.show_state(self.backend.state)

    def show_state(self, state: str) -> None:
        self.icon.setIcon(with_badge(tray_icon(state), self.waiting))
        detail = in_app(self.backend.error or server_words(self.backend)) if state == "error" else STATE_WORDS[state]
        self.icon.setToolTip(f"Hindsight Desktop: {detail}")
        self.act_status.setText(f"Hindsight Desktop: {detail}")
        ready = self.backend.is_ready
        for action in (self.act_pause, self.act_maintain, self.copy_menu.menuAction()):
            action.setEnabled(ready)
        self.act_maintain.setEnabled(ready and state != "maintenance")

    def show_server(self) -> None:
        b = self.backend
        if b.server is not None:
            text, tip = f"MCP server: running on port {b.server.port}", b.server.url
        elif b.server_error:
            text, tip = server_words(b), b.server_error
        elif b.is_ready and not b.serve:
            text = tip = "MCP server: off"
        else:
            text = tip = "MCP server: starting…"
        self.act_server.setText(text)
        self.act_server.setToolTip(tip)
        self.show_clients(self.seen)  # a stopped server shows no one as connected

    def show_clients(self, seen: ClientsSeen) -> None:
        """ "Connected: a, b" for the clients active in the last few minutes (or holding a stream open)."""
        self.seen = seen
        if self.backend.serve and self.backend.is_ready and self.backend.server is None:
            text = "Clients: cannot connect over HTTP while the MCP server is stopped"
        elif seen.connected:
            text = f"Connected: {_names(seen.connected)}"
        elif seen.registered:
            text = "Connected: none right now"
        else:
            text = "Clients: none yet (Settings → Clients)"
        self.act_clients.setText(text)
        tip = [f"Set up: {_names(seen.registered, 12)}" if seen.registered else "No client is set up yet."]
        if seen.seen_today:
            tip.append(f"Active today: {_names(seen.seen_today, 12)}")
        self.act_clients.setToolTip("\n".join(tip))

    def show_last_run(self, when: object, report: dict) -> None:
        from datetime import datetime

        at = datetime.fromisoformat(str(when)) if when else None
        done = (
            [
                f"archived {report.get('archived', 0) + report.get('capacity_archived', 0)}",
                f"merged {report.get('merged', 0)}",
            ]
            if report
            else []
        )
        self.act_last.setText(f"Last maintenance: {fmt.ago(at)}" + (f" ({', '.join(done)})" if done else ""))

    def show_progress(self, step: str, batches: int) -> None:
        """Maintenance at work: which pass, how many batches so far."""
        self.act_status.setText(f"Hindsight Desktop: maintenance running ({step}, batch {batches})")

    def show_sync(self, state: str, detail: str = "") -> None:
        """Sync state on its own line: off, syncing, synced, or an error with its reason."""
        words = {"off": "off (Settings → Sync)", "syncing": "syncing…", "synced": "synced"}
        text = f"Sync: error: {fmt.one_line(detail, 80)}" if state == "error" else f"Sync: {words.get(state, state)}"
        self.act_sync.setText(text)
        self.act_sync.setToolTip(detail or text)

    def _paused(self, paused: bool) -> None:
        self.act_pause.blockSignals(True)
        self.act_pause.setChecked(paused)
        self.act_pause.blockSignals(False)
        self.act_pause.setText("Resume memory" if paused else "Pause memory")

    def show_inbox(self, count: int) -> None:
        self.waiting = count
        self.act_inbox.setText(waiting_words(count))
        self.show_state(self.backend.state)

    def _proposals_arrived(self, new: int) -> None:
        noun = "proposal waits" if new == 1 else "proposals wait"
        self.notify("Hindsight Desktop inbox", f"{new} new {noun} for your review: open the timeline's Inbox.")

    def notify(self, title: str, text: str) -> None:
        """A tray balloon where the desktop shows them; always kept in `messages`."""
        text = in_app(text)  # the core's errors name commands; the app says its own places
        self.messages.append((title, text))
        if self.icon.isVisible() and QSystemTrayIcon.supportsMessages():
            self.icon.showMessage(title, text, tray_icon("running"), 8000)
