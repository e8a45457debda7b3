"""The command line's way to the running server: a command that needs the model (`add`, `search`, `why`)
is made by the app, `serve` or the shared background server of the same data folder when one runs,
so the command neither loads the model nor imports numpy. The call itself is mcp/cli_channel.py.

Standard library only (plus runtime.py): the server is found through the runtime file and its secret
(the same as the stdio bridge's). No server, a stale runtime file or an older server without the
command channel: `call` returns None and the command runs in its own process, as it always did.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from hindsight_desktop.core import errors
from hindsight_desktop.mcp import runtime
from hindsight_desktop.mcp.cli_channel import READ_ONLY

HELLO_KEY = "hindsight-bridge"
CONNECT_TIMEOUT = 5.0
UNSURE = (
    "the memory server stopped while this command ran, so it is not known whether it took effect; "
    "search memory to check before running it again"
)


def call(data_dir: Path, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The running server's result of the command `name`, or None when no server takes it here.
    A refusal raises the very error (and so exits with the very code) it would raise in-process."""
    endpoint = runtime.read_endpoint(data_dir)
    if endpoint is None:
        return None
    try:
        sock = socket.create_connection(("127.0.0.1", endpoint.port), timeout=CONNECT_TIMEOUT)
    except OSError:
        return None  # a stale runtime file: the server is gone
    with sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = sock.makefile("rb")
        try:
            sock.sendall(_line({HELLO_KEY: 1, "secret": endpoint.secret, "cli": 1}))
            welcome = json.loads(reader.readline() or b"{}")
        except (OSError, ValueError):
            return None
        if not (isinstance(welcome, dict) and welcome.get("ok") and welcome.get("cli")):
            return None  # refused, or a server of a version without the command channel
        try:
            sock.sendall(_line({"call": name, "params": params}))
        except OSError:
            return None  # not sent: nothing happened there
        sock.settimeout(None)  # the server may still be loading the model
        try:
            answer = json.loads(reader.readline() or b"null")
        except (OSError, ValueError):
            answer = None
    if not isinstance(answer, dict):
        if name in READ_ONLY:
            return None  # changes nothing: made again here
        raise errors.HindsightError(UNSURE)
    if answer.get("ok"):
        return dict(answer["result"])
    raise _error(answer)


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")


def _error(answer: dict[str, Any]) -> errors.HindsightError:
    """The server's error as the same class (and exit code) the command raises in its own process."""
    kind = getattr(errors, str(answer.get("kind")), None)
    message = str(answer.get("error", "the memory server refused the command"))
    if isinstance(kind, type) and issubclass(kind, errors.HindsightError):
        return kind(message)
    error = errors.HindsightError(message)
    error.exit_code = int(answer.get("code") or 1)
    return error
