"""What keeping every row's length in memory would save a posting read (issue 25, fifth pass).

    python bench/keyword_lengths.py DATA_DIR [--rounds 3]

DATA_DIR is a store's data folder; use a copy (opening it may write the WAL). For the bench questions'
terms (bench/speed.py's, as recall_stages.py asks them) it times, per round and on one read connection:
- `all lengths`: every row's length in the words index read once into an array indexed by rowid;
- `postings today`: postings.read for every term (one %_docsize seek per occurrence);
- `postings, lengths kept`: the instance scan alone, the lengths taken from that array.
Both ways' postings are checked equal (rowids, counts, lengths) before any figure is printed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import apsw
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from speed import query  # noqa: E402

from hindsight_desktop.core.index import keyword, postings  # noqa: E402
from hindsight_desktop.core.store.database import Store  # noqa: E402

TABLE = "fts_words"


def all_lengths(db: apsw.Connection) -> np.ndarray:
    """Every row's length, at its rowid (0 where no row is)."""
    row = db.execute(
        f"SELECT group_concat(id, ','), group_concat(hex(sz), ''), count(*), max(id) FROM {TABLE}_docsize"
    ).fetchone()
    lengths = np.zeros(int(row[3] or 0) + 1)
    if row[2]:
        lengths[np.array(json.loads(f"[{row[0]}]"), dtype=np.int64)] = postings.varints(bytes.fromhex(row[1]), row[2])
    return lengths


def scan_only(db: apsw.Connection, term: str, lengths: np.ndarray) -> postings.Posting | None:
    """postings.read's posting, its lengths from `lengths` rather than a seek per occurrence."""
    token = postings._one_token(db, TABLE, term)
    if token is None:
        return None
    docs, total = db.execute(
        f"SELECT group_concat(doc, ','), count(*) FROM temp.{TABLE}_instances WHERE term = ?", (token,)
    ).fetchone()
    if not total:
        return postings.Posting(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))
    rowids, counts = np.unique(np.array(json.loads(f"[{docs}]"), dtype=np.int64), return_counts=True)
    return postings.Posting(rowids, counts.astype(np.float64), lengths[rowids])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("data", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(11)
    asked = list(dict.fromkeys(query(rng) for _ in range(200)))[:48]
    terms = [keyword.quote(t) for t in dict.fromkeys(t for q in asked for t in keyword.query_terms(q))]
    path = args.data / "memory.sqlite3"
    store = Store(path, encrypt=(args.data / "memory.sqlite3.encrypted").exists())
    figures: dict[str, list[float]] = {"all lengths": [], "postings today": [], "postings, lengths kept": []}
    for _ in range(args.rounds):
        with store.read() as db:
            started = time.perf_counter()
            lengths = all_lengths(db)
            figures["all lengths"].append(time.perf_counter() - started)
            started = time.perf_counter()
            today = [postings.read(db, TABLE, t) for t in terms]
            figures["postings today"].append(time.perf_counter() - started)
            started = time.perf_counter()
            kept = [scan_only(db, t, lengths) for t in terms]
            figures["postings, lengths kept"].append(time.perf_counter() - started)
        for a, b in zip(today, kept, strict=True):
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert np.array_equal(a.rowids, b.rowids) and np.array_equal(a.counts, b.counts)
                assert np.array_equal(a.lengths, b.lengths)
    print(
        json.dumps(
            {
                "terms": len(terms),
                "lengths_mb": round(lengths.nbytes / 1e6, 1),
                **{k: [round(v * 1000, 1) for v in vs] for k, vs in figures.items()},
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
