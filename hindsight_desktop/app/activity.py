"""Watches what assistants do: new activity (for idle detection), who is connected (the tray's line), a
client seen for the first time (a tray notification), and pause changed by another process.

Two sources. The in-process HTTP server's `Presence` hears every authenticated request, searches and
tool listings included; it is read on the main thread every few seconds (a lock, no disk). Clients
over stdio run in their own processes, so they show only in the memory file's event log (writes,
edits, forgets), which a worker polls less often; the search count there tells of any search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.state import AppState
from hindsight_desktop.core.identities import PERSON
from hindsight_desktop.mcp.presence import RECENT, Presence

if TYPE_CHECKING:  # the engine is imported on a worker (or when a command runs), never at start-up
    from hindsight_desktop.core.engine import MemoryEngine


@dataclass
class Look:
    last_event: int
    searches: int
    paused: bool
    clients: list[str] = field(default_factory=list)  # clients with events newer than the last look
    seen_today: list[str] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)
    last_event_at: dict[str, datetime] = field(default_factory=dict)  # each client's newest event read


@dataclass(frozen=True)
class ClientsSeen:
    """What the tray shows about clients."""

    connected: tuple[str, ...] = ()  # a request or an event within RECENT, or a stream open now
    registered: tuple[str, ...] = ()  # clients with an active token
    seen_today: tuple[str, ...] = ()


def look(engine: MemoryEngine, registry: Any, since_event: int) -> Look:
    """One poll (on a worker): recent events, the search count, pause, and the registered clients."""
    events = engine.events(limit=200)
    newer = [e for e in events if e.id > since_event]
    day_ago = datetime.now(UTC) - timedelta(days=1)
    latest: dict[str, datetime] = {}
    for e in events:  # newest first, so the first time a client appears is its latest event
        latest.setdefault(e.client, e.at)
    return Look(
        last_event=max((e.id for e in events), default=since_event),
        searches=int(engine.stats()["searches"]),
        paused=engine.is_paused(),
        clients=sorted({e.client for e in newer}),
        seen_today=sorted({e.client for e in events if e.at >= day_ago}),
        registered=[c.name for c in registry.list() if c.active] if registry is not None else [],
        last_event_at=latest,
    )


class ActivityWatch(QObject):
    activity = Signal()  # an assistant used memory since the last look
    new_client = Signal(str)  # a client used memory for the first time ever
    clients = Signal(object)  # ClientsSeen, when it changes

    def __init__(
        self,
        backend: Backend,
        state: AppState,
        save_state: Callable[[], None],
        interval_ms: int = 15_000,
        parent: QObject | None = None,
        presence_interval_ms: int = 3_000,
        recent: timedelta = RECENT,
    ) -> None:
        super().__init__(parent)
        self.backend, self.state, self.save_state = backend, state, save_state
        self.recent = recent
        self._last: Look | None = None
        self._busy = False
        self._searches: int | None = None
        self._watched: Presence | None = None  # the server restarts with a new Presence
        self._requests = 0
        self._shown: ClientsSeen | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        self.presence_timer = QTimer(self)
        self.presence_timer.setInterval(presence_interval_ms)
        self.presence_timer.timeout.connect(self.check_presence)

    def start(self) -> None:
        self.timer.start()
        self.presence_timer.start()
        self.poll()

    def stop(self) -> None:
        self.timer.stop()
        self.presence_timer.stop()

    # ---- the event log (worker) -------------------------------------------------------------------
    def poll(self) -> None:
        if self._busy or not self.backend.is_ready:
            return
        self._busy = True
        since = self._last.last_event if self._last else 0
        self.backend.call(
            look,
            self.backend.registry,
            since,
            name="activity",
            on_done=self._looked,
            on_error=lambda exc: setattr(self, "_busy", False),
        )

    def _looked(self, now: Look) -> None:
        self._busy = False
        first, self._last = self._last is None, now
        searched = self._searches is not None and now.searches != self._searches
        self._searches = now.searches
        self.backend.note_paused(now.paused)
        assistants = [c for c in now.clients if c != PERSON]
        if first:  # history from before this run is not news: remember those clients quietly
            self._learn(assistants, announce=False)
        else:
            if assistants or searched:
                self.activity.emit()
            self._learn(assistants, announce=True)
        self.check_presence()

    # ---- the in-process server (main thread) ------------------------------------------------------
    def _presence(self) -> Presence | None:
        server = self.backend.server
        return getattr(server, "presence", None)

    def check_presence(self) -> None:
        """Read the server's presence: activity, first-time clients, and the tray's clients line."""
        presence = self._presence()
        live: list[str] = []
        if presence is not None:
            if presence is not self._watched:
                self._watched, self._requests = presence, 0
            total = presence.total_requests
            if total != self._requests:
                self._requests = total
                self.activity.emit()
            live = presence.connected(self.recent)
            if self._last is not None:  # only once the event log has been learnt (quietly)
                self._learn([s.name for s in presence.snapshot() if s.name != PERSON], announce=True)
        self._show(live)

    def _show(self, live: list[str]) -> None:
        if self._last is None:
            return
        now = datetime.now(UTC)
        by_events = {c for c, at in self._last.last_event_at.items() if c != PERSON and now - at <= self.recent}
        seen = ClientsSeen(
            connected=tuple(sorted(set(live) | by_events)),
            registered=tuple(self._last.registered),
            seen_today=tuple(self._last.seen_today),
        )
        if seen != self._shown:
            self._shown = seen
            self.clients.emit(seen)

    def _learn(self, names: list[str], announce: bool) -> None:
        fresh = [n for n in names if n not in self.state.known_clients]
        if not fresh:
            return
        self.state.known_clients.extend(fresh)
        self.save_state()
        if announce:
            for name in fresh:
                self.new_client.emit(name)
