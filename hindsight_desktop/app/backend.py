"""The memory behind the app: the engine (opened on a worker thread after the tray shows), the MCP HTTP
server in this process, and the client registry. Widgets reach the engine only through `call()`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.app.workers import Task, Workers
from hindsight_desktop.config import RESTART_OPTIONS, Settings

if TYPE_CHECKING:  # the engine and the MCP SDK are imported on the worker, never at start-up
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.mcp.auth import ClientRegistry
    from hindsight_desktop.mcp.bridge_server import BridgeListener
    from hindsight_desktop.mcp.http_server import HttpServer

log = logging.getLogger(__name__)

# The options declared to take effect at the next start (config.py says when each one does): the engine
# takes the others at once, and a new model is switched to by re-embedding on a worker.
RESTART_FIELDS: tuple[str, ...] = RESTART_OPTIONS
# How often the event log is checked for changes any process made (a one-row read on a worker).
CHANGE_CHECK_MS = 500


def _latest_event(engine: MemoryEngine) -> int:
    newest = engine.events(limit=1)
    return newest[0].id if newest else 0


@dataclass
class _Opened:
    engine: MemoryEngine
    registry: ClientRegistry
    paused: bool
    server: HttpServer | None
    server_error: str | None


class Backend(QObject):
    """Owns the engine and the server. States: starting, running, paused, maintenance, error."""

    ready = Signal()
    state_changed = Signal(str)
    paused_changed = Signal(bool)
    memories_changed = Signal()  # something the app did changed memories: views refresh
    changed_elsewhere = Signal()  # the event log moved (any process, the app too): views refresh in place
    server_changed = Signal()
    job_started = Signal(object, str)  # a long job with progress (Task, what it does): the job bar follows it
    open_failed = Signal(object)  # the exception the memory did not open with (the shell offers what to do)

    def __init__(
        self,
        paths: AppPaths,
        settings: Settings,
        workers: Workers,
        *,
        embedder: Any = None,
        serve: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.paths = paths
        self.settings = settings
        self.workers = workers
        self.embedder = embedder  # tests pass the shared model; None loads the configured one
        self.serve = serve
        self.engine: MemoryEngine | None = None
        self.registry: ClientRegistry | None = None
        self.server: HttpServer | None = None
        self.bridges: BridgeListener | None = None  # stdio clients' bridges reach the engine through it
        self.server_error: str | None = None
        self.error: str | None = None
        self.key_setup: Any = None  # how the memory's key was found or made at the last open (keys/manage.py)
        self.paused = False
        self.maintenance = False
        self.switch_task: Task | None = None  # the latest model switch started here
        self._state = "starting"
        self._last_event: int | None = None
        self._checking = False
        self._watch = QTimer(self)
        self._watch.setInterval(CHANGE_CHECK_MS)
        self._watch.timeout.connect(self._check_changes)

    # ---- opening -------------------------------------------------------------------------------
    def start(self) -> Task:
        self._set_state()
        return self.workers.submit(
            self._open, name="open memory", progress=True, on_done=self._opened, on_error=self._open_failed
        )

    def _open(self, progress: Callable[[int, int], None]) -> _Opened:
        from hindsight_desktop.config import DB_FILE
        from hindsight_desktop.core.clients import ClientBook
        from hindsight_desktop.core.engine import MemoryEngine
        from hindsight_desktop.core.keys import manage
        from hindsight_desktop.mcp.auth import ClientRegistry, TokenVault
        from hindsight_desktop.mcp.shared_server import PendingEngine

        # The bridges' listener (and the folder's server lock) first: a stdio client arriving while the
        # model loads waits for this engine instead of starting a background server with another one.
        pending = PendingEngine()
        self.bridges = self._start_bridges(pending)
        try:
            # A plain file is encrypted here, before the engine opens it, so the start can show progress.
            self.key_setup = manage.prepare(
                self.paths.data_dir / DB_FILE, encrypt=self.settings.encrypt_memory_file, progress=progress
            )
            engine = MemoryEngine(self.paths.data_dir, settings=self.settings, embedder=self.embedder)
        except BaseException as exc:
            pending.failed(exc)
            raise
        pending.set(engine)
        engine.warm_up_in_background()  # the first search would otherwise load the vector cache itself
        # The registry shares the engine's connection: one file, one writer lock.
        registry = ClientRegistry(ClientBook.of(engine), TokenVault(engine.data_dir))
        server, problem = self._start_server(engine, registry, self.settings.http_port)
        return _Opened(engine, registry, engine.is_paused(), server, problem)

    def _start_server(
        self, engine: MemoryEngine, registry: ClientRegistry, port: int
    ) -> tuple[HttpServer | None, str | None]:
        if not self.serve:
            return None, None
        from hindsight_desktop.core.errors import HindsightError
        from hindsight_desktop.mcp.http_server import HttpServer

        try:
            return HttpServer(engine, port, registry).start(), None
        except HindsightError as exc:  # a busy port must not stop the timeline from working
            log.warning("MCP server not started on port %d: %s", port, exc)
            return None, str(exc)

    def _start_bridges(self, engine: Any) -> BridgeListener | None:
        if not self.serve:
            return None
        from hindsight_desktop.mcp.bridge_server import BridgeListener

        listener = BridgeListener(engine, self.paths.data_dir)
        # A shared background server hands the folder over; `serve` (or another app) keeps it.
        return listener if listener.start(take_over=True) else None

    def _opened(self, opened: _Opened) -> None:
        self.engine, self.registry, self.paused = opened.engine, opened.registry, opened.paused
        self.server, self.server_error = opened.server, opened.server_error
        self._set_state()
        self._watch.start()
        self.ready.emit()
        self.server_changed.emit()
        self.paused_changed.emit(self.paused)

    def _open_failed(self, exc: BaseException) -> None:
        self.error = f"Memory could not be opened: {exc}"
        log.error("memory could not be opened: %s", type(exc).__name__, exc_info=exc)
        self._set_state()
        self.open_failed.emit(exc)

    def close_memory(self) -> str | None:
        """Close the engine, the server and the bridges, so a key change has the file to itself; then
        `retry_open()`. Returns why not instead, while a job that uses the memory runs."""
        if self.maintenance or (self.switch_task is not None and not self.switch_task.is_finished):
            return "Maintenance or a model switch is running; try again when it has finished."
        self._watch.stop()
        for part in (self.server, self.bridges):
            if part is not None:
                part.stop()
        self.server = self.bridges = None
        if self.engine is not None:
            self.engine.close()
        self.engine, self.registry = None, None
        self._set_state()
        return None

    def retry_open(self) -> Task:
        """Open the memory again after a failed start (its key was put back, say)."""
        if self.bridges is not None:  # they answer with the old failure; the new open starts its own
            self.bridges.stop()
            self.bridges = None
        self.error = None
        return self.start()

    # ---- state ---------------------------------------------------------------------------------
    @property
    def state(self) -> str:
        return self._state

    @property
    def is_ready(self) -> bool:
        return self.engine is not None

    def _set_state(self) -> None:
        if self.error or (self.engine is not None and self.server_error):
            state = "error"
        elif self.engine is None:
            state = "starting"
        elif self.maintenance:
            state = "maintenance"
        elif self.paused:
            state = "paused"
        else:
            state = "running"
        if state != self._state:
            self._state = state
            self.state_changed.emit(state)

    def set_maintenance(self, running: bool) -> None:
        self.maintenance = running
        self._set_state()

    def note_paused(self, paused: bool) -> None:
        """Pause as found in the memory file (the CLI or another process may have changed it)."""
        if paused != self.paused:
            self.paused = paused
            self._set_state()
            self.paused_changed.emit(paused)

    # ---- work ----------------------------------------------------------------------------------
    def call(
        self,
        fn: Callable[..., Any],
        *args: Any,
        name: str = "",
        progress: bool = False,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        **kwargs: Any,
    ) -> Task:
        """Run `fn(engine, *args, **kwargs)` on a worker; the callbacks run on the main thread."""
        if self.engine is None:
            raise RuntimeError("memory is still opening")
        return self.workers.submit(
            fn, self.engine, *args, name=name, progress=progress, on_done=on_done, on_error=on_error, **kwargs
        )

    def set_paused(self, paused: bool, on_error: Callable[[BaseException], None] | None = None) -> Task:
        return self.call(
            lambda engine: engine.set_paused(paused),
            name="pause",
            on_done=lambda _: self.note_paused(paused),
            on_error=on_error,
        )

    def apply_settings(self, settings: Settings) -> list[str]:
        """Use new settings now where the engine allows it; returns the fields that wait for a restart."""
        # Compared before the engine applies them: the engine updates its settings object in place, and
        # that object may be the one this backend holds.
        old, self.settings = replace(self.settings), settings
        waiting = [
            f.name
            for f in fields(Settings)
            if f.name in RESTART_FIELDS and getattr(old, f.name) != getattr(settings, f.name)
        ]
        if self.engine is not None:
            self.engine.apply_settings(settings)
            if settings.embedding_model != old.embedding_model:
                self.switch_model(settings.embedding_model)
        if settings.http_port != old.http_port and self.engine is not None and self.serve:
            self.restart_server()
        return waiting

    def switch_model(self, path: str | None) -> Task:
        """Switch to another GGUF model (None: the packaged default) and re-embed every memory on a
        worker; recall keeps working meanwhile, and an interrupted switch resumes at next start."""

        def switch(engine: MemoryEngine, progress: Callable[[int, int], None] | None = None) -> Any:
            engine.use_model(path or None)  # None: the packaged default (the engine knows where it lives)
            return engine.reembed(progress=progress)

        self.switch_task = self.call(switch, name="re-embed", progress=True)
        self.job_started.emit(self.switch_task, "Re-embedding memories with the new model")
        return self.switch_task

    @property
    def switching(self) -> bool:
        """A model switch started here is still re-embedding."""
        return self.switch_task is not None and not self.switch_task.is_finished

    def restart_server(self) -> Task:
        """Stop the HTTP server and start it again on the port in the settings (on a worker)."""
        engine, registry, port = self.engine, self.registry, self.settings.http_port

        def swap() -> tuple[HttpServer | None, str | None]:
            if self.server is not None:
                self.server.stop()
            assert engine is not None and registry is not None
            return self._start_server(engine, registry, port)

        return self.workers.submit(swap, name="restart server", on_done=self._server_swapped)

    def _server_swapped(self, result: tuple[HttpServer | None, str | None]) -> None:
        self.server, self.server_error = result
        self._set_state()
        self.server_changed.emit()

    # ---- changes made by other processes -------------------------------------------------------
    def _check_changes(self) -> None:
        if self.engine is None or self._checking:
            return
        self._checking = True
        self.call(_latest_event, name="change check", on_done=self._seen, on_error=lambda _exc: self._seen(None))

    def _seen(self, latest: int | None) -> None:
        self._checking = False
        if latest is None or self.engine is None:  # closed while the check ran: nothing to refresh now
            return
        if self._last_event is not None and latest != self._last_event:
            self.changed_elsewhere.emit()
        self._last_event = latest

    # ---- closing -------------------------------------------------------------------------------
    def shutdown(self, wait_ms: int = 10_000) -> None:
        """Stop the server and close the memory file (at quit: may block briefly for running jobs)."""
        self._watch.stop()
        self.workers.wait(wait_ms)
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.bridges is not None:
            self.bridges.stop()
            self.bridges = None
        if self.engine is not None:
            self.engine.close()
            self.engine = None
