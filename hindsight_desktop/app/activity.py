"""Watches the memory file for what assistants do: new activity (for idle detection), a client seen for
the first time (a tray notification), and pause changed by another process. Polls on a worker.

The engine logs writes, edits and forgets as events and counts searches; those are what it can see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.state import AppState

PERSON = "desktop"  # the engine's name for what the person does by hand


@dataclass
class Look:
    last_event: int
    searches: int
    paused: bool
    clients: list[str] = field(default_factory=list)  # clients with events newer than the last look
    seen_today: list[str] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)


def look(engine: Any, registry: Any, since_event: int) -> Look:
    """One poll (on a worker): recent events, the search count, pause, and the registered clients."""
    events = engine.events(limit=200)
    newer = [e for e in events if e.id > since_event]
    day_ago = datetime.now(UTC) - timedelta(days=1)
    return Look(
        last_event=max((e.id for e in events), default=since_event),
        searches=int(engine.stats()["searches"]), paused=engine.is_paused(),
        clients=sorted({e.client for e in newer}),
        seen_today=sorted({e.client for e in events if e.at >= day_ago}),
        registered=[c.name for c in registry.list() if c.active] if registry is not None else [],
    )


class ActivityWatch(QObject):
    activity = Signal()  # an assistant used memory since the last look
    new_client = Signal(str)  # a client used memory for the first time ever
    clients = Signal(list, list)  # registered active clients, clients seen in the last day

    def __init__(self, backend: Backend, state: AppState, save_state: Callable[[], None],
                 interval_ms: int = 15_000, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend, self.state, self.save_state = backend, state, save_state
        self._last: Look | None = None
        self._busy = False
        self._searches: int | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)

    def start(self) -> None:
        self.timer.start()
        self.poll()

    def poll(self) -> None:
        if self._busy or not self.backend.is_ready:
            return
        self._busy = True
        since = self._last.last_event if self._last else 0
        self.backend.call(look, self.backend.registry, since, name="activity", on_done=self._looked,
                          on_error=lambda exc: setattr(self, "_busy", False))

    def _looked(self, now: Look) -> None:
        self._busy = False
        first, self._last = self._last is None, now
        searched = self._searches is not None and now.searches != self._searches
        self._searches = now.searches
        self.backend.note_paused(now.paused)
        self.clients.emit(now.registered, now.seen_today)
        assistants = [c for c in now.clients if c != PERSON]
        if first:  # history from before this run is not news: remember those clients quietly
            self._learn(assistants, announce=False)
            return
        if assistants or searched:
            self.activity.emit()
        self._learn(assistants, announce=True)

    def _learn(self, names: list[str], announce: bool) -> None:
        fresh = [n for n in names if n not in self.state.known_clients]
        if not fresh:
            return
        self.state.known_clients.extend(fresh)
        self.save_state()
        if announce:
            for name in fresh:
                self.new_client.emit(name)
