"""A deadline for reading each request: uvicorn's HTTP/1.1 protocol (h11) with a read timeout.

uvicorn times a connection out only while it is idle after an answer (keep-alive); one that sends half
a request line, or headers without their end, or less body than it announced, is kept open for ever,
and enough of them exhaust the process's file descriptors. Here every request has `read_timeout`
seconds, from the moment the connection opens (or the previous answer ends), to arrive whole; a
connection whose request is still incomplete then is closed. A request that did arrive is never
interrupted: a long answer, or an event stream held open, is not a slow read.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

READ_TIMEOUT = 10.0  # seconds; a local client sends a whole request in well under one


class TimedH11Protocol(H11Protocol):
    """H11Protocol that closes a connection whose request is not read whole within `read_timeout`."""

    read_timeout = READ_TIMEOUT
    _read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request on this connection gets a deadline of its own

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self._read_timer = self.loop.call_later(self.read_timeout, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        # IDLE: the request line and headers are not complete yet; SEND_BODY: its body is not.
        if not self.transport.is_closing() and self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self.transport.close()


def timed_protocol(seconds: float) -> type[TimedH11Protocol]:
    """The protocol class with its own read timeout (uvicorn builds one instance per connection)."""
    return type("TimedH11Protocol", (TimedH11Protocol,), {"read_timeout": float(seconds)})
