"""The portability commands: `export` and `import`. The work is done by core/portable through the engine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import emit, open_engine
from hindsight_desktop.core.records import EXPORT_FORMATS, LAYERS, STATUSES, MemoryFilter


def _export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=tuple(EXPORT_FORMATS), default="json", help="the file format (default json)")
    p.add_argument("--output", "-o", type=Path, help="file to write (default: standard output)")
    p.add_argument("--embeddings", action="store_true", help="include the vectors (json and jsonl)")
    p.add_argument("--layer", action="append", choices=LAYERS, help="only this layer (repeatable)")
    p.add_argument("--status", action="append", choices=STATUSES, help="only this status (repeatable)")
    p.add_argument("--client", action="append", help="only memories written by this client (repeatable)")
    p.add_argument(
        "--encrypt",
        action="store_true",
        help="encrypt the file so that only this memory's recovery key opens it (`import --key`); needs --output",
    )


def _export(args: argparse.Namespace) -> None:
    filters = MemoryFilter(
        layers=tuple(args.layer or ()), statuses=tuple(args.status or ()), written_by=tuple(args.client or ())
    )
    target = args.output if args.output is not None else sys.stdout
    with open_engine(args) as engine:
        summary = engine.export(args.format, target, filters, embeddings=args.embeddings, encrypt=args.encrypt)
    # With no file the export itself is on stdout, so the summary goes to stderr.
    stream = sys.stdout if args.output is not None else sys.stderr
    emit(
        args,
        summary,
        human=lambda s: print(
            f"Exported {s['memories']} memories, {s['links']} links and {s['events']} events"
            + (f" to {s['path']}" if s["path"] else "")
            + ".",
            file=stream,
        ),
        stream=stream,
    )


def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="the file to read")
    p.add_argument(
        "--format",
        help="json, jsonl, mcp-memory, markdown, text or lines (ChatGPT/Claude memories); default: from the file",
    )
    p.add_argument("--dry-run", action="store_true", help="report what would happen, change nothing")
    p.add_argument(
        "--keep-writers",
        action="store_true",
        help="the file is your own export from another computer: keep who wrote each memory and "
        "its pins (a bundle sealed by this data folder keeps them anyway)",
    )
    p.add_argument(
        "--key",
        metavar="RECOVERY_KEY",
        help="the recovery key that opens an encrypted export (default: this memory's own key)",
    )


def _import(args: argparse.Namespace) -> None:
    key = None
    if args.key is not None:
        from hindsight_desktop.core.keys.manage import recovery_bytes

        key = recovery_bytes(args.key)  # a mistyped key is refused before the memory opens
    with open_engine(args) as engine:
        report = engine.import_file(
            args.file, args.format, dry_run=args.dry_run, keep_writers=args.keep_writers, key=key
        ).to_dict()
    emit(args, report, human=lambda r: _print_import(r, args.file))


def _print_import(report: dict[str, Any], file: Path) -> None:
    verb = "Would import" if report["dry_run"] else "Imported"
    print(
        f"{verb} {report['read']} items from {file} ({report['format']}): {report['created']} new, "
        f"{report['duplicates']} merged into existing memories, {report['skipped_existing']} already present, "
        f"{report['superseded']} older statements superseded, {report['redactions']} secrets redacted, "
        f"{report['links']} links, {report['events']} history events."
    )


COMMANDS = (
    Command("export", f"write memories to a file (or stdout): {', '.join(EXPORT_FORMATS)}", _export, _export_arguments),
    Command("import", "bring memories in from a file (a dry run changes nothing)", _import, _import_arguments),
)
