"""The life-cycle commands of the CLI: `export`, `import`, `reflect` and `model show|use|reembed`.

Argument parsing and printing only; the work is done by the engine and core/portable.py.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from hindsight_desktop.config import default_data_dir, load_settings
from hindsight_desktop.core.models import LAYERS, STATUSES, MemoryFilter

COMMANDS = ("export", "import", "reflect", "model")


def add_parsers(sub: Any) -> None:
    """Add the life-cycle subcommands to the CLI's subparsers."""
    export = sub.add_parser("export", help="write memories to a file (or stdout): json, jsonl, md or csv")
    export.add_argument("--format", choices=("json", "jsonl", "md", "csv"), default="json")
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

    reflect = sub.add_parser("reflect", help="run maintenance now and print its report")
    # SUPPRESS keeps `hindsight-desktop --json reflect` working: a default here would overwrite it.
    reflect.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print the report as JSON")

    model = sub.add_parser("model", help="the embedding model: show it, switch it, finish a switch")
    msub = model.add_subparsers(dest="model_command", metavar="{show,use,reembed}")
    msub.required = True
    msub.add_parser("show", help="the model in use and any switch in progress")
    use = msub.add_parser("use", help="switch to another GGUF embedding model and re-embed every memory")
    use.add_argument("path", type=Path)
    use.add_argument("--later", action="store_true", help="only start the switch; re-embed with `model reembed`")
    msub.add_parser("reembed", help="continue (or finish) a model switch; Ctrl-C stops at the next batch")


def run(args: argparse.Namespace) -> int:
    from hindsight_desktop.core.engine import MemoryEngine

    with MemoryEngine(default_data_dir(), settings=load_settings()) as engine:
        return HANDLERS[args.command](engine, args)


def _export(engine: Any, args: argparse.Namespace) -> int:
    from hindsight_desktop.core.portable import export_memories

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


def _import(engine: Any, args: argparse.Namespace) -> int:
    from hindsight_desktop.core.portable import import_memories

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


def _reflect(engine: Any, args: argparse.Namespace) -> int:
    from hindsight_desktop.core.render import reflect_text

    report = engine.reflect()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    print(reflect_text(report))
    for merge in report.get("merges", []):
        print(f"  merged {merge['absorbed']} into {merge['survivor']} (similarity {merge['similarity']:.3f})")
    for change in report.get("supersessions", []):
        print(f"  {change['superseded']} superseded by the newer {change['winner']} ({change['fact']})")
    for made in report.get("consolidations", []):  # the report holds ids only: the text is read from the row
        print(f"  {made['semantic']}: \u201c{engine.get(made['semantic']).content}\u201d "
              f"from {len(made['evidence'])} statements")
    return 0


def _model(engine: Any, args: argparse.Namespace) -> int:
    if args.model_command == "show":
        result = engine.model_status()
    elif args.model_command == "use":
        result = engine.use_model(args.path)
        if not args.later and result["switching"]:
            result = _reembed(engine, args)
    else:
        result = _reembed(engine, args)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        _print_model(result)
    return 0


def _reembed(engine: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Re-embed in the foreground; the first Ctrl-C asks for a stop at the next batch boundary."""
    stop = {"asked": False}

    def ask_stop(signum: int, frame: FrameType | None) -> None:
        stop["asked"] = True
        print("\nstopping after this batch; `hindsight-desktop model reembed` continues", file=sys.stderr)

    def show(done: int, total: int) -> None:
        if not args.json:
            print(f"\rre-embedding {done}/{total}", end="", file=sys.stderr, flush=True)

    previous = signal.signal(signal.SIGINT, ask_stop)
    try:
        result = engine.reembed(progress=show, should_stop=lambda: stop["asked"])
    finally:
        signal.signal(signal.SIGINT, previous)
        if not args.json:
            print(file=sys.stderr)
    return result


def _print_model(result: dict[str, Any]) -> None:
    active = result.get("active") or {}
    print(f"model in use: {active.get('model_id')} ({active.get('dim')} dimensions) {active.get('path') or ''}")
    languages = result.get("languages")
    if languages:
        found = ", ".join(f"{script} {share:.0%}" for script, share in languages["paraphrases_found"].items())
        covered = "covers Chinese and English" if languages["covers_chinese"] else "English only (weak in Chinese)"
        print(f"languages: {covered}; probe paraphrases found: {found}")
    target = result.get("target")
    if target:
        print(f"switching to: {target['model_id']} ({target['dim']} dimensions) {target.get('path') or ''}")
        print(f"re-embedded: {result['done']} of {result['total']} memories")
    if "reembedded" in result:
        print(f"this run: {result['reembedded']} memories in {result['seconds']} s ({result['status']})")


HANDLERS = {"export": _export, "import": _import, "reflect": _reflect, "model": _model}
