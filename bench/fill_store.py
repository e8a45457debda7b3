"""Fill a store with generated memories and their vectors straight through the storage layer (no model per memory).

    python bench/fill_store.py DATA_DIR MODELS_DIR --size 1000000 [--batch 5000]

The memories are bench/maintenance.py's (a pool of the speed bench's sentences, each memory one of them with
noise on its vector, 10% private, three clients, dates over a year), but they are written row by row in large
transactions through the same storage calls the lossless import makes (the memory row, its keyword index
rows, its vector, its entity index rows) without the import's checks and redaction per record: 1M memories
take minutes, not the hours the import would. Only the pool (about 1,000 sentences) goes through the model.

Used by bench/recall_stages.py (`--direct`), or on its own to fill a store for another bench.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from maintenance import CITIES, LOOSE, NEAR_DUPLICATE, POOL, REPEAT  # noqa: E402
from speed import sentence  # noqa: E402

from hindsight_desktop.core.engine import MemoryEngine  # noqa: E402
from hindsight_desktop.core.index import keyword  # noqa: E402
from hindsight_desktop.core.model.default_model import ensure_default_model  # noqa: E402
from hindsight_desktop.core.model.embedder import load_embedder  # noqa: E402
from hindsight_desktop.core.store import entities as entity_index  # noqa: E402
from hindsight_desktop.core.store import upkeep  # noqa: E402
from hindsight_desktop.core.store.ids import content_hash  # noqa: E402
from hindsight_desktop.core.store.memories import stored_fact  # noqa: E402
from hindsight_desktop.core.text.extract import extract_entities, fact_key  # noqa: E402


def _row(i: int, text: str, entities: list[dict[str, str]], now: float, rng: random.Random) -> dict[str, Any]:
    age = rng.uniform(0, 365)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now - age * 86400))
    used = rng.random() < 0.3
    last = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now - rng.uniform(0, age) * 86400)) if used else None
    key, value = stored_fact(fact_key(text))
    return {
        "id": f"mem_bench{i:08d}",
        "content": text,
        "layer": rng.choices(["episodic", "semantic", "procedural"], [0.7, 0.25, 0.05])[0],
        "type": "note",
        "importance": round(rng.uniform(0.1, 0.95), 3),
        "pinned": int(rng.random() < 0.01),
        "client": rng.choice(["claude", "cursor", "desktop"]),
        "scope": "shared" if rng.random() < 0.9 else "private",
        "session_id": f"s{i // 20}",
        "status": "active",
        "created_at": stamp,
        "occurred_at": stamp,
        "updated_at": stamp,
        "last_accessed_at": last,
        "access_count": int(used),
        "entities": json.dumps(entities),
        "metadata": "{}",
        "content_hash": content_hash(text),
        "fact_key": key,
        "fact_value": value,
    }


def fill(data: Path, models: Path, size: int, batch: int = 5000, seed: int = 7) -> dict[str, float]:
    """Write `size` memories into a new store in `data`; timings."""
    from hindsight_desktop.core.records import Entity
    from hindsight_desktop.core.timeutil import from_db

    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    embedder = load_embedder(ensure_default_model(models))
    texts = list(dict.fromkeys(sentence(rng) for _ in range(POOL * 2)))[:POOL] + [f"I live in {c}." for c in CITIES]
    pool = np.vstack([embedder.embed(texts[i : i + 8]) for i in range(0, len(texts), 8)]).astype(np.float32)
    today = datetime.now(UTC)
    found = [extract_entities(t, today) for t in texts]
    entities = [[{"kind": e.kind, "text": e.text, "value": e.value} for e in f] for f in found]
    now = time.time()
    started = time.perf_counter()
    with MemoryEngine(data, embedder=embedder) as engine:
        parts = engine.parts
        for start in range(0, size, batch):
            with parts.store.write() as db:
                for i in range(start, min(size, start + batch)):
                    base = len(texts) - 1 - rng.randrange(len(CITIES)) if rng.random() < 0.001 else rng.randrange(POOL)
                    sigma = rng.choices([NEAR_DUPLICATE, REPEAT, LOOSE], [0.02, 0.03, 0.95])[0]
                    vector = pool[base] + nprng.normal(0, sigma, pool.shape[1]).astype(np.float32)
                    vector /= np.linalg.norm(vector)
                    row = _row(i, texts[base], entities[base], now, rng)
                    rowid = upkeep.insert_row(db, row)
                    occurred = from_db(row["occurred_at"])
                    assert occurred is not None
                    keyword.add(db, rowid, row["content"], [(e.kind, e.value) for e in found[base]], occurred)
                    parts.vectors.add(db, rowid, vector)
                    entity_index.index(db, rowid, [Entity(**e) for e in entities[base]], occurred)
            print(json.dumps({"written": min(size, start + batch)}), file=sys.stderr, flush=True)
        count = engine.count()
    seconds = time.perf_counter() - started
    return {"memories": count, "fill_seconds": round(seconds, 1), "fill_per_s": round(size / seconds, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("models", type=Path)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=5000)
    args = parser.parse_args(argv)
    print(json.dumps(fill(args.data, args.models, args.size, args.batch)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
