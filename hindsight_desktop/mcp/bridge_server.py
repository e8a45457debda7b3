"""The server end of the stdio bridge: a loopback listener that serves MCP to `mcp` bridge processes.

Each connection starts with one hello line, `{"hindsight-bridge": 1, "secret": S, "client": NAME}`
(or `"cli": 1`: the person's command line making one call, cli_channel.py);
the secret is the one in the 0600 runtime file (runtime.py), so only the person's own account can
connect. The connection then carries newline-delimited JSON-RPC, exactly as stdio does, and every
call acts as NAME with the stdio rules (any name but the person's own), served by the same tools
over the same engine as the HTTP clients. The listener also counts its connections, so a shared
background server can exit once none has been open for a while.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.server.stdio import stdio_server

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.mcp import runtime
from hindsight_desktop.mcp.identity import Identity, stdio_client_name
from hindsight_desktop.mcp.server import MemoryServer, build_server

HELLO_KEY = "hindsight-bridge"
MAX_LINE = 4 * 1024 * 1024  # one JSON-RPC message, as the HTTP side's body limit
HELLO_TIMEOUT = 10.0
HANDOVER_TIMEOUT = 30.0  # a shared server closing its engine, on a busy machine


class _Lines:
    """The connection's incoming lines as the SDK's stdio transport reads a text file."""

    def __init__(self, stream: BufferedByteReceiveStream) -> None:
        self.stream = stream

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            try:
                line = await self.stream.receive_until(b"\n", MAX_LINE)
            except (
                anyio.EndOfStream,
                anyio.IncompleteRead,
                anyio.BrokenResourceError,
                anyio.ClosedResourceError,
                anyio.DelimiterNotFound,
            ):
                return  # a partial last line is dropped, never executed
            yield line.decode("utf-8", errors="replace")


class _Writer:
    def __init__(self, stream: SocketStream) -> None:
        self.stream = stream

    async def write(self, text: str) -> None:
        await self.stream.send(text.encode("utf-8"))

    async def flush(self) -> None:
        return None


class BridgeListener:
    """Listens on 127.0.0.1 (any free port) on its own thread; publishes the endpoint for `data_dir`.

    `start()` returns False when another server already publishes for this folder (it holds the
    folder's server lock): then this process serves no bridges."""

    def __init__(self, engine: Any, data_dir: Path, *, shared: bool = False) -> None:
        self.engine = engine
        self.data_dir = Path(data_dir)
        self.shared = shared  # a background server: it hands the folder over to the app or serve when asked
        self.yield_requested = threading.Event()
        self.lock = runtime.server_lock(self.data_dir)
        self.endpoint: runtime.Endpoint | None = None
        self.connections = 0
        self.last_active = time.monotonic()
        self._servers: dict[str, MemoryServer] = {}
        self._ready = threading.Event()
        self._stop: anyio.Event | None = None
        self._portal_loop: Any = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    # ---- life ----------------------------------------------------------------------------------
    def start(self, timeout: float = 10.0, *, take_over: bool = False) -> bool:
        """Listen and publish. With `take_over` (the app, serve), a shared background server that holds
        the folder is asked to hand it over first: bridges that lose it meanwhile wait on the start lock,
        which is held until this listener has published, so they find it rather than start another."""
        if self.lock.acquire():
            return self._begin(timeout)
        if not take_over:
            return False
        with runtime.start_lock(self.data_dir, HANDOVER_TIMEOUT) as got:
            endpoint = runtime.read_endpoint(self.data_dir)
            if not got or endpoint is None or not _ask_to_yield(endpoint):
                return False
            if not self.lock.acquire(HANDOVER_TIMEOUT):
                return False
            return self._begin(timeout)

    def _begin(self, timeout: float) -> bool:
        self._thread = threading.Thread(target=self._run, name="hindsight-mcp-bridge", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or self._error is not None:
            self.lock.release()
            raise HindsightError(f"the stdio bridge listener did not start: {self._error}")
        return True

    def stop(self) -> None:
        if self.endpoint is not None:
            runtime.withdraw(self.data_dir, self.endpoint)
        if self._portal_loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):
                self._portal_loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.lock.release()

    def idle_for(self) -> float:
        """Seconds since the last connection closed (0 while any is open)."""
        return 0.0 if self.connections else time.monotonic() - self.last_active

    def _run(self) -> None:
        try:
            anyio.run(self._main)
        except BaseException as exc:  # reported by start(); a running listener ends only when stopped
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        import asyncio

        self._portal_loop = asyncio.get_running_loop()
        self._stop = anyio.Event()
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        self.endpoint = runtime.publish(self.data_dir, port)
        self._ready.set()
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, self._connection)
            await self._stop.wait()
            tg.cancel_scope.cancel()

    # ---- one bridge ----------------------------------------------------------------------------
    async def _connection(self, stream: SocketStream) -> None:
        self.connections += 1
        try:
            async with stream:
                buffered = BufferedByteReceiveStream(stream)
                name = await self._hello(buffered, stream)
                if name is not None:
                    await self._serve(name, buffered, stream)
        finally:
            self.connections -= 1
            self.last_active = time.monotonic()

    async def _hello(self, buffered: BufferedByteReceiveStream, stream: SocketStream) -> str | None:
        """The client name the bridge may act as, or None (answered with an error line) when refused."""
        assert self.endpoint is not None
        try:
            with anyio.fail_after(HELLO_TIMEOUT):
                raw = await buffered.receive_until(b"\n", 4096)
            hello = json.loads(raw)
            secret = str(hello.get("secret", ""))
        except Exception:
            await _answer(stream, {"error": "malformed bridge hello"})
            return None
        if not hmac.compare_digest(secret.encode("utf-8"), self.endpoint.secret.encode("utf-8")):
            await _answer(stream, {"error": "wrong bridge secret"})
            return None
        if hello.get("yield"):
            if not self.shared:
                await _answer(stream, {"error": "this server does not hand over its folder"})
                return None
            await _answer(stream, {"ok": True, "yielding": True})
            self.yield_requested.set()
            return None
        if hello.get("cli"):  # the person's command line: one call, as the person (cli_channel.py)
            from hindsight_desktop.mcp import cli_channel

            await _answer(stream, {"ok": True, "cli": 1, "pid": self.endpoint.pid})
            await cli_channel.serve(
                self.engine, lambda: buffered.receive_until(b"\n", cli_channel.MAX_REQUEST), stream.send
            )
            return None
        try:
            name = stdio_client_name(hello.get("client"))
        except HindsightError as exc:
            await _answer(stream, {"error": str(exc)})
            return None
        await _answer(stream, {"ok": True, "pid": self.endpoint.pid})
        return name

    async def _serve(self, name: str, buffered: BufferedByteReceiveStream, stream: SocketStream) -> None:
        server = self._servers.get(name)
        if server is None:  # one server per client name: its identity names every call
            server = self._servers[name] = build_server(self.engine, Identity(local=name))
        lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async drives, over our streams
        async with stdio_server(stdin=_Lines(buffered), stdout=_Writer(stream)) as (read, write):  # type: ignore[arg-type]
            await lowlevel.run(read, write, lowlevel.create_initialization_options())


def _ask_to_yield(endpoint: runtime.Endpoint) -> bool:
    """Ask the shared server at `endpoint` to hand its folder over; True when it agreed."""
    import socket

    try:
        with socket.create_connection(("127.0.0.1", endpoint.port), timeout=5) as sock:
            sock.sendall((json.dumps({HELLO_KEY: 1, "secret": endpoint.secret, "yield": True}) + "\n").encode())
            return bool(json.loads(sock.makefile("rb").readline() or b"{}").get("yielding"))
    except (OSError, ValueError):
        return False


async def _answer(stream: SocketStream, message: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):
        await stream.send((json.dumps(message) + "\n").encode("utf-8"))
