"""The command line: parse arguments, call the engine, print. Nothing else lives here."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hindsight_desktop import (
    __version__,
    doctor_commands,
    maintenance_commands,
    model_commands,
    portable_commands,
)
from hindsight_desktop.config import DATA_DIR_ENV, default_data_dir, load_settings
from hindsight_desktop.core.errors import HindsightError, InvalidInput, NotFound
from hindsight_desktop.mcp import commands as mcp_commands

if TYPE_CHECKING:  # imported when a command runs, so --help stays quick
    from hindsight_desktop.core.engine import MemoryEngine

# The subcommand modules, in the order their commands are listed in --help; each has COMMANDS,
# add_parsers(sub) and run(args), and manages its own engine (or needs none).
COMMAND_MODULES = (mcp_commands, portable_commands, maintenance_commands, model_commands, doctor_commands)


def add_global_options(parser: argparse.ArgumentParser, *, top_level: bool) -> None:
    """The options every command takes, before or after its name: `--data-dir` and `--json`."""
    group = parser.add_argument_group("global options (before or after the command)")
    # argparse parses a subcommand into a fresh namespace and copies it over the top-level one, so on a
    # subcommand the default must be SUPPRESS: a default there would erase `--json` given before the
    # command. Given in both places, the one after the command (parsed later) wins.
    default: dict[str, Any] = {} if top_level else {"default": argparse.SUPPRESS}
    group.add_argument("--data-dir", type=Path, help=f"where the memory file lives (or set {DATA_DIR_ENV})",
                       **default)
    group.add_argument("--json", action="store_true", help="print machine-readable JSON", **default)


class CommandParser(argparse.ArgumentParser):
    """The parser of every subcommand: it takes the global options too. Nested subcommands (`model show`,
    `clients list`) get this class as well, since add_subparsers defaults to its own parser's class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        add_global_options(self, top_level=False)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hindsight-desktop",
                                     description="Private long-term memory for the assistants on this computer.")
    parser.add_argument("--version", action="version", version=f"hindsight-desktop {__version__}")
    add_global_options(parser, top_level=True)
    sub = parser.add_subparsers(dest="command", parser_class=CommandParser)

    add = sub.add_parser("add", help="remember something (always stored: you asked for it)")
    add.add_argument("content")
    add.add_argument("--type")
    add.add_argument("--importance", type=float)
    add.add_argument("--when", help="when it happened (ISO 8601); default now")
    add.add_argument("--private", action="store_true", help="visible only to this client")

    search = sub.add_parser("search", help="hybrid recall")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("--type")
    search.add_argument("--layer")
    search.add_argument("--days", type=float, help="only memories from the last N days")
    search.add_argument("--deep", action="store_true", help="include archived (cold) memories")
    search.add_argument("--explain", action="store_true", help="show every signal's score")
    search.add_argument("--mode", choices=("hybrid", "vector", "keyword"), default="hybrid")

    show = sub.add_parser("show", help="one memory with its links and history")
    show.add_argument("id")

    forget = sub.add_parser("forget", help="archive (or --purge) memories by id or condition")
    forget.add_argument("ids", nargs="*")
    forget.add_argument("--older-than-days", type=float)
    forget.add_argument("--type")
    forget.add_argument("--layer")
    forget.add_argument("--below-importance", type=float)
    forget.add_argument("--client", dest="written_by")
    forget.add_argument("--query")
    forget.add_argument("--purge", action="store_true", help="delete for good from every table and index")

    restore = sub.add_parser("restore", help="bring an archived memory back, or a whole forget (--batch)")
    restore.add_argument("id", nargs="?")
    restore.add_argument("--batch", metavar="BATCH_ID",
                         help="undo one forget: restore every memory it archived (the batch id is in the "
                              "forget's output and in `show`'s history), e.g. an assistant's bulk forget")

    link = sub.add_parser("link", help="connect two memories")
    link.add_argument("source")
    link.add_argument("target")
    link.add_argument("relation", nargs="?", default="related")

    sub.add_parser("stats", help="counts, hit rate, model")
    for module in COMMAND_MODULES:
        module.add_parsers(sub)
    sub.add_parser("app", help="start the desktop app: tray, timeline, MCP server (also: no command at all)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.data_dir is not None:
        os.environ[DATA_DIR_ENV] = str(args.data_dir)
    if args.command in (None, "app"):
        from hindsight_desktop.app.main import start_from_cli  # Qt loads only for the app

        return start_from_cli(parser)
    try:
        return _run(args)
    except HindsightError as exc:
        _fail(args, str(exc), exc.exit_code)
        return exc.exit_code


def _run(args: argparse.Namespace) -> int:
    for module in COMMAND_MODULES:
        if args.command in module.COMMANDS:
            return module.run(args)
    from hindsight_desktop.core.engine import MemoryEngine

    with MemoryEngine(default_data_dir(), settings=load_settings()) as engine:
        handler = COMMANDS[args.command]
        result = handler(engine, args)
    _print(args, result)
    return 0


def _add(engine: MemoryEngine, args: argparse.Namespace) -> dict:
    result = engine.write(args.content, type=args.type, importance=args.importance, occurred_at=args.when,
                          scope="private" if args.private else "shared", explicit=True)
    return result.to_dict()


def _search(engine: MemoryEngine, args: argparse.Namespace) -> dict:
    result = engine.search(args.query, limit=args.limit, type=args.type, layer=args.layer,
                           time_range_days=args.days, deep=args.deep, mode=args.mode)
    return result.to_dict(explain=args.explain)


def _show(engine: MemoryEngine, args: argparse.Namespace) -> dict:
    memory = engine.get(args.id)
    return {**memory.to_dict(), "links": [link.to_dict() for link in engine.links(args.id)],
            "history": [e.to_dict() for e in engine.events(args.id)]}


def _forget(engine: MemoryEngine, args: argparse.Namespace) -> dict:
    receipt = engine.forget(ids=args.ids or None, older_than_days=args.older_than_days, type=args.type,
                            layer=args.layer, below_importance=args.below_importance,
                            written_by=args.written_by, query=args.query, purge=args.purge)
    return receipt.to_dict()


def _restore(engine: MemoryEngine, args: argparse.Namespace) -> dict:
    if (args.id is None) == (args.batch is None):
        raise InvalidInput("restore needs a memory id or --batch BATCH_ID (one of them, not both)")
    if args.id is not None:
        return engine.restore(args.id).to_dict()
    restored = engine.undo_forget(args.batch)
    if not restored:
        raise NotFound(f"forget batch {args.batch!r} has no archived memories to restore (a wrong batch id, "
                       "or they were already restored or deleted)")
    return {"batch": args.batch.strip(), "restored": [m.id for m in restored], "count": len(restored)}


COMMANDS = {
    "add": _add,
    "search": _search,
    "show": _show,
    "forget": _forget,
    "restore": _restore,
    "link": lambda engine, args: engine.link(args.source, args.target, args.relation).to_dict(),
    "stats": lambda engine, args: engine.stats(),
}


def _print(args: argparse.Namespace, result: dict) -> None:
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    if args.command == "search":
        if not result["results"]:
            print("Nothing found.")
        for i, hit in enumerate(result["results"], 1):
            print(f"{i}. [{hit['relevance']:.3f}] {hit['content']}  ({hit['type']}, {hit['occurred_at'][:10]}, {hit['id']})")
            if "scores" in hit:
                print("   why: " + ", ".join(f"{k} {v:.3f}" for k, v in hit["scores"].items()))
        return
    if args.command == "add":
        state = "stored" if result["stored"] else "kept in working memory only"
        extra = f", duplicate of {result['duplicate_of']}" if result["duplicate_of"] else ""
        print(f"{result['id']}: {state} as {result['layer']} (score {result['score']:.2f}{extra})")
        return
    if args.command == "restore" and "batch" in result:
        n = result["count"]
        print(f"Restored {n} memor{'y' if n == 1 else 'ies'} archived by forget {result['batch']}: "
              f"{' '.join(result['restored'])}")
        return
    for key, value in result.items():
        print(f"{key}: {json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value}")


def _fail(args: argparse.Namespace, message: str, code: int) -> None:
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "code": code}), file=sys.stderr)
    else:
        print(f"error: {message}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
