"""Which clients are talking to the HTTP server right now, as the server itself sees them.

The event log only shows what changed memory, so a client that only searches or lists tools would
never look connected from there. The guard (asgi.py) tells this object about every authenticated
request instead. It lives in memory only, is shared by the server's event loop and the app's main
thread (hence the lock), and forgets everything when the server stops.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

RECENT = timedelta(minutes=5)  # a request this recent counts as connected


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Seen:
    """One client as the server saw it since it started."""

    name: str
    first_seen: datetime
    last_seen: datetime
    requests: int = 0
    open_streams: int = 0  # GET event streams being held open now
    ended: bool = False  # its last request closed its session (DELETE)

    def connected(self, now: datetime, recent: timedelta = RECENT) -> bool:
        """An open stream, or a request within `recent` that was not the end of its session."""
        if self.open_streams > 0:
            return True
        return not self.ended and now - self.last_seen <= recent


class Presence:
    """Thread-safe record of authenticated requests, by client name."""

    def __init__(self, clock: Callable[[], datetime] = _utcnow) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: dict[str, Seen] = {}
        self._requests = 0

    @contextmanager
    def request(self, name: str, method: str) -> Iterator[Callable[[int], None]]:
        """Around one request: it is seen when it arrives, and a GET counts as an open stream until
        it ends. Call what this yields with the answer's status as the answer starts: a DELETE
        answered below 400 ends the client's session, any other request so answered starts one again,
        and a refused one changes nothing (a late GET from a client that is closing gets a 404)."""
        stream = method == "GET"
        self._update(name, requests=1, streams=1 if stream else 0)

        def answered(status: int) -> None:
            if status < 400:
                self._update(name, ended=method == "DELETE")

        try:
            yield answered
        finally:
            if stream:
                self._update(name, streams=-1)

    def _update(self, name: str, *, requests: int = 0, streams: int = 0, ended: bool | None = None) -> None:
        now = self._clock()
        with self._lock:
            self._requests += requests
            old = self._clients.get(name) or Seen(name, first_seen=now, last_seen=now)
            self._clients[name] = replace(
                old,
                last_seen=now if requests else old.last_seen,
                requests=old.requests + requests,
                open_streams=max(0, old.open_streams + streams),
                ended=old.ended if ended is None else ended,
            )

    @property
    def total_requests(self) -> int:
        """Every authenticated request so far (lets a poller tell whether anything happened)."""
        with self._lock:
            return self._requests

    def snapshot(self) -> list[Seen]:
        """Every client seen since the server started, most recent first."""
        with self._lock:
            seen = list(self._clients.values())
        return sorted(seen, key=lambda s: s.last_seen, reverse=True)

    def connected(self, recent: timedelta = RECENT) -> list[str]:
        """Names of the clients connected now, sorted."""
        now = self._clock()
        return sorted(s.name for s in self.snapshot() if s.connected(now, recent))
