"""How long listing the writers (the Clients tab's `ClientBook.writers`) takes on a large store.

    python bench/writers_listing.py [--events 200000] [--searches 100000] [--memories 20000] [--runs 7]

Rows go straight into a fresh store at the current schema (no model, no text processing): events and
searches spread over 8 client names, memories over 4. Prints the median of the runs for `last_activity`
and for BASELINE (one GROUP BY over all three tables, the plain way to write it), run in turn so that
a busy machine slows both alike, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from hindsight_desktop.core.store.clients import ClientTable
from hindsight_desktop.core.store.database import Store

BASELINE = """
    SELECT client, MAX(at) FROM (
        SELECT client, at FROM events
        UNION ALL SELECT client, created_at FROM memories
        UNION ALL SELECT client, at FROM searches
    ) GROUP BY client
"""
CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "zed", "windsurf", "lmstudio", "desktop"]


def stamp(i: int) -> str:
    return f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00.{i % 1000:03d}000Z"


def fill(store: Store, events: int, searches: int, memories: int) -> None:
    with store.write() as db:
        db.executemany(
            "INSERT INTO events (at, kind, memory_id, client) VALUES (?, 'write', NULL, ?)",
            ((stamp(i), CLIENTS[i % len(CLIENTS)]) for i in range(events)),
        )
        db.executemany(
            "INSERT INTO searches (at, client, hits) VALUES (?, ?, 1)",
            ((stamp(i), CLIENTS[i % len(CLIENTS)]) for i in range(searches)),
        )
        db.executemany(
            "INSERT INTO memories (id, content, layer, type, importance, client, scope, created_at, occurred_at,"
            " updated_at, content_hash) VALUES (?, 'x', 'episodic', 'fact', 0.5, ?, 'shared', ?, ?, ?, ?)",
            ((f"mem_{i}", CLIENTS[i % 4], stamp(i), stamp(i), stamp(i), f"h{i}") for i in range(memories)),
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--searches", type=int, default=100_000)
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ.setdefault("HINDSIGHT_TOKEN_STORE", "file")
        store = Store(Path(folder) / "memory.db")
        fill(store, args.events, args.searches, args.memories)
        table = ClientTable(store)
        found = table.last_activity()
        times: list[float] = []
        baseline: list[float] = []
        for _ in range(args.runs):
            started = time.perf_counter()
            assert table.last_activity() == found
            times.append(time.perf_counter() - started)
            started = time.perf_counter()
            with store.read() as db:
                assert len(db.execute(BASELINE).fetchall()) == len(found)
            baseline.append(time.perf_counter() - started)
        ours, plain = statistics.median(times), statistics.median(baseline)
        print(f"{len(found)} writers; {args.events} events, {args.searches} searches, {args.memories} memories")
        print(f"last_activity: median {ours * 1000:.1f} ms; baseline {plain * 1000:.1f} ms ({plain / ours:.1f}x)")
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
