"""The portability commands of the CLI: `export` and `import`. Argument parsing and printing only;
the work is done by core/portable/transfer.py."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hindsight_desktop.config import default_data_dir, load_settings
from hindsight_desktop.core.portable.formats import EXPORT
from hindsight_desktop.core.records import LAYERS, STATUSES, MemoryFilter

if TYPE_CHECKING:  # imported when a command runs, so --help stays quick
    from hindsight_desktop.core.engine import MemoryEngine

COMMANDS = ("export", "import")


def add_parsers(sub: Any) -> None:
    """Add `export` and `import` to the CLI's subparsers."""
    export = sub.add_parser("export", help=f"write memories to a file (or stdout): {', '.join(EXPORT)}")
    export.add_argument("--format", choices=tuple(EXPORT), default="json")
    export.add_argument("--output", "-o", type=Path, help="file to write (default: standard output)")
    export.add_argument("--embeddings", action="store_true", help="include the vectors (json and jsonl)")
    export.add_argument("--layer", action="append", choices=LAYERS, help="only this layer (repeatable)")
    export.add_argument("--status", action="append", choices=STATUSES, help="only this status (repeatable)")
    export.add_argument("--client", action="append", help="only memories written by this client (repeatable)")

    imp = sub.add_parser("import", help="bring memories in from a file (a dry run changes nothing)")
    imp.add_argument("file", type=Path)
    imp.add_argument("--format", help="json, jsonl, mcp-memory, markdown, text or lines "
                                      "(ChatGPT/Claude memories); default: from the file")
    imp.add_argument("--dry-run", action="store_true", help="report what would happen, change nothing")


def run(args: argparse.Namespace) -> int:
    from hindsight_desktop.core.engine import MemoryEngine

    with MemoryEngine(default_data_dir(), settings=load_settings()) as engine:
        return HANDLERS[args.command](engine, args)


def _export(engine: MemoryEngine, args: argparse.Namespace) -> int:
    from hindsight_desktop.core.portable.transfer import export_memories

    filters = MemoryFilter(layers=tuple(args.layer or ()), statuses=tuple(args.status or ()),
                           written_by=tuple(args.client or ()))
    target = args.output if args.output is not None else sys.stdout
    summary = export_memories(engine, args.format, target, filters, embeddings=args.embeddings)
    # With no file the export itself is on stdout, so the summary goes to stderr.
    stream = sys.stdout if args.output is not None else sys.stderr
    if args.json:
        print(json.dumps(summary), file=stream)
    else:
        print(f"Exported {summary['memories']} memories, {summary['links']} links and {summary['events']} events"
              + (f" to {summary['path']}" if summary["path"] else "") + ".", file=stream)
    return 0


def _import(engine: MemoryEngine, args: argparse.Namespace) -> int:
    from hindsight_desktop.core.portable.transfer import import_memories

    report = import_memories(engine, args.file, args.format, dry_run=args.dry_run).to_dict()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    verb = "Would import" if report["dry_run"] else "Imported"
    print(f"{verb} {report['read']} items from {args.file} ({report['format']}): {report['created']} new, "
          f"{report['duplicates']} merged into existing memories, {report['skipped_existing']} already present, "
          f"{report['superseded']} older statements superseded, {report['redactions']} secrets redacted, "
          f"{report['links']} links, {report['events']} history events.")
    return 0


HANDLERS = {"export": _export, "import": _import}
