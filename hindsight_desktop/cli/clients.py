"""`hindsight-desktop clients …`: the assistants allowed to connect over HTTP (tokens), and their set-up
snippets and installs. Nothing here imports the MCP SDK."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import data_dir, emit, warn
from hindsight_desktop.cli.serve import checked_port, port_option
from hindsight_desktop.config import default_config_dir
from hindsight_desktop.mcp.client_config import KINDS  # a plain module: no SDK import


def _registry(args: argparse.Namespace) -> Any:
    from hindsight_desktop.mcp.auth import ClientRegistry

    return ClientRegistry.open(data_dir(args))


def _iso(value: Any) -> str | None:
    from hindsight_desktop.core.records import iso

    return iso(value)


def _name_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the client's name, e.g. cursor")


def _add_arguments(p: argparse.ArgumentParser) -> None:
    _name_argument(p)
    p.add_argument("--rotate", action="store_true", help="replace the token of an existing client")


def _add(args: argparse.Namespace) -> None:
    from hindsight_desktop.mcp.identity import http_client_name

    http_client_name(args.name)  # before the registry opens: a reserved name is refused with its reason
    token, saved = _registry(args).add(args.name, rotate=args.rotate)
    if saved.warning:
        warn(saved.warning)
    emit(args, {"name": args.name, "token": token, "stored_in": saved.where}, human=_print_added)


def _print_added(added: dict[str, Any]) -> None:
    print(added["token"])
    print(
        f"Client {added['name']!r} can now connect with this token (kept in {added['stored_in']}). "
        f"To set it up, run: {_config_command(added['name'])}",
        file=sys.stderr,
    )


def _config_command(name: str) -> str:
    """The command that prints the set-up for this client name: the kind is the name when it is one."""
    if name in KINDS:
        return f"hindsight-desktop clients config {name}"
    kinds = ", ".join(sorted(KINDS))
    return f"hindsight-desktop clients config CLIENT --name {shlex.quote(name)} (CLIENT: one of {kinds})"


def _list(args: argparse.Namespace) -> None:
    rows = [
        {"name": r.name, "active": r.active, "created_at": _iso(r.created_at), "revoked_at": _iso(r.revoked_at)}
        for r in _registry(args).list()
    ]
    emit(args, rows, human=_print_list)


def _print_list(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("No clients yet. Add one with: hindsight-desktop clients add NAME")
    for row in rows:
        state = "active" if row["active"] else f"revoked {row['revoked_at'][:10]}"
        print(f"{row['name']}\t{state}\tadded {row['created_at'][:10]}")


def _revoke(args: argparse.Namespace) -> None:
    record = _registry(args).revoke(args.name)
    emit(
        args,
        {"name": record.name, "revoked_at": _iso(record.revoked_at)},
        human=lambda r: print(f"Revoked {r['name']}: its token stops working now."),
    )


def _policy_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="the client name it writes as (HTTP or stdio --client)")
    p.add_argument(
        "policy",
        nargs="?",
        choices=("auto", "review", "read-only"),
        help="auto: the gate keeps what is worth keeping; review: what it proposes waits in your inbox; "
        "read-only: it may search but not write (omit to show the current policy)",
    )


def _policy(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.clients import ClientBook

    book = ClientBook.open(data_dir(args))
    try:
        if args.name is None:
            emit(args, book.policies(), human=_print_policies)
            return
        policy = book.set_policy(args.name, args.policy) if args.policy else book.policy(args.name)
    finally:
        book.close()
    emit(args, {"name": args.name, "policy": policy}, human=lambda r: print(f"{r['name']}: {r['policy']}"))


def _print_policies(policies: dict[str, str]) -> None:
    if not policies:
        print("Every client is auto. Put one on review with: hindsight-desktop clients policy NAME review")
    for name, policy in policies.items():
        print(f"{name}\t{policy}")


def _target_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("client", choices=sorted(KINDS), help="which assistant")
    p.add_argument("--name", help="the client name the token belongs to (default: the client)")
    port_option(p)


def _target(args: argparse.Namespace) -> tuple[Any, Any]:
    """The client kind and the target (URL, token, launch command) for config/install."""
    from hindsight_desktop.mcp import client_config
    from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH
    from hindsight_desktop.mcp.identity import http_client_name, stdio_client_name

    kind = client_config.kind(args.client)
    name = stdio_client_name(args.name or kind.key) if kind.stdio else http_client_name(args.name or kind.key)
    url = f"http://{LOOPBACK}:{checked_port(args.port)}{MCP_PATH}"
    token = None if kind.stdio else _token_for(args, name)
    return kind, client_config.Target(
        url=url,
        token=token,
        client=name,
        data_dir=Path(data_dir(args)).resolve(),
        command=client_config.launch_command(),
        config_dir=default_config_dir().resolve(),
    )


def _token_for(args: argparse.Namespace, name: str) -> str:
    token, saved = _registry(args).ensure_token(name)
    if saved is not None:
        extra = f"; {saved.warning}" if saved.warning else ""
        warn(f"created client {name!r} (token kept in {saved.where}){extra}")
    return token


def _config(args: argparse.Namespace) -> None:
    from hindsight_desktop.mcp.client_config import snippet

    kind, target = _target(args)
    payload, note = snippet(kind, target)
    emit(args, {"client": kind.key, "snippet": payload, "note": note}, human=_print_config)


def _print_config(shown: dict[str, Any]) -> None:
    print(shown["note"], file=sys.stderr)  # stdout holds exactly what to paste
    print(shown["snippet"])


def _install(args: argparse.Namespace) -> None:
    from hindsight_desktop.mcp.client_config import install

    kind, target = _target(args)
    written = install(kind, target)

    def human(_: Any) -> None:
        if not written:
            print(f"Added Hindsight Desktop to {kind.label}.")
        for path in written:
            print(f"Updated {path} (the previous version, if any, is kept next to it as a .backup-… file).")
            if path.note:
                print(f"Note: {path.note}.")
        if kind.key == "vscode":
            print(f"When VS Code asks for the Hindsight Desktop token, paste: {target.token}")
        print(f"Restart {kind.label} (or reload its MCP servers) to connect.")

    emit(
        args,
        {"client": kind.key, "files": [str(p) for p in written], "notes": [p.note for p in written if p.note]},
        human=human,
    )


COMMANDS = (
    Command(
        "clients",
        "the assistants allowed to connect over HTTP, and their set-up",
        subcommands=(
            Command("add", "create a client and print its token", _add, _add_arguments),
            Command("list", "registered clients", _list),
            Command("revoke", "stop a client's token from working, at once", _revoke, _name_argument),
            Command("policy", "how a client's writes are taken: auto, review or read-only", _policy, _policy_arguments),
            Command("config", "print the set-up snippet for a client", _config, _target_arguments),
            Command(
                "install", "merge the set-up into the client's config file (with a backup)", _install, _target_arguments
            ),
        ),
    ),
)
