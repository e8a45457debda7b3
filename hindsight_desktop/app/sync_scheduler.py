"""The app syncs on its own: a while after memories change (debounced), when another device's files arrive in
the sync folder, and every few minutes; always on a worker, one sync at a time.

The state it reports is what the tray and Settings → Sync show: "off" (not set up on this device), "syncing",
"synced" or "error" with the reason (a folder that is gone, a file that was refused).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.workers import Task

if TYPE_CHECKING:  # the engine is imported on the worker, never at start-up (see backend.py)
    from hindsight_desktop.core.engine import MemoryEngine

DEBOUNCE_MS = 5_000  # a burst of writes (an assistant saving several memories) becomes one sync
PERIOD_MS = 5 * 60_000  # catch up even when no folder event came (a cloud drive that syncs in place)
# Where other devices' change files arrive, as the sync core lays out the folder (docs: sync-api, ARCHITECTURE).
SYNC_DIR = "hindsight-sync"
CHANGES_DIR = "changes"

OFF, SYNCING, SYNCED, ERROR = "off", "syncing", "synced", "error"


def read_status(engine: MemoryEngine) -> dict[str, Any]:
    return engine.sync_status()


def sync_once(engine: MemoryEngine) -> dict[str, Any]:
    return engine.sync_now()


def refused_reason(report: dict[str, Any]) -> str:
    """One line on what a sync refused, naming the first file ("and N more")."""
    refused = report.get("refused") or []
    if not refused:
        return ""
    first = refused[0]
    more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
    return f"refused {first.get('file', 'a file')}: {first.get('reason', 'unreadable')}{more}"


def parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class SyncScheduler(QObject):
    state_changed = Signal(str, str)  # state (off, syncing, synced, error), detail (the reason for an error)
    synced = Signal(dict)  # a finished sync's report
    status_read = Signal(dict)  # engine.sync_status(), read after start, a sync or a set-up change

    def __init__(
        self,
        backend: Backend,
        debounce_ms: int = DEBOUNCE_MS,
        period_ms: int = PERIOD_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.backend = backend
        self.state, self.detail = OFF, ""
        self.status: dict[str, Any] = {}
        self.last_report: dict[str, Any] | None = None
        self.task: Task | None = None
        self.again = False  # something changed while a sync ran: run once more after it
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(debounce_ms)
        self.debounce.timeout.connect(lambda: self.run("changed"))
        self.period = QTimer(self)
        self.period.setInterval(period_ms)
        self.period.timeout.connect(lambda: self.run("periodic"))
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._folder_changed)
        self._started = False

    # ---- life cycle ------------------------------------------------------------------------------
    def start(self) -> Task | None:
        """Begin listening (the backend is ready): the change signal, the period, then the first sync."""
        if not self._started:
            self._started = True
            # The event log moved: this app, an assistant or the CLI wrote (a sync's own apply moves it too,
            # which costs one more, empty, sync).
            self.backend.changed_elsewhere.connect(self.note_change)
            self.backend.memories_changed.connect(self.note_change)
            self.period.start()
        return self.refresh(sync_after=True)

    def stop(self) -> None:
        self.debounce.stop()
        self.period.stop()
        paths = self.watcher.directories()
        if paths:
            self.watcher.removePaths(paths)

    @property
    def set_up(self) -> bool:
        return bool(self.status.get("set_up"))

    @property
    def running(self) -> bool:
        return self.task is not None

    # ---- triggers --------------------------------------------------------------------------------
    def note_change(self) -> None:
        """A write happened: sync once things have been quiet for the debounce interval."""
        if self.set_up:
            self.debounce.start()

    def _folder_changed(self, _path: str) -> None:
        self.note_change()

    def run(self, reason: str = "asked") -> Task | None:
        """Start a sync on a worker now (None when one is running: it runs again after, or when not set up)."""
        if not self.backend.is_ready:
            return None
        if self.running:
            self.again = True
            return None
        if not self.set_up and reason != "asked":
            return None
        self.debounce.stop()
        self.again = False
        self._set(SYNCING, "")
        self.task = self.backend.call(sync_once, name="sync", on_done=self._done, on_error=self._failed)
        return self.task

    def refresh(self, sync_after: bool = False) -> Task | None:
        """Read the sync status on a worker (after a set-up, join, leave or device removal too)."""
        if not self.backend.is_ready:
            return None

        def read(status: dict[str, Any]) -> None:
            self._status(status)
            if sync_after and self.set_up:
                self.run("start")

        return self.backend.call(read_status, name="sync status", on_done=read, on_error=self._status_failed)

    # ---- results ---------------------------------------------------------------------------------
    def _done(self, report: dict[str, Any]) -> None:
        self.task = None
        self.last_report = report
        problem = refused_reason(report)
        self._set(ERROR if problem else SYNCED, problem)
        self.synced.emit(report)
        if report.get("applied"):
            # What arrived is another device's doing: the views refresh in place as for another process.
            self.backend.changed_elsewhere.emit()
            self.backend.memories_changed.emit()
        self.refresh()
        if self.again:
            self.debounce.start()

    def _failed(self, exc: BaseException) -> None:
        self.task = None
        from hindsight_desktop.core.errors import SyncNotSetUp

        if isinstance(exc, SyncNotSetUp):
            self.status = {"set_up": False}
            self._set(OFF, "")
        else:
            self._set(ERROR, str(exc))
        self.refresh()

    def _status(self, status: dict[str, Any]) -> None:
        self.status = status
        if not self.set_up:
            self._set(OFF, "")
        elif self.state == OFF:
            last = status.get("last_sync") or {}
            error = status.get("last_error") or refused_reason(last)
            self._set(ERROR if error else SYNCED, error or "")
        if self.set_up and not status.get("folder_reachable", True):
            self._set(ERROR, f"the sync folder {status.get('folder')} cannot be reached (is the drive connected?)")
        self._watch(status)
        self.status_read.emit(status)

    def _status_failed(self, exc: BaseException) -> None:
        self._set(ERROR, f"the sync status could not be read: {exc}")

    def _set(self, state: str, detail: str) -> None:
        if (state, detail) != (self.state, self.detail):
            self.state, self.detail = state, detail
            self.state_changed.emit(state, detail)

    def _watch(self, status: dict[str, Any]) -> None:
        """Watch the folders where other devices' files arrive (never this device's own: its writes would
        start another sync)."""
        wanted = set(incoming_dirs(status))
        current = set(self.watcher.directories())
        if current - wanted:
            self.watcher.removePaths(sorted(current - wanted))
        if wanted - current:
            self.watcher.addPaths(sorted(wanted - current))

    def last_synced(self) -> datetime | None:
        report = self.last_report or self.status.get("last_sync") or {}
        return parse_time(report.get("at"))


def incoming_dirs(status: dict[str, Any]) -> list[str]:
    """The existing folders to watch: the core's list when it gives one, else its documented layout."""
    if not status.get("set_up") or not status.get("folder"):
        return []
    if "incoming_dirs" in status:
        return [d for d in status["incoming_dirs"] if Path(d).is_dir()]
    changes = Path(status["folder"]) / SYNC_DIR / CHANGES_DIR
    if not changes.is_dir():
        return []
    own = status.get("device_id")
    try:
        others = [str(d) for d in changes.iterdir() if d.is_dir() and d.name != own and not d.name.startswith(".")]
    except OSError:
        return []
    return [str(changes), *sorted(others)]
