"""Maintenance over a large store: time per 10k memories, peak RSS, how free a caller's event
loop stays while it runs, and re-embed throughput after a model switch.

    python bench/maintenance.py [--size 100000] [--reembed-seconds 60] [--json]

Filling the store through the model would take far longer than the maintenance (the embedder runs at
roughly 90 texts/s on two cores), so the store is filled through the app's own import path, a JSONL
bundle with embeddings: a pool of real sentences is embedded once, and each memory takes one of them
with noise added to its vector. The noise is chosen so that most memories of a sentence are loosely
related (cosine ~0.5), a few are near-duplicates (~0.97, merged) and a few are repeats (~0.88,
consolidated when they span several sessions). Dates spread over a year, so decay has work to do, and
a few "I live in X" statements give the contradiction pass some too.

The fill runs in a child process, so the peak RSS reported is that of the maintenance process alone
(model, vector cache, passes). Event-loop lag: a coroutine asks to sleep 10 ms, over and over, while
maintenance runs in a worker thread (asyncio.to_thread); lag is how late it woke up.

Re-embed throughput needs a second model: --second-model PATH, or by default the packaged model
converted again with every matrix kept in float32 (a different file, hence a different model id).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing
import random
import resource
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.model.default_model import ensure_default_model
from hindsight_desktop.core.model.e5_convert import convert_e5, packaged_e5_file
from hindsight_desktop.core.model.embedder import load_embedder
from hindsight_desktop.core.store.memories import stored_fact
from hindsight_desktop.core.text.extract import extract_entities, fact_key

sys.path.insert(0, str(Path(__file__).parent))
from speed import sentence  # noqa: E402  (the speed bench's sentence generator)

POOL = 1000
CITIES = ["Lisbon", "Osaka", "Nairobi", "Toronto", "Berlin", "Lima", "Oslo", "Seoul"]
# Noise per dimension for 384-d vectors: pairs of memories from one sentence end up near cosine 0.97,
# 0.88 and 0.5 respectively (cos ~ 1 / (1 + 384 * sigma^2)).
NEAR_DUPLICATE, REPEAT, LOOSE = 0.009, 0.019, 0.05


def _record(
    i: int, text: str, vector: np.ndarray, entities: list[dict], now: float, rng: random.Random, model: str
) -> dict[str, Any]:
    age = rng.uniform(0, 365)
    created = time.gmtime(now - age * 86400)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", created)
    used = rng.random() < 0.3
    last = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now - rng.uniform(0, age) * 86400)) if used else None
    stored = stored_fact(fact_key(text))
    return {
        "id": f"mem_bench{i:08d}",
        "content": text,
        "layer": rng.choices(["episodic", "semantic", "procedural"], [0.7, 0.25, 0.05])[0],
        "type": "note",
        "importance": round(rng.uniform(0.1, 0.95), 3),
        "pinned": rng.random() < 0.01,
        "client": rng.choice(["claude", "cursor", "desktop"]),
        "scope": "shared" if rng.random() < 0.9 else "private",
        "session_id": f"s{i // 20}",
        "status": "active",
        "created_at": stamp,
        "occurred_at": stamp,
        "updated_at": stamp,
        "last_accessed_at": last,
        "access_count": int(used),
        "entities": entities,
        "metadata": {},
        "fact_key": stored[0],
        "fact_value": stored[1],
        "embedding": {"model": model, "dim": len(vector), "data": _b64(vector)},
    }


def _b64(vector: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii")


def fill(data: Path, models: Path, size: int, seed: int = 7) -> dict[str, float]:
    """Child process: write the bundle and import it."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    embedder = load_embedder(ensure_default_model(models))
    texts = list(dict.fromkeys(sentence(rng) for _ in range(POOL * 2)))[:POOL] + [f"I live in {c}." for c in CITIES]
    started = time.perf_counter()
    pool = np.vstack([embedder.embed(texts[i : i + 4]) for i in range(0, len(texts), 4)])
    embed_s = time.perf_counter() - started
    now = time.time()
    today = datetime.now(UTC)
    entities = [[{"kind": e.kind, "text": e.text, "value": e.value} for e in extract_entities(t, today)] for t in texts]
    bundle = data.parent / "bundle.jsonl"
    with open(bundle, "w", encoding="utf-8") as out:
        out.write(json.dumps({"record": "header", "format": "hindsight-desktop", "version": 1}) + "\n")
        for i in range(size):
            base = len(texts) - 1 - rng.randrange(len(CITIES)) if rng.random() < 0.001 else rng.randrange(POOL)
            sigma = rng.choices([NEAR_DUPLICATE, REPEAT, LOOSE], [0.02, 0.03, 0.95])[0]
            vector = pool[base] + nprng.normal(0, sigma, pool.shape[1]).astype(np.float32)
            vector /= np.linalg.norm(vector)
            record = _record(i, texts[base], vector, entities[base], now, rng, embedder.model_id)
            out.write(json.dumps({"record": "memory", **record}) + "\n")
    with MemoryEngine(data, embedder=embedder) as engine:
        started = time.perf_counter()
        report = engine.import_file(bundle)
        import_s = time.perf_counter() - started
    bundle.unlink()
    return {
        "pool_embed_per_s": round(len(texts) / embed_s, 1),
        "import_seconds": round(import_s, 1),
        "import_per_s": round(report.created / import_s, 1),
    }


def _fill_child(data: Path, models: Path, size: int, out: Any) -> None:
    out.send(fill(data, models, size))


async def _maintenance_watching_the_loop(engine: MemoryEngine) -> tuple[dict[str, Any], list[float], dict[str, float]]:
    lags: list[float] = []
    stages: dict[str, float] = {}
    marks = {"stage": None, "at": time.perf_counter()}

    def progress(stage: str, batches: int) -> None:
        now = time.perf_counter()
        stages[stage] = stages.get(stage, 0.0) + now - marks["at"]
        marks["at"] = now

    done = asyncio.Event()

    async def ticker() -> None:
        loop = asyncio.get_running_loop()
        while not done.is_set():
            asked = loop.time()
            await asyncio.sleep(0.01)
            lags.append((loop.time() - asked - 0.01) * 1000)

    watch = asyncio.create_task(ticker())
    report = await asyncio.to_thread(engine.run_maintenance, progress=progress)
    done.set()
    await watch
    return report, lags, {k: round(v, 2) for k, v in stages.items()}


def _second_model(folder: Path, given: Path | None) -> Path:
    if given is not None:
        return given
    # A second real model that the weights package also ships: e5-small pruned to English and Portuguese.
    target = folder / "e5-small-enpt-q4_0.gguf"
    convert_e5(packaged_e5_file().with_name("e5-small-enpt-q4.bin"), target)
    return target


def measure(size: int, reembed_seconds: float, second: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hindsight-maint-") as tmp:
        data, models = Path(tmp) / "data", Path(tmp) / "models"
        ensure_default_model(models)
        ctx = multiprocessing.get_context("spawn")
        receive, send = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_fill_child, args=(data, models, size, send))
        child.start()
        filled = receive.recv()
        child.join()
        result: dict[str, Any] = {"memories": size, **filled}
        engine = MemoryEngine(data, embedder=load_embedder(ensure_default_model(models)))
        engine.search("warm the vector cache")  # loads the cache, as a running app would have
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report, lags, stages = asyncio.run(_maintenance_watching_the_loop(engine))
        result.update(
            {
                "maintenance_seconds": report["seconds"],
                "seconds_per_10k": round(report["seconds"] / (size / 10_000), 2),
                "stage_seconds": stages,
                "batches": report["run"]["batches"],
                "changes": {k: v for k, v in report.items() if isinstance(v, int) and v},
                "loop_lag_ms": {
                    "p50": round(statistics.median(lags), 2),
                    "p99": round(np.percentile(lags, 99), 2),
                    "max": round(max(lags), 2),
                    "ticks": len(lags),
                },
                "rss_before_mb": round(rss_before, 1),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
        )
        again = engine.run_maintenance()
        result["second_maintenance_seconds"] = again["seconds"]
        result.update(_reembed(engine, _second_model(Path(tmp), second), reembed_seconds))
        engine.close()
    return result


def _reembed(engine: MemoryEngine, model: Path, seconds: float) -> dict[str, Any]:
    engine.use_model(model)
    query = "when does my flight leave?"
    started = time.perf_counter()
    for _ in range(20):
        engine.search(query, limit=10)
    search_ms = (time.perf_counter() - started) / 20 * 1000
    deadline = time.perf_counter() + seconds
    run = engine.reembed(should_stop=lambda: time.perf_counter() > deadline)
    return {
        "reembed_per_s": run["per_second"],
        "reembedded": run["reembedded"],
        "search_during_switch_ms": round(search_ms, 1),
        "reembed_done": run["done"],
        "reembed_total": run["total"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--reembed-seconds", type=float, default=60.0)
    parser.add_argument("--second-model", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.size, args.reembed_seconds, args.second_model)
    if args.json:
        print(json.dumps(result))
        return 0
    print("| memories | maintenance | per 10k | peak RSS | loop lag p99 / max | re-embed |")
    print("|---:|---:|---:|---:|---:|---:|")
    lag = result["loop_lag_ms"]
    print(
        f"| {result['memories']:,} | {result['maintenance_seconds']} s | {result['seconds_per_10k']} s "
        f"| {result['peak_rss_mb']} MB | {lag['p99']} / {lag['max']} ms | {result['reembed_per_s']} memories/s |"
    )
    print(json.dumps(result, indent=2), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
