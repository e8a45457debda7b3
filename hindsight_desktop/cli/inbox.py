"""`hindsight-desktop inbox …`: what assistants proposed that waits for the person (a standing
instruction, or anything from an assistant on review), and the person's decision on it. Approving
writes the memory as the assistant proposed it, dated when it was proposed; rejecting deletes it for good."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import emit, open_engine
from hindsight_desktop.core.errors import InvalidInput

EMPTY = (
    'Nothing waits for your review. When an assistant proposes a standing instruction ("always…", '
    '"never…"), or anything at all while it is on review (hindsight-desktop clients policy NAME review), '
    "it waits here and no assistant can recall it until you approve it."
)
BATCH = 100  # ids per engine call


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action", nargs="?", choices=("list", "approve", "reject"), default="list", help="what to do (default list)"
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="inbox ids (inb_…) to approve or reject")
    p.add_argument("--client", help="only this client's items (with --all: every item it proposed)")
    p.add_argument("--all", action="store_true", help="every waiting item (of --client, for approve)")
    p.add_argument(
        "--edit", metavar="TEXT", help="approve one item with this text instead (the edit stays in its history)"
    )


def _run(args: argparse.Namespace) -> None:
    if args.action == "list":
        if args.ids or args.all or args.edit:
            raise InvalidInput("inbox lists what waits; to decide, use: inbox approve ID… or inbox reject ID…")
        _list(args)
        return
    if bool(args.ids) == bool(args.all):
        raise InvalidInput(f"give the inbox ids to {args.action}, or --all (with --client NAME), not both")
    if args.all and args.action == "approve" and not args.client:
        raise InvalidInput("approving everything needs --client NAME: approve one assistant's proposals at a time")
    if args.edit is not None and (args.action != "approve" or len(args.ids) != 1):
        raise InvalidInput("--edit approves one item: inbox approve ID --edit TEXT")
    with open_engine(args) as engine:
        ids = args.ids or [item.id for item in engine.inbox(client=args.client)]
        if args.action == "approve":
            done = []
            for start in range(0, len(ids), BATCH):
                chunk = ids[start : start + BATCH]
                results = engine.approve(chunk, content=args.edit) if args.edit is not None else engine.approve(chunk)
                done += [
                    {"inbox_id": i, "memory_id": r.id, "layer": r.layer} for i, r in zip(chunk, results, strict=True)
                ]
            emit(args, {"approved": done}, human=_print_approved)
        else:
            gone = [i for start in range(0, len(ids), BATCH) for i in engine.reject(ids[start : start + BATCH])]
            emit(args, {"rejected": gone}, human=_print_rejected)


def _list(args: argparse.Namespace) -> None:
    with open_engine(args) as engine:
        now = engine.clock()
        rows = []
        for item in engine.inbox(client=args.client):
            row = item.to_dict()
            row["expires_soon"] = item.expires_soon(now)
            row["expires_in_days"] = max(0, math.ceil((item.expires_at - now).total_seconds() / 86400))
            rows.append(row)
    emit(args, rows, human=_print_list)


def _print_list(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print(EMPTY)
        return
    for row in rows:
        soon = "  EXPIRES SOON" if row["expires_soon"] else ""
        text = " ".join(row["content"].split())
        shown = text if len(text) <= 100 else text[:99] + "…"
        print(f"{row['id']}  {row['created_at'][:16].replace('T', ' ')}  {row['client']}  {row['type']}{soon}")
        print(f"    {shown}")
        print(f"    {row['reason']} Rejected in {row['expires_in_days']} days unless you decide.")
    print(
        f"{len(rows)} waiting. Approve: hindsight-desktop inbox approve ID…  Reject: hindsight-desktop inbox reject ID…"
    )


def _print_approved(result: dict[str, Any]) -> None:
    for row in result["approved"]:
        print(f"Approved {row['inbox_id']}: now memory {row['memory_id']} ({row['layer']}).")
    if not result["approved"]:
        print("Nothing to approve.")


def _print_rejected(result: dict[str, Any]) -> None:
    for item_id in result["rejected"]:
        print(f"Rejected {item_id}: deleted, with no copy left.")
    if not result["rejected"]:
        print("Nothing to reject.")
    sys.stdout.flush()


COMMANDS = (
    Command(
        "inbox",
        "what assistants proposed that waits for you: list it, approve or reject it",
        _run,
        _arguments,
    ),
)
