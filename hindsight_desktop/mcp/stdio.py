"""The stdio transport: what Claude Desktop and other command-launching clients start.

stdout carries the protocol and nothing else. The SDK moves fd 1 aside while it serves; before that,
while the engine and its model load, anything printed to fd 1 (by Python or by C code) is sent to
stderr instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from hindsight_desktop.config import load_settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.server import build_server
from hindsight_desktop.mcp.shared_server import PendingEngine


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Point fd 1 at stderr for the duration (C libraries write to the fd, not to sys.stdout)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout at all
        yield
        return
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def serve_stdio(data_dir: Path, client: str) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin. Every call acts as `client`.

    A memory that cannot be opened (its key missing, wrong or locked away) is served anyway: every call
    is then a tool error saying why and what to do, where exiting would only show the assistant a
    dropped connection."""
    from hindsight_desktop.core.keys.manage import never_prompt

    never_prompt()  # stdin is the protocol: a passphrase-protected memory says to unlock the app instead
    try:
        with stdout_to_stderr():
            engine = MemoryEngine(data_dir, settings=load_settings())
    except HindsightError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        unopened = PendingEngine()
        unopened.failed(exc)
        build_server(unopened, Identity(local=client)).run("stdio")  # type: ignore[arg-type]
        return
    engine.warm_up_in_background()
    try:
        build_server(engine, Identity(local=client)).run("stdio")
    finally:
        engine.close()
