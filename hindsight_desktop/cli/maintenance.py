"""`maintenance` runs it now (`reflect`, its first name, still works). The work is done by core/maintenance
through the engine."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import emit, open_engine

if TYPE_CHECKING:  # imported when a command runs, so --help stays quick
    from hindsight_desktop.core.engine import MemoryEngine


def _maintenance(args: argparse.Namespace) -> None:
    with open_engine(args) as engine:
        # Printed while the engine is open: the report holds ids only, the printer reads the texts.
        emit(args, engine.run_maintenance(), human=lambda report: _print_report(report, engine))


def _print_report(report: dict[str, Any], engine: MemoryEngine) -> None:
    from hindsight_desktop.core.render import maintenance_text

    print(maintenance_text(report))
    for merge in report.get("merges", []):
        print(f"  merged {merge['absorbed']} into {merge['survivor']} (similarity {merge['similarity']:.3f})")
    for change in report.get("supersessions", []):
        print(f"  {change['superseded']} superseded by the newer {change['winner']} ({change['fact']})")
    for made in report.get("consolidations", []):
        print(
            f"  {made['semantic']}: \u201c{engine.get(made['semantic']).content}\u201d "
            f"from {len(made['evidence'])} statements"
        )


COMMANDS = (Command("maintenance", "run maintenance now and print its report", _maintenance, aliases=("reflect",)),)
