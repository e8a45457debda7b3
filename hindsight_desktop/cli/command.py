"""What a command is, and how the registry of command groups becomes one argparse tree.

A group module lists its commands as `COMMANDS`; each `Command` names its arguments, its handler and
(in the handler's `emit` call) its printer. A command with `subcommands` (`model`, `clients`) is only a
name over them. Every leaf parser gets its handler as the `run` default, so `main` dispatches one way.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

Handler = Callable[[argparse.Namespace], "int | None"]


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """For a command that takes only the global options."""


@dataclass(frozen=True)
class Command:
    """One command: its name and help, the arguments it adds to its parser, and its handler, which
    returns None (exit 0) or, for a verdict that is not an error (doctor's failed checks), its exit code."""

    name: str
    help: str
    run: Handler | None = None
    arguments: Callable[[argparse.ArgumentParser], None] = no_arguments
    aliases: tuple[str, ...] = ()
    subcommands: tuple[Command, ...] = ()


def add_commands(sub: Any, commands: Iterable[Command]) -> None:
    """Add each command (and its subcommands, recursively) to an argparse subparsers action."""
    for command in commands:
        parser = sub.add_parser(
            command.name, aliases=list(command.aliases), help=command.help, description=command.help
        )
        command.arguments(parser)
        if command.subcommands:
            names = ",".join(c.name for c in command.subcommands)
            nested = parser.add_subparsers(dest=f"{command.name}_command", metavar=f"{{{names}}}")
            nested.required = True
            add_commands(nested, command.subcommands)
        else:
            parser.set_defaults(run=command.run)
