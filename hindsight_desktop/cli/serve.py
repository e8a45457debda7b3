"""The commands that keep running: `serve` (MCP over HTTP), `mcp` (MCP over stdio) and `app` (the tray app,
also what no command at all starts). Nothing here imports the MCP SDK or Qt until the command runs."""

from __future__ import annotations

import argparse

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import data_dir, open_engine, warn
from hindsight_desktop.config import Settings, load_settings
from hindsight_desktop.core.errors import InvalidInput


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
    p.add_argument("--no-auth", action="store_true",
                   help="accept requests without a token: for protocol testing only")


def _serve(args: argparse.Namespace) -> None:
    from hindsight_desktop.mcp.auth import ClientRegistry
    from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH, bind_loopback, serve_http

    port = checked_port(args.port)
    sock = bind_loopback(port)  # before the model loads: a busy port fails at once
    registry = None
    if args.no_auth:
        warn(f"--no-auth: any program on this computer can read and change memory through "
             f"http://{LOOPBACK}:{port}{MCP_PATH} without a token. Use it only for protocol testing.")
    else:
        registry = ClientRegistry.open(data_dir(args))
        if not any(c.active for c in registry.list()):
            warn("no clients yet, so every request will get 401: run `hindsight-desktop clients add NAME`")
    with open_engine(args) as engine:
        engine.warm_up_in_background()
        serve_http(engine, sock, registry)


def _stdio_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--client", help="client name recorded on memories (default: $HINDSIGHT_CLIENT, else stdio)")


def _stdio(args: argparse.Namespace) -> None:
    from hindsight_desktop.mcp.identity import stdio_client_name
    from hindsight_desktop.mcp.stdio import serve_stdio

    serve_stdio(data_dir(args), stdio_client_name(args.client))


def app(args: argparse.Namespace) -> int:
    """The desktop app, or the help where no screen exists (exit 1)."""
    from hindsight_desktop.app.main import start_from_cli  # Qt loads only for the app
    from hindsight_desktop.cli.registry import build_parser

    return start_from_cli(build_parser())


COMMANDS = (
    Command("serve", "run the MCP server over HTTP on 127.0.0.1 (no tray app)", _serve, _serve_arguments),
    Command("mcp", "serve MCP on stdin/stdout (for clients that launch a command)", _stdio, _stdio_arguments),
    Command("app", "start the desktop app: tray, timeline, MCP server (also: no command at all)", app),
)
