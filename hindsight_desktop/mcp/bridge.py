"""The thin stdio bridge: `hindsight-desktop mcp` forwarding JSON-RPC to the data folder's running server.

Standard library only (plus runtime.py): no SDK, no engine, no model. It finds the server through the
runtime file, proves itself with the file's secret (bridge_server.py) and names the stdio client it
was started as. When no server runs it starts the shared background server (shared_server.py) under
a lock, so racing processes start one.

If the server goes away mid-session, the bridge reconnects (or starts a new server), repeats the
client's `initialize` and subscriptions there, and resends the requests that were in flight when
they are safe to repeat; a call that may have changed memory is answered with a tool error saying it
is not known whether it took effect. Nothing is dropped silently.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from hindsight_desktop.mcp import runtime

HELLO_KEY = "hindsight-bridge"
INTERNAL = "hindsight-bridge:"  # id prefix of the requests the bridge itself sends
START_TIMEOUT = 180.0  # a first start converts nothing, but loads the model on a busy machine
RECONNECT_GRACE = 60.0  # how long requests wait for a server before they are answered with an error
DEFAULT_IDLE_EXIT = 600.0
UNSURE = (
    "The memory server stopped while this call was in flight, so it is not known whether it took "
    "effect. Search memory to check before calling it again."
)


class BridgeRefused(Exception):
    """The server refused this bridge (a name that may not be used): fatal, with the server's reason."""


class BridgeUnavailable(Exception):
    """No server could be reached or started."""


def _hello(sock: socket.socket, secret: str, client: str) -> dict[str, Any]:
    sock.sendall((json.dumps({HELLO_KEY: 1, "secret": secret, "client": client}) + "\n").encode("utf-8"))
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("the server closed the connection during the hello")
        reply += chunk
    answer = json.loads(reply)
    if not answer.get("ok"):
        raise BridgeRefused(str(answer.get("error", "refused")))
    return answer


def try_connect(data_dir: Path, client: str) -> socket.socket | None:
    """A connection to the running server for `data_dir`, past the hello, or None if none answers."""
    endpoint = runtime.read_endpoint(data_dir)
    if endpoint is None:
        return None
    try:
        sock = socket.create_connection(("127.0.0.1", endpoint.port), timeout=10)
        _hello(sock, endpoint.secret, client)
    except (OSError, ValueError, ConnectionError):
        return None
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def server_command(idle_exit: float) -> list[str]:
    base = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "hindsight_desktop"]
    return [*base, "mcp", "--shared-server", "--idle-exit", f"{idle_exit:g}"]


def start_server(data_dir: Path, idle_exit: float) -> subprocess.Popen[bytes]:
    """The shared background server, detached from this process and its client's pipes."""
    log = runtime.runtime_dir() / f"server-{runtime.folder_key(data_dir)}.log"
    env = {**os.environ, "HINDSIGHT_DATA_DIR": str(Path(data_dir).resolve())}
    flags: dict[str, Any] = (
        {"start_new_session": True}
        if os.name == "posix"
        else {"creationflags": getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NO_WINDOW", 0)}
    )
    with open(log, "ab") as err:
        return subprocess.Popen(
            server_command(idle_exit),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            close_fds=True,
            **flags,
        )


def connect(
    data_dir: Path, client: str, *, idle_exit: float = DEFAULT_IDLE_EXIT, timeout: float = START_TIMEOUT
) -> socket.socket:
    """Connect to the folder's server, starting the shared one when none runs."""
    sock = try_connect(data_dir, client)
    if sock is not None:
        return sock
    deadline = time.monotonic() + timeout
    with runtime.start_lock(data_dir, timeout) as got:
        sock = try_connect(data_dir, client)  # whoever held the lock may have started it
        if sock is not None:
            return sock
        child = start_server(data_dir, idle_exit) if got else None
        while time.monotonic() < deadline:
            sock = try_connect(data_dir, client)
            if sock is not None:
                return sock
            if child is not None and child.poll() is not None:
                sock = try_connect(data_dir, client)  # it may have lost a race to another server
                if sock is not None:
                    return sock
                raise BridgeUnavailable(
                    f"the shared memory server exited ({child.returncode}); see {runtime.runtime_dir()} for its log"
                )
            time.sleep(0.05)
    raise BridgeUnavailable("no memory server answered in time")


def _key(message_id: Any) -> str:
    return json.dumps(message_id, sort_keys=True)


@dataclass
class _Pending:
    message: dict[str, Any]
    sent: bool = False


@dataclass
class _State:
    sock: socket.socket | None = None
    pending: dict[str, _Pending] = field(default_factory=dict)
    initialize: dict[str, Any] | None = None
    initialized: bool = False
    subscriptions: set[str] = field(default_factory=set)
    read_only_tools: set[str] = field(default_factory=set)
    down_since: float | None = None
    reader: IO[bytes] | None = None  # the socket's buffered reader: lines read ahead must not be lost


class Bridge:
    """Forwards lines between the client's stdin/stdout and the server's socket."""

    def __init__(
        self,
        data_dir: Path,
        client: str,
        *,
        idle_exit: float = DEFAULT_IDLE_EXIT,
        stdin: IO[bytes] | None = None,
        stdout: IO[bytes] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.client = client
        self.idle_exit = idle_exit
        self.stdin = stdin or sys.stdin.buffer
        self.stdout = stdout or sys.stdout.buffer
        self.state = _State()
        self._lock = threading.Condition()
        self._out = threading.Lock()
        self._closing = False
        self._internal = 0

    def run(self) -> None:
        """Serve until the client closes stdin. Raises BridgeRefused/BridgeUnavailable before the
        first message is read, so the caller can report it (or serve in-process)."""
        self.state.sock = connect(self.data_dir, self.client, idle_exit=self.idle_exit)
        self.state.reader = self.state.sock.makefile("rb")
        reader = threading.Thread(target=self._from_server, name="bridge-reader", daemon=True)
        reader.start()
        try:
            for line in self.stdin:
                if line.strip():
                    self._from_client(line)
        finally:
            with self._lock:
                self._closing = True
                sock = self.state.sock
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_WR)  # the server finishes what is in flight, then closes
            reader.join(timeout=30)

    # ---- client -> server ----------------------------------------------------------------------
    def _from_client(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        with self._lock:
            if isinstance(message, dict):
                self._note_outgoing(message)
            self._send_or_hold(line, message)

    def _note_outgoing(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "initialize":
            self.state.initialize = message
        elif method == "notifications/initialized":
            self.state.initialized = True
        elif method in ("resources/subscribe", "resources/unsubscribe"):
            uri = str((message.get("params") or {}).get("uri", ""))
            (self.state.subscriptions.add if method == "resources/subscribe" else self.state.subscriptions.discard)(uri)

    def _send_or_hold(self, line: bytes, message: Any) -> None:
        request = isinstance(message, dict) and "method" in message and "id" in message
        entry = _Pending(message) if request else None
        if entry is not None:
            self.state.pending[_key(message["id"])] = entry
        sock = self.state.sock
        if sock is None:
            if entry is not None and self._given_up():
                self._fail(self.state.pending.pop(_key(message["id"])), "the memory server is not reachable")
            return  # held: sent after the reconnect (a notification while down is dropped)
        try:
            sock.sendall(line if line.endswith(b"\n") else line + b"\n")
        except OSError:
            return  # the reader sees the broken connection and reconnects; held requests go then
        if entry is not None:
            entry.sent = True

    def _given_up(self) -> bool:
        down = self.state.down_since
        return down is not None and time.monotonic() - down > RECONNECT_GRACE

    # ---- server -> client ----------------------------------------------------------------------
    def _from_server(self) -> None:
        while True:
            reader = self.state.reader
            if reader is not None:
                with contextlib.suppress(OSError, ValueError):
                    for line in reader:
                        self._deliver(line)
            with self._lock:
                if self._closing:
                    self._answer_remaining("the memory server closed the connection")
                    return
            self._reconnect()

    def _deliver(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and "id" in message and "method" not in message:
            if str(message["id"]).startswith(INTERNAL):
                return  # the answer to a repeated initialize or subscription
            with self._lock:
                entry = self.state.pending.pop(_key(message["id"]), None)
            if entry is not None and entry.message.get("method") == "tools/list":
                self._learn_tools(message)
        self._write(line)

    def _learn_tools(self, message: dict[str, Any]) -> None:
        for tool in (message.get("result") or {}).get("tools", []):
            if (tool.get("annotations") or {}).get("readOnlyHint"):
                self.state.read_only_tools.add(str(tool.get("name")))

    def _write(self, line: bytes) -> None:
        with self._out:
            self.stdout.write(line if line.endswith(b"\n") else line + b"\n")
            self.stdout.flush()

    # ---- reconnecting --------------------------------------------------------------------------
    def _reconnect(self) -> None:
        with self._lock:
            old, self.state.sock, self.state.reader = self.state.sock, None, None
            self.state.down_since = time.monotonic()
        if old is not None:
            with contextlib.suppress(OSError):
                old.close()
        pause = 0.5
        while True:
            try:
                sock = connect(self.data_dir, self.client, idle_exit=self.idle_exit)
                self._resume(sock)
                return
            except BridgeRefused:
                raise
            except (BridgeUnavailable, OSError, ValueError):
                with self._lock:
                    if self._given_up():
                        self._answer_remaining("the memory server is not reachable")
                    if self._closing:
                        return
                time.sleep(pause)
                pause = min(pause * 2, 30.0)  # a server that cannot start is not started in a tight loop

    def _resume(self, sock: socket.socket) -> None:
        """Bring the new server to where the old one was, then release what waited."""
        sock.settimeout(START_TIMEOUT)  # a server that never answers the repeated handshake is given up on
        reader = sock.makefile("rb")
        if self.state.initialize is not None:
            again = {**self.state.initialize, "id": self._next_id()}
            sock.sendall((json.dumps(again) + "\n").encode("utf-8"))
            for line in reader:  # wait for its answer; anything else the server says goes to the client
                message = json.loads(line)
                if message.get("id") == again["id"]:
                    break
                self._write(line)
            if self.state.initialized:
                sock.sendall(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        sock.settimeout(None)
        for uri in sorted(self.state.subscriptions):
            request = {"jsonrpc": "2.0", "id": self._next_id(), "method": "resources/subscribe", "params": {"uri": uri}}
            sock.sendall((json.dumps(request) + "\n").encode("utf-8"))
        with self._lock:
            for key, entry in list(self.state.pending.items()):
                if entry.sent and not self._safe_to_repeat(entry.message):
                    self._fail(self.state.pending.pop(key), UNSURE)
                    continue
                sock.sendall((json.dumps(entry.message) + "\n").encode("utf-8"))
                entry.sent = True
            self.state.sock, self.state.reader = sock, reader
            self.state.down_since = None

    def _safe_to_repeat(self, message: dict[str, Any]) -> bool:
        if message.get("method") != "tools/call":
            return True  # lists, reads and the handshake change nothing
        return str((message.get("params") or {}).get("name")) in self.state.read_only_tools

    def _next_id(self) -> str:
        self._internal += 1
        return f"{INTERNAL}{self._internal}"

    def _answer_remaining(self, why: str) -> None:
        for key in list(self.state.pending):
            self._fail(self.state.pending.pop(key), why)

    def _fail(self, entry: _Pending, why: str) -> None:
        """Answer a request the server will not answer: a tool error for a tool call, else a JSON-RPC error."""
        message_id = entry.message.get("id")
        if entry.message.get("method") == "tools/call":
            text = UNSURE if entry.sent and not self._safe_to_repeat(entry.message) else f"Error: {why}."
            answer: dict[str, Any] = {
                "jsonrpc": "2.0",
                "id": message_id,
                "result": {"content": [{"type": "text", "text": text}], "isError": True},
            }
        else:
            answer = {"jsonrpc": "2.0", "id": message_id, "error": {"code": -32603, "message": why}}
        self._write((json.dumps(answer) + "\n").encode("utf-8"))
