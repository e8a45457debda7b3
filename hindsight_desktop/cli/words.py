"""Plain words for results the command line would otherwise print as raw fields: what a forget did and
how to undo it, which search hits were replaced by newer memories, and the two scales `why` shows."""

from __future__ import annotations

from typing import Any

PROG = "hindsight-desktop"
# `why` shows two numbers for the same signal, on different scales: the raw cosine between the query's and
# the memory's vectors, and the vector signal as the ranking scores it (calibrated to 0-1).
SIMILARITY_WORDS = "raw cosine of the query's and the memory's vectors"
SCORES_WORDS = "ranking scores, each calibrated to 0-1 (vector is the similarity on this scale)"


def _ids(ids: list[str], most: int = 5) -> str:
    shown = ", ".join(ids[:most])
    return shown + (f" and {len(ids) - most} more" if len(ids) > most else "")


def _memories(n: int) -> str:
    return f"{n} memory" if n == 1 else f"{n} memories"


def print_forget(receipt: dict[str, Any]) -> None:
    """What a forget did, in sentences, with the command that undoes it."""
    forgotten: list[str] = receipt["forgotten"]
    if not forgotten:
        print("Nothing matched, so nothing was forgotten.")
        return
    if receipt["mode"] == "purge":
        print(f"Deleted {_memories(len(forgotten))} for good ({_ids(forgotten)}). This cannot be undone.")
        if receipt.get("wal_cleared") is False:
            print(
                "Another program was reading the memory, so old copies of the pages may stay in the "
                "write-ahead log until its next checkpoint; run the purge again later to be sure."
            )
    else:
        print(f"Archived {_memories(len(forgotten))} ({_ids(forgotten)}): hidden from search, kept for undo.")
    if receipt.get("left"):
        print(f"{_memories(receipt['left'])} more matched but were left alone (one forget has a limit); run it again.")
    if receipt["mode"] != "purge":
        if receipt.get("batch"):
            print(f"Undo: {PROG} restore --batch {receipt['batch']}")
        print(f"Restore one: {PROG} restore {forgotten[0]}")


def superseded_mark(hit: dict[str, Any]) -> str:
    """' [superseded: a newer memory replaced it]' for a hit that is no longer current, else ''."""
    return " [superseded: a newer memory replaced it]" if hit.get("status") == "superseded" else ""
