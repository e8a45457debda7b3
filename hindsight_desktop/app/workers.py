"""Work off the Qt main thread: a `Task` per job, run on a thread pool, reporting back by signals.

A job is a plain function. Long jobs take a `progress(done, total)` callable; it raises `Cancelled`
once the person pressed Cancel, so the job stops at its next report. Results and errors always arrive
on the main thread (the Task lives there, so its slots run there).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot


class Cancelled(Exception):
    """The person cancelled a long job."""


class Task(QObject):
    """One job. Connect to `done`, `failed` and `progress`; call `cancel()` to ask it to stop."""

    done = Signal(object)
    failed = Signal(object)  # the exception
    progress = Signal(int, int)
    finished = Signal()  # after done or failed
    # Emitted from the worker thread; the queued hop to the main thread happens here.
    _result = Signal(object, bool)
    _step = Signal(int, int)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self._cancel = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.is_finished = False
        self._result.connect(self._deliver)
        self._step.connect(self._deliver_step)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def report(self, done: int, total: int = 0) -> None:
        """The progress callback handed to long jobs (called on the worker thread)."""
        if self._cancel.is_set():
            raise Cancelled(f"{self.name} cancelled")
        self._step.emit(int(done), int(total))

    @Slot(object, bool)
    def _deliver(self, value: object, ok: bool) -> None:
        self.is_finished = True
        if ok:
            self.result = value
            self.done.emit(value)
        else:
            self.error = value  # type: ignore[assignment]
            self.failed.emit(value)
        self.finished.emit()

    @Slot(int, int)
    def _deliver_step(self, done: int, total: int) -> None:
        self.progress.emit(done, total)


class _Job(QRunnable):
    def __init__(self, task: Task, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
        super().__init__()
        self.task: Task | None = task
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.setAutoDelete(True)

    def run(self) -> None:
        task, self.task = self.task, None  # the finished job must not keep its task alive
        if task is None:  # run twice: nothing to report to
            return
        try:
            value = self.fn(*self.args, **self.kwargs)
        except BaseException as exc:  # everything goes back to the main thread as a message
            task._result.emit(exc, False)
        else:
            task._result.emit(value, True)


class Workers(QObject):
    """A small thread pool. Keeps each Task alive until it has reported."""

    def __init__(self, threads: int = 3, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(threads)
        self._live: set[Task] = set()

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        name: str = "",
        progress: bool = False,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        **kwargs: Any,
    ) -> Task:
        """Run `fn(*args, **kwargs)` on the pool; with `progress`, pass `progress=task.report` too."""
        task = Task(name or getattr(fn, "__name__", "job"))
        if progress:
            kwargs["progress"] = task.report
        if on_done is not None:
            task.done.connect(on_done)
        if on_error is not None:
            task.failed.connect(on_error)
        self._live.add(task)
        # A weak reference in the slot: Qt keeps the slot as long as the task, so a strong one would
        # let every finished task (and its result) keep itself alive for the life of the app.
        ref = weakref.ref(task)
        task.finished.connect(lambda: self._live.discard(ref()))
        self.pool.start(_Job(task, fn, args, kwargs))
        return task

    def cancel_all(self) -> None:
        """Ask every running job to stop at its next progress report (at quit)."""
        for task in list(self._live):
            task.cancel()

    def busy(self) -> bool:
        return bool(self._live)

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until every job has run (shutdown and tests only)."""
        return self.pool.waitForDone(msecs)
