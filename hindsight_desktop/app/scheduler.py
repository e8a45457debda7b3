"""Maintenance when the person is away: after N idle minutes, at most once per N hours, on a worker.

`engine.run_maintenance()` works in short batches (each its own transaction), so assistants keep being served
while it runs. When the person comes back mid-run the scheduler asks it to stop at the next batch
(`should_stop`); the run counts as unfinished, so the next idle spell continues where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.idle import IdleMonitor
from hindsight_desktop.app.state import AppState
from hindsight_desktop.app.workers import Task

if TYPE_CHECKING:  # the engine is imported on the worker, never at start-up (see backend.py)
    from hindsight_desktop.core.engine import MemoryEngine

WATCH_MS = 2_000  # while a run goes, look for the person this often


def _utcnow() -> datetime:
    return datetime.now(UTC)


def run_maintenance(
    engine: MemoryEngine, should_stop: Callable[[], bool], progress: Callable[[str, int], None]
) -> dict[str, Any]:
    """Maintenance on the worker: it stops at the next batch once `should_stop()` is true."""
    return engine.run_maintenance(should_stop=should_stop, progress=progress)


def finished_run(report: dict[str, Any]) -> bool:
    """False when the run stopped early (or was skipped because another process was running one)."""
    run = report.get("run")
    return not isinstance(run, dict) or run.get("status", "done") == "done"


class MaintenanceScheduler(QObject):
    started = Signal(str)  # why: "idle" or "asked"
    progress = Signal(str, int)  # pass name, batches done
    finished = Signal(dict)  # the engine's report
    failed = Signal(str)
    interrupted = Signal()  # activity resumed while a run was going

    def __init__(
        self,
        backend: Backend,
        idle: IdleMonitor,
        state: AppState,
        save_state: Callable[[], None],
        interval_ms: int = 30_000,
        now: Callable[[], datetime] = _utcnow,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.backend, self.idle, self.state, self.save_state, self.now = backend, idle, state, save_state, now
        self.task: Task | None = None
        self.reason = ""
        self.yield_requested = False
        self.interval_ms = interval_ms
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.check)

    def start(self) -> None:
        self.timer.start()

    @property
    def running(self) -> bool:
        return self.task is not None

    def last_run(self) -> datetime | None:
        return datetime.fromisoformat(self.state.last_maintenance) if self.state.last_maintenance else None

    def due(self) -> bool:
        last = self.last_run()
        every = timedelta(hours=self.backend.settings.maintenance_every_hours)
        return last is None or self.now() - last >= every

    def away(self) -> bool:
        return self.idle.idle_seconds() >= self.backend.settings.idle_minutes * 60

    def check(self) -> None:
        """One look (the timer calls it): start when due and away; note when the person is back."""
        if self.running:
            if self.reason == "idle" and not self.away() and not self.yield_requested:
                self.yield_requested = True
                self.interrupted.emit()
            return
        if self.backend.is_ready and self.due() and self.away():
            self.run("idle")

    def run(self, reason: str = "asked") -> Task | None:
        if self.running or not self.backend.is_ready:
            return None
        self.reason, self.yield_requested = reason, False
        self.backend.set_maintenance(True)
        self.started.emit(reason)
        self.task = self.backend.call(
            run_maintenance,
            lambda: self.yield_requested,
            self._report_progress,
            name="maintenance",
            on_done=self._done,
            on_error=self._failed,
        )
        self.timer.setInterval(min(self.interval_ms, WATCH_MS))
        return self.task

    def _report_progress(self, name: str, batches: int) -> None:
        self.progress.emit(name, batches)  # from the worker: queued to the main thread

    def _done(self, report: dict[str, Any]) -> None:
        self._ended()
        if finished_run(report):  # a stopped run stays due: the next idle spell resumes it
            self.state.last_maintenance = self.now().isoformat()
        self.state.last_report = {k: v for k, v in report.items() if isinstance(v, int | float)}
        self.save_state()
        self.finished.emit(report)
        self.backend.memories_changed.emit()

    def _failed(self, exc: BaseException) -> None:
        self._ended()
        self.failed.emit(str(exc))

    def _ended(self) -> None:
        self.task = None
        self.timer.setInterval(self.interval_ms)
        self.backend.set_maintenance(False)
