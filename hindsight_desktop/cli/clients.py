"""The MCP commands of the CLI: `serve`, `mcp` and `clients …`. Argument parsing and printing only.

Nothing here imports the MCP SDK at module level, so the other CLI commands stay quick to start.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hindsight_desktop.config import Settings, default_data_dir, load_settings
from hindsight_desktop.core.errors import InvalidInput

COMMANDS = ("serve", "mcp", "clients")


def add_parsers(sub: Any) -> None:
    """Add the MCP subcommands to the CLI's subparsers."""
    port_help = f"HTTP port on 127.0.0.1 (default {Settings().http_port})"
    serve = sub.add_parser("serve", help="run the MCP server over HTTP on 127.0.0.1 (no tray app)")
    serve.add_argument("--port", type=int, help=port_help)
    serve.add_argument("--no-auth", action="store_true",
                       help="accept requests without a token: for protocol testing only")

    stdio = sub.add_parser("mcp", help="serve MCP on stdin/stdout (for clients that launch a command)")
    stdio.add_argument("--client", help="client name recorded on memories (default: $HINDSIGHT_CLIENT, else stdio)")

    clients = sub.add_parser("clients", help="the assistants allowed to connect over HTTP, and their set-up")
    csub = clients.add_subparsers(dest="clients_command", metavar="{add,list,revoke,config,install}")
    csub.required = True
    add = csub.add_parser("add", help="create a client and print its token")
    add.add_argument("name")
    add.add_argument("--rotate", action="store_true", help="replace the token of an existing client")
    csub.add_parser("list", help="registered clients")
    revoke = csub.add_parser("revoke", help="stop a client's token from working, at once")
    revoke.add_argument("name")
    from hindsight_desktop.mcp.client_config import KINDS  # no SDK import: a plain module

    for verb, text in (("config", "print the set-up snippet for a client"),
                       ("install", "merge the set-up into the client's config file (with a backup)")):
        cmd = csub.add_parser(verb, help=text)
        cmd.add_argument("client", choices=sorted(KINDS))
        cmd.add_argument("--name", help="the client name the token belongs to (default: the client)")
        cmd.add_argument("--port", type=int, help=port_help)


def run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        return _serve(args)
    if args.command == "mcp":
        return _stdio(args)
    return CLIENT_COMMANDS[args.clients_command](args)


def _port(value: int | None) -> int:
    port = load_settings().http_port if value is None else value
    if not 1 <= port <= 65535:
        raise InvalidInput(f"--port must be between 1 and 65535, got {port}")
    return port


def _serve(args: argparse.Namespace) -> int:
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.mcp.auth import ClientRegistry
    from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH, bind_loopback, serve_http

    port = _port(args.port)
    sock = bind_loopback(port)  # before the model loads: a busy port fails at once
    data_dir = default_data_dir()
    registry = None
    if args.no_auth:
        _warn(f"--no-auth: any program on this computer can read and change memory through "
              f"http://{LOOPBACK}:{port}{MCP_PATH} without a token. Use it only for protocol testing.")
    else:
        registry = ClientRegistry.open(data_dir)
        if not any(c.active for c in registry.list()):
            _warn("no clients yet, so every request will get 401: run `hindsight-desktop clients add NAME`")
    with MemoryEngine(data_dir, settings=load_settings()) as engine:
        engine.warm_up_in_background()
        serve_http(engine, sock, registry)
    return 0


def _stdio(args: argparse.Namespace) -> int:
    from hindsight_desktop.mcp.identity import stdio_client_name
    from hindsight_desktop.mcp.stdio import serve_stdio

    serve_stdio(default_data_dir(), stdio_client_name(args.client))
    return 0


def _registry() -> Any:
    from hindsight_desktop.mcp.auth import ClientRegistry

    return ClientRegistry.open(default_data_dir())


def _add(args: argparse.Namespace) -> int:
    from hindsight_desktop.mcp.identity import http_client_name

    http_client_name(args.name)  # before the registry opens: a reserved name is refused with its reason
    registry = _registry()
    token, saved = registry.add(args.name, rotate=args.rotate)
    if saved.warning:
        _warn(saved.warning)
    if args.json:
        print(json.dumps({"name": args.name, "token": token, "stored_in": saved.where}))
    else:
        print(token)
        print(f"Client {args.name!r} can now connect with this token (kept in {saved.where}). "
              f"`hindsight-desktop clients config CLIENT --name {args.name}` prints the set-up.", file=sys.stderr)
    return 0


def _list(args: argparse.Namespace) -> int:
    records = _registry().list()
    rows = [{"name": r.name, "active": r.active, "created_at": _iso(r.created_at),
             "revoked_at": _iso(r.revoked_at)} for r in records]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No clients yet. Add one with: hindsight-desktop clients add NAME")
    for row in rows:
        state = "active" if row["active"] else f"revoked {row['revoked_at'][:10]}"
        print(f"{row['name']}\t{state}\tadded {row['created_at'][:10]}")
    return 0


def _revoke(args: argparse.Namespace) -> int:
    record = _registry().revoke(args.name)
    if args.json:
        print(json.dumps({"name": record.name, "revoked_at": _iso(record.revoked_at)}))
    else:
        print(f"Revoked {record.name}: its token stops working now.")
    return 0


def _target(args: argparse.Namespace) -> tuple[Any, Any]:
    """The client kind and the target (URL, token, launch command) for config/install."""
    from hindsight_desktop.mcp import client_config
    from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH
    from hindsight_desktop.mcp.identity import http_client_name, stdio_client_name

    kind = client_config.kind(args.client)
    name = stdio_client_name(args.name or kind.key) if kind.stdio else http_client_name(args.name or kind.key)
    data_dir = Path(default_data_dir()).resolve()
    url = f"http://{LOOPBACK}:{_port(args.port)}{MCP_PATH}"
    token = None if kind.stdio else _token_for(name)
    return kind, client_config.Target(url=url, token=token, client=name, data_dir=data_dir,
                                      command=client_config.launch_command())


def _token_for(name: str) -> str:
    token, saved = _registry().ensure_token(name)
    if saved is not None:
        extra = f"; {saved.warning}" if saved.warning else ""
        _warn(f"created client {name!r} (token kept in {saved.where}){extra}")
    return token


def _config(args: argparse.Namespace) -> int:
    from hindsight_desktop.mcp.client_config import snippet

    kind, target = _target(args)
    payload, note = snippet(kind, target)
    print(note, file=sys.stderr)
    print(payload)
    return 0


def _install(args: argparse.Namespace) -> int:
    from hindsight_desktop.mcp.client_config import install

    kind, target = _target(args)
    written = install(kind, target)
    if args.json:
        print(json.dumps({"client": kind.key, "files": [str(p) for p in written]}))
        return 0
    if not written:
        print(f"Added Hindsight Desktop to {kind.label}.")
    for path in written:
        print(f"Updated {path} (the previous version, if any, is kept next to it as a .backup-… file).")
    if kind.key == "vscode":
        print(f"When VS Code asks for the Hindsight Desktop token, paste: {target.token}")
    print(f"Restart {kind.label} (or reload its MCP servers) to connect.")
    return 0


CLIENT_COMMANDS = {"add": _add, "list": _list, "revoke": _revoke, "config": _config, "install": _install}


def _iso(value: Any) -> str | None:
    from hindsight_desktop.core.records import iso

    return iso(value)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)
