"""The commands that keep running: `serve` (MCP over HTTP), `mcp` (MCP over stdio) and `app` (the tray app,
also what no command at all starts). Nothing here imports the MCP SDK or Qt until the command runs."""

from __future__ import annotations

import argparse
import signal
import sys

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import data_dir, open_engine, warn
from hindsight_desktop.config import Settings, load_settings
from hindsight_desktop.core.errors import HindsightError, InvalidInput

IDLE_EXIT_ENV = "HINDSIGHT_IDLE_EXIT"


def port_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=int, help=f"HTTP port on 127.0.0.1 (default {Settings().http_port})")


def checked_port(value: int | None) -> int:
    """`--port`, else the saved setting; a port outside 1..65535 is bad input."""
    port = load_settings().http_port if value is None else value
    if not 1 <= port <= 65535:
        raise InvalidInput(f"--port must be between 1 and 65535, got {port}")
    return port


def _serve_arguments(p: argparse.ArgumentParser) -> None:
    port_option(p)
    p.add_argument("--no-auth", action="store_true", help="accept requests without a token: for protocol testing only")


def _serve(args: argparse.Namespace) -> None:
    from hindsight_desktop.mcp.auth import ClientRegistry
    from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH, bind_loopback, serve_http

    port = checked_port(args.port)
    sock = bind_loopback(port)  # before the model loads: a busy port fails at once
    registry = None
    if args.no_auth:
        warn(
            f"--no-auth: any program on this computer can read and change memory through "
            f"http://{LOOPBACK}:{port}{MCP_PATH} without a token. Use it only for protocol testing."
        )
    else:
        registry = ClientRegistry.open(data_dir(args))
        if not any(c.active for c in registry.list()):
            warn("no clients yet, so every request will get 401: run `hindsight-desktop clients add NAME`")
    from hindsight_desktop.mcp.bridge_server import BridgeListener
    from hindsight_desktop.mcp.shared_server import PendingEngine

    # The folder's server lock is taken before the model loads: a stdio client arriving meanwhile
    # waits for this engine instead of starting a second one.
    pending = PendingEngine()
    listener = BridgeListener(pending, data_dir(args))
    if not listener.start(take_over=True):  # stdio bridges keep using the server that already publishes
        warn("another Hindsight Desktop server already serves stdio clients for this data folder")
    # uvicorn raises SIGTERM again once it has shut down: leave through `finally`, not mid-air,
    # so the bridge endpoint is withdrawn and the engine closed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with pending.opening(lambda: open_engine(args, lazy=False)) as engine:
            engine.warm_up_in_background()
            serve_http(engine, sock, registry)
    finally:
        listener.stop()


def _stdio_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--client", help="client name recorded on memories (default: $HINDSIGHT_CLIENT, else stdio)")
    p.add_argument(
        "--in-process",
        action="store_true",
        help="load the memory in this process instead of sharing the running app's or server's",
    )
    p.add_argument(
        "--idle-exit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a shared server this command starts exits after this long with no client "
        "(default $HINDSIGHT_IDLE_EXIT, else 600)",
    )
    p.add_argument(
        "--shared-server",
        action="store_true",
        help="run as the shared background server (what the first stdio client starts itself)",
    )


def _idle_exit(value: float | None) -> float:
    import os

    raw = value if value is not None else os.environ.get(IDLE_EXIT_ENV, "600")
    try:
        seconds = float(raw)
    except ValueError:
        raise InvalidInput(f"${IDLE_EXIT_ENV} must be a number of seconds, got {raw!r}") from None
    if not seconds > 0:
        raise InvalidInput(f"--idle-exit must be more than 0 seconds, got {seconds:g}")
    return seconds


def _stdio(args: argparse.Namespace) -> int:
    """Bridge to the data folder's running server (starting the shared one when none runs); only the
    standard library is imported on that path. --in-process serves here, with its own engine."""
    from hindsight_desktop.mcp.identity import stdio_client_name

    name = stdio_client_name(args.client)  # the person's own name is refused before anything starts
    idle = _idle_exit(args.idle_exit)
    if args.shared_server:
        from hindsight_desktop.mcp.shared_server import serve_shared

        return serve_shared(data_dir(args), idle)
    if not args.in_process:
        from hindsight_desktop.mcp.bridge import Bridge, BridgeRefused, BridgeUnavailable

        try:
            Bridge(data_dir(args), name, idle_exit=idle).run()
            return 0
        except BridgeRefused as exc:
            raise InvalidInput(f"the memory server refused this client: {exc}") from None
        except BridgeUnavailable as exc:
            warn(f"{exc}; serving in this process instead")
    from hindsight_desktop.mcp.stdio import serve_stdio

    serve_stdio(data_dir(args), name)
    return 0


def app(args: argparse.Namespace) -> int:
    """The desktop app, or the help where no screen exists (exit 1)."""
    from hindsight_desktop.cli.doctor_qt import why_the_app_cannot_start

    cannot = why_the_app_cannot_start()
    if cannot is not None:  # before Qt aborts with a message naming one library of several
        raise HindsightError(cannot)
    from hindsight_desktop.app.main import start_from_cli  # Qt loads only for the app
    from hindsight_desktop.cli.registry import build_parser

    return start_from_cli(build_parser())


COMMANDS = (
    Command("serve", "run the MCP server over HTTP on 127.0.0.1 (no tray app)", _serve, _serve_arguments),
    Command(
        "mcp",
        "serve MCP on stdin/stdout (for clients that launch a command), through the running app or "
        "server for this data folder (started in the background when none runs)",
        _stdio,
        _stdio_arguments,
    ),
    Command("app", "start the desktop app: tray, timeline, MCP server (also: no command at all)", app),
)
