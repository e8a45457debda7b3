"""The maintenance command of the CLI: `maintenance` runs it now (`reflect`, its first name, still works).
Argument parsing and printing only; the work is done by core/maintenance through the engine."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from hindsight_desktop.config import default_data_dir, load_settings

if TYPE_CHECKING:  # imported when a command runs, so --help stays quick
    from hindsight_desktop.core.engine import MemoryEngine

COMMANDS = ("maintenance", "reflect")


def add_parsers(sub: Any) -> None:
    """Add `maintenance` (alias `reflect`) to the CLI's subparsers."""
    sub.add_parser("maintenance", aliases=["reflect"], help="run maintenance now and print its report")


def run(args: argparse.Namespace) -> int:
    from hindsight_desktop.core.engine import MemoryEngine

    with MemoryEngine(default_data_dir(), settings=load_settings()) as engine:
        return _maintenance(engine, args)


def _maintenance(engine: MemoryEngine, args: argparse.Namespace) -> int:
    from hindsight_desktop.core.recall.render import maintenance_text

    report = engine.run_maintenance()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    print(maintenance_text(report))
    for merge in report.get("merges", []):
        print(f"  merged {merge['absorbed']} into {merge['survivor']} (similarity {merge['similarity']:.3f})")
    for change in report.get("supersessions", []):
        print(f"  {change['superseded']} superseded by the newer {change['winner']} ({change['fact']})")
    for made in report.get("consolidations", []):  # the report holds ids only: the text is read from the row
        print(f"  {made['semantic']}: \u201c{engine.get(made['semantic']).content}\u201d "
              f"from {len(made['evidence'])} statements")
    return 0
