"""Streamable HTTP on 127.0.0.1 only: build the guarded app and run it under uvicorn.

`serve_http` blocks (the `serve` command); `HttpServer` runs the same thing on a thread for the tray
app, the tests and the load benchmark. Each request must arrive whole within a read timeout
(read_timeout.py); Host and Origin must name this server exactly (asgi.py).
"""

from __future__ import annotations

import errno
import logging
import socket
import threading
import time

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.identities import NO_AUTH_CLIENT
from hindsight_desktop.mcp.asgi import GuardedApp
from hindsight_desktop.mcp.auth import ClientRegistry
from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.presence import Presence
from hindsight_desktop.mcp.read_timeout import READ_TIMEOUT, timed_protocol
from hindsight_desktop.mcp.server import build_server
from hindsight_desktop.mcp.sessions import SessionLimits

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"
_LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")


def transport_security() -> TransportSecuritySettings:
    """Only loopback names in Host and Origin (any port): a DNS-rebinding page gets 421/403."""
    hosts = [h for name in _LOCAL_NAMES for h in (name, f"{name}:*")]
    origins = [o for name in _LOCAL_NAMES for o in (f"http://{name}", f"http://{name}:*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def build_http_app(
    engine: MemoryEngine,
    registry: ClientRegistry | None,
    presence: Presence | None = None,
    limits: SessionLimits | None = None,
) -> GuardedApp:
    """The MCP app behind the guard. `registry=None` means no tokens (serve --no-auth); `presence`,
    when given, hears of every authenticated request; `limits` bound the sessions (idle timeout, per
    client, in all)."""
    limits = limits or SessionLimits()
    identity = Identity(anonymous=NO_AUTH_CLIENT if registry is None else None)
    server = build_server(engine, identity)
    security = transport_security()
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security,
        host=LOOPBACK,
        session_idle_timeout=limits.idle_timeout,
        max_sessions=limits.total,
    )
    return GuardedApp(
        inner,
        verify=registry.verify if registry is not None else None,
        security=security,
        path=MCP_PATH,
        presence=presence,
        limits=limits,
    )


def bind_loopback(port: int) -> socket.socket:
    """Bind 127.0.0.1:port ourselves, so a busy port gets a clear message (uvicorn would just exit)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((LOOPBACK, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise HindsightError(
                f"port {port} is already in use (is another Hindsight Desktop server "
                f"running?); pick another with --port"
            ) from exc
        raise HindsightError(f"cannot listen on {LOOPBACK}:{port}: {exc}") from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _uvicorn(app: ASGIApp, read_timeout: float = READ_TIMEOUT) -> uvicorn.Server:
    # Open GET streams would hold shutdown forever; two seconds is plenty for answers in flight. The
    # protocol is h11 with a deadline for reading each request (read_timeout.py), whatever else is installed.
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
        access_log=False,
        http=timed_protocol(read_timeout),
    )
    return uvicorn.Server(config)


def serve_http(engine: MemoryEngine, sock: socket.socket, registry: ClientRegistry | None) -> None:
    """Serve on a socket from `bind_loopback` until interrupted (Ctrl-C or SIGTERM)."""
    app = build_http_app(engine, registry)
    port = sock.getsockname()[1]
    url = f"http://{LOOPBACK}:{port}{MCP_PATH}"
    # The address is this command's output, printed at once: a script or service manager reading a pipe
    # must not wait for a block buffer to fill.
    print(f"Hindsight Desktop MCP server: {url}", flush=True)
    log.info("serving MCP over HTTP on %s", url)
    _uvicorn(app).run(sockets=[sock])


class HttpServer:
    """The HTTP server on a background thread: `start()`, then `stop()`. `presence` tells who is
    connected (the tray reads it)."""

    def __init__(
        self,
        engine: MemoryEngine,
        port: int,
        registry: ClientRegistry | None,
        limits: SessionLimits | None = None,
        read_timeout: float = READ_TIMEOUT,
    ) -> None:
        self.port = port
        self.presence = Presence()
        self._sock = bind_loopback(port)
        self.app = build_http_app(engine, registry, self.presence, limits)
        self._server = _uvicorn(self.app, read_timeout)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, name="hindsight-mcp-http", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}{MCP_PATH}"

    @property
    def sessions(self) -> int:
        """Open MCP sessions (each client's, all together)."""
        return len(self.app.sessions)

    def start(self, timeout: float = 10.0) -> HttpServer:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise HindsightError("the MCP HTTP server did not start")
            time.sleep(0.02)
        log.info("MCP server started on %s", self.url)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
        log.info("MCP server on port %d stopped", self.port)
