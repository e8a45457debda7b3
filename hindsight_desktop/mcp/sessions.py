"""Who opened each streamable HTTP session, so sessions stay bounded and bound to their client.

The SDK keeps one transport (streams, a task) per session until the client deletes it or it has been
idle for `idle_timeout`. A client that opens sessions and abandons them (a crash loop, a hostile
script) would otherwise fill memory up to the SDK's global cap. This table lets the HTTP guard
(asgi.py) keep at most `per_client` sessions per client, closing that client's longest-idle one to
make room, and answer 404 when one client presents another's session id.

>>> table = SessionTable(SessionLimits(per_client=2, idle_timeout=60), clock=lambda: 0.0)
>>> table.opened("alice", "s1"); table.opened("alice", "s2")
>>> table.make_room("alice"), table.owner("s1"), table.owner("s2")
(['s1'], None, 'alice')
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_IDLE_TIMEOUT_S = 15 * 60.0  # a client that reconnects after this starts a new session (spec: 404)
DEFAULT_PER_CLIENT = 16  # several windows of one assistant, each with its own session, fit easily
DEFAULT_TOTAL = 512


@dataclass(frozen=True)
class SessionLimits:
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S
    per_client: int = DEFAULT_PER_CLIENT
    total: int = DEFAULT_TOTAL


class SessionsFull(Exception):
    """Every session of this client is busy and it holds its whole allowance."""


@dataclass
class _Entry:
    client: str
    busy: int
    last_used: float


class SessionTable:
    """Session id -> (client, requests in flight, last use). Only the event loop's thread touches it."""

    def __init__(self, limits: SessionLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._entries: dict[str, _Entry] = {}

    def __len__(self) -> int:
        self.prune()
        return len(self._entries)

    def count(self, client: str) -> int:
        self.prune()
        return sum(1 for e in self._entries.values() if e.client == client)

    def owner(self, session_id: str) -> str | None:
        entry = self._entries.get(session_id)
        return entry.client if entry is not None else None

    def opened(self, client: str, session_id: str) -> None:
        self._entries[session_id] = _Entry(client, 0, self._clock())

    def closed(self, session_id: str) -> None:
        self._entries.pop(session_id, None)

    def begin(self, session_id: str) -> None:
        entry = self._entries.get(session_id)
        if entry is not None:
            entry.busy += 1

    def end(self, session_id: str) -> None:
        entry = self._entries.get(session_id)
        if entry is not None:
            entry.busy = max(0, entry.busy - 1)
            entry.last_used = self._clock()

    def prune(self) -> None:
        """Forget sessions idle past the timeout: the SDK has closed them by then."""
        cutoff = self._clock() - self.limits.idle_timeout
        for session_id in [s for s, e in self._entries.items() if not e.busy and e.last_used <= cutoff]:
            del self._entries[session_id]

    def make_room(self, client: str) -> list[str]:
        """The sessions of `client` to close (longest idle first) so that one more fits its allowance.
        They are forgotten here at once. Raises SessionsFull when all of them are in use."""
        self.prune()
        mine = sorted(((e.last_used, s) for s, e in self._entries.items() if e.client == client))
        excess = len(mine) - self.limits.per_client + 1
        if excess <= 0:
            return []
        idle = [s for _, s in mine if not self._entries[s].busy][:excess]
        if len(idle) < excess:
            raise SessionsFull(
                f"client {client!r} already has {len(mine)} open sessions, all in use (the limit "
                f"is {self.limits.per_client}); close one (HTTP DELETE) before opening another"
            )
        for session_id in idle:
            del self._entries[session_id]
        return idle
