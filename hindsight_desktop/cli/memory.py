"""The memory commands: add, search, show, edit, forget, restore, link, stats. Each is its arguments,
its handler (one engine call) and its printer, side by side. `add` and `search` need the model, so they
go through the running server when there is one (output.person_call), as do `show` and `stats`, the
most used of the rest; none of the rest loads the model."""

from __future__ import annotations

import argparse
from typing import Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import emit, on_engine, open_engine, person_call, print_fields
from hindsight_desktop.cli.words import print_forget, superseded_mark
from hindsight_desktop.core.errors import InvalidInput, NotFound
from hindsight_desktop.core.records import LAYERS, edit_words


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("content", help="the text to remember")
    p.add_argument("--type", help="a label such as note or preference")
    p.add_argument("--importance", type=float, help="how much it matters, 0 to 1")
    p.add_argument("--when", help="when it happened (ISO 8601); default now")
    p.add_argument("--private", action="store_true", help="visible only to this client")


def _add(args: argparse.Namespace) -> None:
    params = {
        "content": args.content,
        "type": args.type,
        "importance": args.importance,
        "when": args.when,
        "private": args.private,
    }
    person_call(args, "add", params, human=_print_add)


def _print_add(result: dict[str, Any]) -> None:
    state = "stored" if result["stored"] else "kept in working memory only"
    extra = f", duplicate of {result['duplicate_of']}" if result["duplicate_of"] else ""
    print(f"{result['id']}: {state} as {result['layer']} (score {result['score']:.2f}{extra})")


def _search_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", help="what to look for, in your own words")
    p.add_argument("--limit", type=int, default=5, help="the most results to return (default 5)")
    p.add_argument("--type", help="only memories of this type")
    p.add_argument("--layer", help=f"only memories in this layer ({', '.join(LAYERS)})")
    p.add_argument("--days", type=float, help="only memories from the last N days")
    p.add_argument("--deep", action="store_true", help="include archived (cold) memories")
    p.add_argument("--explain", action="store_true", help="show every signal's score")
    p.add_argument(
        "--mode",
        choices=("hybrid", "vector", "keyword"),
        default="hybrid",
        help="which signals rank the results (default hybrid)",
    )


def _search(args: argparse.Namespace) -> None:
    params = {
        "query": args.query,
        "limit": args.limit,
        "type": args.type,
        "layer": args.layer,
        "days": args.days,
        "deep": args.deep,
        "mode": args.mode,
        "explain": args.explain,
    }
    person_call(args, "search", params, human=_print_search)


def _print_search(result: dict[str, Any]) -> None:
    if not result["results"]:
        print("Nothing found.")
    for i, hit in enumerate(result["results"], 1):
        print(
            f"{i}. [{hit['relevance']:.3f}] {hit['content']}  ({hit['type']}, {hit['occurred_at'][:10]}, {hit['id']})"
            + superseded_mark(hit)
        )
        if "scores" in hit:
            print("   why: " + ", ".join(f"{k} {v:.3f}" for k, v in hit["scores"].items()))


def _id_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the memory's id (mem_…)")


def _show(args: argparse.Namespace) -> None:
    person_call(args, "show", {"id": args.id}, human=_print_show)


def _print_show(result: dict[str, Any]) -> None:
    print_fields({k: v for k, v in result.items() if k != "history"})
    print("history:")
    for event in result.get("history", []):
        what = event["kind"]
        if what == "edit":
            what = f"edited: {edit_words(event.get('detail') or {})}"
        print(f"  {event['at']}  {what}  (by {event['client']})")


def _edit_arguments(p: argparse.ArgumentParser) -> None:
    _id_argument(p)
    p.add_argument("--content", help="the new text (redacted, re-embedded and re-indexed like a new one)")
    p.add_argument("--importance", type=float, help="the new importance, 0 to 1")
    p.add_argument("--type", help="the new type label")
    p.add_argument("--summary", help="the new summary")
    p.add_argument(
        "--scope",
        choices=("shared", "private"),
        help="who sees it: shared (every assistant) or private (only the assistant that wrote it, and you)",
    )
    p.add_argument("--when", help="when it happened (ISO 8601, e.g. 2026-08-03T14:00+02:00); stored as UTC")
    pin = p.add_mutually_exclusive_group()
    pin.add_argument(
        "--pin",
        dest="pinned",
        action="store_const",
        const=True,
        help="pin it: maintenance never fades it away and a forget by condition skips it",
    )
    pin.add_argument("--unpin", dest="pinned", action="store_const", const=False, help="unpin it")


def _edit(args: argparse.Namespace) -> None:
    on_engine(
        args,
        lambda engine: engine.edit(
            args.id,
            content=args.content,
            type=args.type,
            importance=args.importance,
            pinned=args.pinned,
            summary=args.summary,
            scope=args.scope,
            occurred_at=args.when,
        ).to_dict(),
    )


def _forget_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", help="the memories to forget (or use the conditions below)")
    p.add_argument("--older-than-days", type=float, help="only memories older than N days")
    p.add_argument("--type", help="only memories of this type")
    p.add_argument("--layer", help=f"only memories in this layer ({', '.join(LAYERS)})")
    p.add_argument("--below-importance", type=float, help="only memories less important than this")
    p.add_argument("--client", dest="written_by", help="only memories written by this client")
    p.add_argument("--query", help="only memories containing every one of these words, or saying the same thing")
    p.add_argument("--purge", action="store_true", help="delete for good from every table and index")


def _forget(args: argparse.Namespace) -> None:
    on_engine(
        args,
        lambda engine: engine.forget(
            ids=args.ids or None,
            older_than_days=args.older_than_days,
            type=args.type,
            layer=args.layer,
            below_importance=args.below_importance,
            written_by=args.written_by,
            query=args.query,
            purge=args.purge,
        ).to_dict(),
        human=print_forget,
    )


def _restore_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", nargs="?", help="the archived memory to bring back")
    p.add_argument(
        "--batch",
        metavar="BATCH_ID",
        help="undo one forget: restore every memory it archived (the batch id is in the "
        "forget's output and in `show`'s history), e.g. an assistant's bulk forget",
    )


def _restore(args: argparse.Namespace) -> None:
    if (args.id is None) == (args.batch is None):
        raise InvalidInput("restore needs a memory id or --batch BATCH_ID (one of them, not both)")
    with open_engine(args) as engine:
        if args.id is not None:
            emit(args, engine.restore(args.id).to_dict())
            return
        restored = engine.undo_forget(args.batch)
    if not restored:
        raise NotFound(
            f"forget batch {args.batch!r} has no archived memories to restore (a wrong batch id, "
            "or they were already restored or deleted)"
        )
    emit(
        args,
        {"batch": args.batch.strip(), "restored": [m.id for m in restored], "count": len(restored)},
        human=_print_batch,
    )


def _print_batch(result: dict[str, Any]) -> None:
    n = result["count"]
    print(
        f"Restored {n} memor{'y' if n == 1 else 'ies'} archived by forget {result['batch']}: "
        f"{' '.join(result['restored'])}"
    )


def _link_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="the id the link starts from")
    p.add_argument("target", help="the id it points to")
    p.add_argument("relation", nargs="?", default="related", help="the kind of link (default related)")


def _link(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.link(args.source, args.target, args.relation).to_dict())


def _stats(args: argparse.Namespace) -> None:
    person_call(args, "stats", {})


COMMANDS = (
    Command("add", "remember something (always stored: you asked for it)", _add, _add_arguments),
    Command("search", "hybrid recall", _search, _search_arguments),
    Command("show", "one memory with its links and history", _show, _id_argument),
    Command(
        "edit",
        "change a memory's text, importance, type, pin, who sees it or when it happened (kept in its history)",
        _edit,
        _edit_arguments,
    ),
    Command("forget", "archive (or --purge) memories by id or condition", _forget, _forget_arguments),
    Command("restore", "bring an archived memory back, or a whole forget (--batch)", _restore, _restore_arguments),
    Command("link", "connect two memories", _link, _link_arguments),
    Command("stats", "counts, hit rate, used share, model", _stats),
)
