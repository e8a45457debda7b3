"""The running app: wires the backend, tray, windows, idle watch, maintenance and notifications."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from hindsight_desktop.app import fmt
from hindsight_desktop.app.activity import ActivityWatch
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.client_setup import Setup, setup_snippet
from hindsight_desktop.app.idle import IdleMonitor, IdleSource, system_idle_source
from hindsight_desktop.app.port_busy import PortBusy, port_taken
from hindsight_desktop.app.scheduler import MaintenanceScheduler
from hindsight_desktop.app.state import AppPaths, AppState
from hindsight_desktop.app.sync_scheduler import SyncScheduler
from hindsight_desktop.app.tray import Tray
from hindsight_desktop.app.workers import Task, Workers
from hindsight_desktop.config import Settings

AUTO = "auto"


class _InputWatcher(QObject):
    """Any key, click or scroll in the app's windows counts as the person being here."""

    KINDS = (QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.Wheel)

    def __init__(self, idle: IdleMonitor) -> None:
        super().__init__()
        self.idle = idle

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in self.KINDS:
            self.idle.note_ui()
        return False


class Shell(QObject):
    def __init__(
        self,
        paths: AppPaths,
        settings: Settings | None = None,
        *,
        embedder: Any = None,
        serve: bool = True,
        tray: bool | None = None,
        idle_source: IdleSource | str | None = AUTO,
        scheduler_interval_ms: int = 30_000,
        activity_interval_ms: int = 15_000,
        autostart_home: Path | None = None,
    ) -> None:
        super().__init__()
        self.paths = paths
        self.autostart_home = autostart_home
        self.workers = Workers()
        self.backend = Backend(paths, settings or Settings(), self.workers, embedder=embedder, serve=serve)
        self.state = AppState.load(paths.state_file)
        self.has_tray = QSystemTrayIcon.isSystemTrayAvailable() if tray is None else tray
        self.tray = Tray(self.backend, self)
        self.port_busy = PortBusy(self)  # a taken MCP port: a notification and a free port to use
        self._idle_source = idle_source
        self.idle = IdleMonitor(None if idle_source == AUTO else idle_source)  # type: ignore[arg-type]
        self.scheduler = MaintenanceScheduler(
            self.backend, self.idle, self.state, self.save_state, interval_ms=scheduler_interval_ms, parent=self
        )
        self.sync = SyncScheduler(self.backend, parent=self)
        self.activity = ActivityWatch(self.backend, self.state, self.save_state, activity_interval_ms, self)
        self.window: Any = None
        self.settings_dialog: Any = None
        self.stats: Any = None
        self.key_dialog: Any = None  # shown when the memory's key cannot be had
        self.theme: Any = None  # the app's ThemeFollower (app/main.py); tests leave the palette alone
        self.migration: Any = None  # the progress of a plain memory file being encrypted at the start
        self._inputs = _InputWatcher(self.idle)
        self._connect()

    def _connect(self) -> None:
        t = self.tray
        t.open_timeline.connect(self.open_timeline)
        t.open_settings.connect(self.open_settings)
        t.open_stats.connect(self.open_stats)
        t.run_maintenance.connect(lambda: self.scheduler.run("asked"))
        t.pause_toggled.connect(lambda paused: self.backend.set_paused(paused, on_error=self._error))
        t.copy_config.connect(self.copy_config)
        t.quit_requested.connect(self.quit)
        self.backend.ready.connect(self._ready)
        self.backend.state_changed.connect(self._state_changed)
        self.backend.open_failed.connect(self._open_failed)
        self.scheduler.finished.connect(self._maintained)
        self.scheduler.progress.connect(t.show_progress)
        self.scheduler.failed.connect(lambda text: t.notify("Maintenance failed", text))
        self.sync.state_changed.connect(t.show_sync)
        self.sync.state_changed.connect(self._sync_state)
        self.activity.activity.connect(self.idle.note_mcp)
        self.activity.new_client.connect(
            lambda name: t.notify("New assistant connected", f"{name} used your memory for the first time.")
        )
        self.activity.clients.connect(t.show_clients)

    # ---- life cycle ------------------------------------------------------------------------------
    def start(self) -> Task:
        """Show the tray (or, with no tray, the window) first; the memory opens on a worker after."""
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self._inputs)
        if self.has_tray:
            QGuiApplication.setQuitOnLastWindowClosed(False)
            self.tray.icon.show()
        else:
            self.open_timeline()
        self.tray.show_last_run(self.state.last_maintenance, self.state.last_report)
        return self._follow_open(self.backend.start())

    def _follow_open(self, task: Task) -> Task:
        """A memory file encrypted at this open (a plain one, or one moving to the current cipher) shows its
        progress (the open reports nothing else)."""
        task.progress.connect(self._encrypting)
        task.finished.connect(self._encrypted)
        return task

    def _encrypting(self, done: int, total: int) -> None:
        if self.migration is None:
            from PySide6.QtWidgets import QProgressDialog

            self.migration = QProgressDialog()
            self.migration.setWindowTitle("Hindsight Desktop")
            self.migration.setCancelButton(None)  # type: ignore[arg-type]  # stopping is safe, but Quit does it
            self.migration.setMinimumDuration(0)
            self.migration.setAutoClose(False)
        if total:
            self.migration.setLabelText(
                # A plain file being encrypted, or one of an earlier version moving to the current cipher.
                "Encrypting your memory file. The file as it was is kept until the encrypted copy is "
                "checked, so nothing is lost if this is stopped."
            )
            self.migration.setRange(0, total)
            self.migration.setValue(done)
        else:
            self.migration.setLabelText("Checking the encrypted copy against the file as it was…")
            self.migration.setRange(0, 0)
        self.migration.show()

    def _encrypted(self) -> None:
        if self.migration is not None:
            self.migration.close()
            self.migration = None
        setup = self.backend.key_setup
        if self.backend.is_ready and setup is not None and (setup.created or setup.encrypted_now):
            self.tray.notify(
                "Your memory file is encrypted",
                "Its recovery key is in Settings → Privacy: write it down and keep it apart from this computer.",
            )

    def _ready(self) -> None:
        if self._idle_source == AUTO:
            self.idle.system = system_idle_source()
        self.scheduler.start()
        self.sync.start()
        self.activity.start()

    def save_state(self) -> None:
        self.workers.submit(self.state.save, self.paths.state_file, name="save app state")

    def quit(self) -> None:
        QApplication.quit()

    def shutdown(self) -> None:
        """After the event loop: stop timers, the server and the engine."""
        self.scheduler.timer.stop()
        self.scheduler.yield_requested = True  # a running maintenance stops at its next batch
        self.sync.stop()
        self.workers.cancel_all()
        self.activity.stop()
        self.tray.icon.hide()
        for widget in (self.window, self.settings_dialog, self.stats):
            if widget is not None:
                widget.close()
        self.backend.shutdown()

    # ---- windows -------------------------------------------------------------------------------
    def _bring(self, widget: QWidget) -> None:
        widget.show()
        widget.raise_()
        widget.activateWindow()

    def open_timeline(self) -> Any:
        if self.window is None:
            from hindsight_desktop.app.timeline_window import TimelineWindow  # built on first use

            self.window = TimelineWindow(
                self.backend,
                open_settings=self.open_settings,
                open_stats=self.open_stats,
                quit_on_close=not self.has_tray,
            )
        self._bring(self.window)
        return self.window

    def open_settings(self) -> Any:
        if self.settings_dialog is None:
            from hindsight_desktop.app.settings_dialog import SettingsDialog

            self.settings_dialog = SettingsDialog(self.backend, self.paths, self.autostart_home, self.window)
            self.settings_dialog.sync.use_scheduler(self.sync)
            self.settings_dialog.maintain = lambda: self.scheduler.run("asked")
            self.settings_dialog.saved.connect(self._follow_appearance)
        self.settings_dialog.clients.refresh()
        self._bring(self.settings_dialog)
        return self.settings_dialog

    def _follow_appearance(self, settings: Settings) -> None:
        if self.theme is not None:
            self.theme.set_appearance(settings.appearance)

    def open_stats(self) -> Any:
        if self.stats is None:
            from hindsight_desktop.app.stats_view import StatsWindow

            self.stats = StatsWindow(self.backend)
            self.backend.memories_changed.connect(lambda: self.stats.isVisible() and self.stats.refresh())
        self.stats.refresh()
        self._bring(self.stats)
        return self.stats

    # ---- tray actions and news -------------------------------------------------------------------
    def copy_config(self, kind_key: str) -> Task | None:
        registry, port = self.backend.registry, self.backend.settings.http_port
        if registry is None:
            return None

        def copied(setup: Setup) -> None:
            QGuiApplication.clipboard().setText(setup.payload)
            self.tray.notify("Set-up copied", setup.note + (f"\n{setup.warning}" if setup.warning else ""))

        return self.workers.submit(
            lambda: setup_snippet(registry, self.paths.data_dir, port, kind_key, config_dir=self.paths.config_dir),
            name="copy config",
            on_done=copied,
            on_error=self._error,
        )

    def _maintained(self, report: dict) -> None:
        self.tray.show_last_run(self.state.last_maintenance, self.state.last_report)
        archived = int(report.get("archived", 0)) + int(report.get("capacity_archived", 0))
        merged = int(report.get("merged", 0))
        if archived or merged:  # quiet runs stay quiet
            parts = [f"archived {fmt.count(archived, 'memory')}"] if archived else []
            parts += [f"merged {merged} duplicate{'s' if merged != 1 else ''}"] if merged else []
            self.tray.notify("Memory tidied up", "Maintenance " + " and ".join(parts) + ".")

    def _state_changed(self, state: str) -> None:
        if state == "error" and not (self.backend.error is None and port_taken(self.backend)):  # PortBusy says it
            self.tray.notify("Hindsight Desktop needs attention", self.backend.error or self.backend.server_error or "")

    def _sync_state(self, state: str, detail: str) -> None:
        if state == "error":  # each new reason once: the scheduler reports a state only when it changes
            self.tray.notify("Sync needs attention", detail)

    def _open_failed(self, exc: BaseException) -> None:
        """A key problem gets the dialog that can put the key back; other failures stay the tray's news."""
        from hindsight_desktop.core.errors import EncryptionError

        if not isinstance(exc, EncryptionError):
            return
        from hindsight_desktop.app.key_dialog import KeyProblemDialog
        from hindsight_desktop.config import DB_FILE
        from hindsight_desktop.core.keys.manage import PassphraseNeeded

        dialog = KeyProblemDialog(self.paths.data_dir / DB_FILE, str(exc), passphrase=isinstance(exc, PassphraseNeeded))
        self.key_dialog = dialog

        def finished(result: int) -> None:
            self.key_dialog = None
            if result != KeyProblemDialog.DialogCode.Accepted:
                self.quit()
                return
            if dialog.saved is not None and dialog.saved.warning:
                self.tray.notify("Memory key restored", dialog.saved.warning)
            self._follow_open(self.backend.retry_open())

        dialog.finished.connect(finished)
        dialog.open()

    def _error(self, exc: BaseException) -> None:
        self.tray.notify("Hindsight Desktop", str(exc))
