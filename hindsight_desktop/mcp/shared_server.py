"""The shared background server that the first `mcp` bridge starts when no app or `serve` runs.

It listens for bridges at once (so `initialize` is answered while the model loads; a tool call waits
for the engine), opens one engine, and exits after `idle_exit` seconds with no bridge connected. It
holds the folder's server lock, so a second one started in a race exits at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hindsight_desktop.core.errors import HindsightError


class PendingEngine:
    """Stands for the engine until it is open: attribute reads wait for it (tools run on worker
    threads, so waiting there blocks no one else), or raise why it could not open."""

    def __init__(self) -> None:
        self._opened = threading.Event()
        self._engine: Any = None
        self._error: BaseException | None = None

    def set(self, engine: Any) -> None:
        self._engine = engine
        self._opened.set()

    def failed(self, error: BaseException) -> None:
        self._error = error
        self._opened.set()

    @contextlib.contextmanager
    def opening(self, open_engine: Callable[[], Any]) -> Iterator[Any]:
        """Open the engine with `open_engine` (its failure is what waiting callers then hear), use
        it for the `with` block, and close it after."""
        try:
            engine = open_engine()
        except BaseException as exc:
            self.failed(exc)
            raise
        self.set(engine)
        with engine:
            yield engine

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self._opened.wait()
        if self._engine is None:
            raise HindsightError(f"the memory could not be opened: {self._error}")
        return getattr(self._engine, name)


def serve_shared(data_dir: Path, idle_exit: float) -> int:
    """Run until no bridge has been connected for `idle_exit` seconds (or SIGTERM). 0: served or
    another server already runs for this folder."""
    from hindsight_desktop.config import load_settings
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.mcp.bridge_server import BridgeListener

    pending = PendingEngine()
    listener = BridgeListener(pending, data_dir, shared=True)
    if not listener.start():
        return 0  # another server publishes for this folder: the bridge uses that one
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    def until_idle() -> None:
        while not stop.wait(0.5):
            if listener.idle_for() >= idle_exit or listener.yield_requested.is_set():
                return  # idle, or the app or serve takes the folder over

    try:
        try:
            engine = MemoryEngine(data_dir, settings=load_settings())
        except HindsightError as exc:
            # Every call is answered with why (a tool error), rather than exiting: the bridges would only
            # start another server that fails the same way.
            pending.failed(exc)
            until_idle()
            return 1
        pending.set(engine)
        with engine:
            engine.warm_up_in_background()
            until_idle()
    finally:
        listener.stop()
    return 0
