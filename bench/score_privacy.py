"""What scoring keywords over the viewer's own statistics costs (issue 17 §3), without the model.

    python bench/score_privacy.py [--sizes 10000,30000,100000] [--private 0,0.01,0.1] [--samples 200] [--json]
    python bench/score_privacy.py --engine-store DIR [--private ...]   # whole searches, real model


Fills a store straight through the keyword index with speed.py's generated sentences (no embedding,
so 100k memories take a minute or two, not half an hour), marks a share of them as another client's
private memories, then times what one search asks of the keyword indexes for client "bench": the
viewer's statistics (keyword_stats.view), the words and trigram search with its pool (100) and the
full-match score. With no private memories FTS5 ranks in C; with some, the viewer's statistics are
used. Medians and 95th percentiles in ms.

With --engine-store (a folder speed.py --store filled), whole engine searches are timed instead, on a
copy of that store with the share of memories made another client's private ones.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from speed import query, sentence  # noqa: E402

from hindsight_desktop.core.index import keyword  # noqa: E402
from hindsight_desktop.core.recall.candidates import visible_hits  # noqa: E402
from hindsight_desktop.core.store.database import Store  # noqa: E402
from hindsight_desktop.core.timeutil import to_db  # noqa: E402

WHEN = datetime(2026, 5, 1, tzinfo=UTC)
POOL = 100


def fill(store: Store, rng: random.Random, count: int) -> None:
    stamp = to_db(WHEN)
    with store.write() as db:
        first = int(db.execute("SELECT count(*) FROM memories").fetchone()[0])
        for i in range(first, first + count):
            text = sentence(rng) + f" (note {rng.randint(0, 10**9)})"
            db.execute(
                "INSERT INTO memories (id, content, layer, type, importance, client, scope, created_at, "
                "occurred_at, updated_at, content_hash) VALUES (?, ?, 'episodic', 'note', 0.5, 'bench', "
                "'shared', ?, ?, ?, ?)",
                (f"m{i}", text, stamp, stamp, stamp, f"h{i}"),
            )
            keyword.add(db, db.last_insert_rowid(), text, [], WHEN)


def make_private(store: Store, share: float, rng: random.Random) -> None:
    with store.write() as db:
        db.execute("UPDATE memories SET scope = 'shared', client = 'bench'")
        if share > 0:
            rows = [r for (r,) in db.execute("SELECT rowid FROM memories")]
            chosen = rng.sample(rows, int(len(rows) * share))
            db.executemany(
                "UPDATE memories SET scope = 'private', client = 'other' WHERE rowid = ?", [(r,) for r in chosen]
            )


def one_search(store: Store, text: str) -> float:
    if not hasattr(keyword, "keyword_stats"):  # the code before §3 (run from an older checkout)
        return _one_search_before(store, text)
    started = time.perf_counter()
    with store.read() as db:
        seen = keyword.keyword_stats.view(db, "bench")
        hits = visible_hits(db, lambda k: keyword.search(db, text, k, seen), POOL, "bench")
        if hits:
            keyword.full_match_score(db, keyword.query_terms(text), seen)
    return (time.perf_counter() - started) * 1000


def _one_search_before(store: Store, text: str) -> float:
    from hindsight_desktop.core.store import memories

    started = time.perf_counter()
    with store.read() as db:
        hits = visible_hits(db, lambda k: keyword.search(db, text, k), POOL, "bench")
        if hits:
            keyword.full_match_score(db, keyword.query_terms(text), memories.max_rowid(db))  # type: ignore[arg-type]
    return (time.perf_counter() - started) * 1000


def measure(store: Store, samples: int) -> dict[str, float]:
    rng = random.Random(3)
    texts = [query(rng) for _ in range(samples)]
    for text in texts[:10]:
        one_search(store, text)  # warm the page cache
    times = [one_search(store, text) for text in texts]
    ordered = sorted(times)
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2)}


def measure_engine(folder: Path, shares: list[float], samples: int) -> list[dict[str, float]]:
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.core.model.default_model import ensure_default_model
    from hindsight_desktop.core.model.embedder import load_embedder

    embedder = load_embedder(ensure_default_model(folder / "models"))
    out = []
    with tempfile.TemporaryDirectory(prefix="hindsight-score-privacy-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(folder / "data", data)
        for share in shares:
            store = Store(data / "memory.sqlite3")
            make_private(store, share, random.Random(5))
            store.close()
            with MemoryEngine(data, embedder=embedder) as engine:
                rng = random.Random(3)
                texts = [query(rng) for _ in range(samples)]
                for text in texts[:10]:
                    engine.search(text, limit=10, client="bench", log=False)
                times = []
                for text in texts:
                    started = time.perf_counter()
                    engine.search(text, limit=10, client="bench", log=False)
                    times.append((time.perf_counter() - started) * 1000)
                ordered = sorted(times)
                row = {
                    "memories": engine.count(),
                    "private_share": share,
                    "p50_ms": round(statistics.median(times), 2),
                    "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
                }
            out.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--private", default="0,0.01,0.1")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--engine-store", type=Path, help="time engine searches on a copy of this speed.py store")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(7)
    rows = []
    if args.engine_store:
        rows = measure_engine(args.engine_store, [float(s) for s in args.private.split(",")], args.samples)
    else:
        rows = measure_index(rng, args)
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'memories':>9} {'private':>8} {'p50 ms':>8} {'p95 ms':>8}")
    for row in rows:
        print(f"{row['memories']:>9} {row['private_share']:>8} {row['p50_ms']:>8} {row['p95_ms']:>8}")
    return 0


def measure_index(rng: random.Random, args: argparse.Namespace) -> list[dict[str, float]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="hindsight-score-privacy-") as tmp:
        store = Store(Path(tmp) / "memory.sqlite3")
        have = 0
        for size in sorted(int(s) for s in args.sizes.split(",")):
            fill(store, rng, size - have)
            have = size
            for share in (float(s) for s in args.private.split(",")):
                make_private(store, share, random.Random(5))
                row = {"memories": size, "private_share": share, **measure(store, args.samples)}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
        store.close()
    return rows


if __name__ == "__main__":
    sys.exit(main())
