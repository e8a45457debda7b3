"""The command line's registry of groups, the parser built from it, and the entry point that runs one handler.

Every group module imports only what its parsers need at module level (no engine, no model, no MCP SDK),
so `hindsight-desktop --help` stays quick; a handler imports its heavy parts when it runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from hindsight_desktop import __version__, logs
from hindsight_desktop.cli import clients, doctor, inbox, key, maintenance, memory, model, portable, serve, sync
from hindsight_desktop.cli.command import Command, add_commands
from hindsight_desktop.cli.output import fail
from hindsight_desktop.config import DATA_DIR_ENV
from hindsight_desktop.core.errors import HindsightError

# The command groups, in the order --help lists them.
GROUPS = (memory, inbox, serve, clients, portable, maintenance, model, key, sync, doctor)
SUBCOMMANDS: tuple[Command, ...] = tuple(command for group in GROUPS for command in group.COMMANDS)


def add_global_options(parser: argparse.ArgumentParser, *, top_level: bool) -> None:
    """The options every command takes, before or after its name: `--data-dir` and `--json`."""
    group = parser.add_argument_group("global options (before or after the command)")
    # argparse parses a subcommand into a fresh namespace and copies it over the top-level one, so on a
    # subcommand the default must be SUPPRESS: a default there would erase `--json` given before the
    # command. Given in both places, the one after the command (parsed later) wins.
    default: dict[str, Any] = {} if top_level else {"default": argparse.SUPPRESS}
    group.add_argument("--data-dir", type=Path, help=f"where the memory file lives (or set {DATA_DIR_ENV})", **default)
    group.add_argument("--json", action="store_true", help="print machine-readable JSON", **default)
    group.add_argument("--verbose", action="store_true", help="write more detail to the log file", **default)


class CommandParser(argparse.ArgumentParser):
    """The parser of every subcommand: it takes the global options too. Nested subcommands (`model show`,
    `clients list`) get this class as well, since add_subparsers defaults to its own parser's class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        add_global_options(self, top_level=False)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hindsight-desktop", description="Private long-term memory for the assistants on this computer."
    )
    parser.add_argument("--version", action="version", version=f"hindsight-desktop {__version__}")
    add_global_options(parser, top_level=True)
    parser.set_defaults(run=serve.app)  # no command at all starts the app
    add_commands(parser.add_subparsers(dest="command", parser_class=CommandParser), SUBCOMMANDS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.data_dir is not None:  # through the environment, so processes started from here use it too
        os.environ[DATA_DIR_ENV] = str(args.data_dir)
    log = start_log(args)
    try:
        return args.run(args) or 0
    except HindsightError as exc:
        log.info("%s failed: %s", args.command or "app", logs.describe_error(exc))
        fail(args, str(exc), exc.exit_code)
        return exc.exit_code
    except Exception:
        log.exception("%s stopped on an unexpected error", args.command or "app")
        raise


def start_log(args: argparse.Namespace) -> logging.Logger:
    """The log file for this process: the app, `serve` and `mcp` each have theirs; other commands share one."""
    command = args.command or "app"
    process = command if command in ("app", "serve", "mcp") else "cli"
    if getattr(args, "shared_server", False):  # the background server, apart from the bridges that start it
        process = "mcp-server"
    logs.setup(process, verbose=getattr(args, "verbose", False))
    log = logging.getLogger("hindsight_desktop.cli")
    log.info("%s started (version %s, pid %d)", command, __version__, os.getpid())
    return log


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
