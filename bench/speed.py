"""Write and recall latency at 1k, 10k and 100k memories through the real engine, plus peak RSS.

    python bench/speed.py [--sizes 1000,10000,100000] [--samples 200] [--store DIR] [--json]
    python bench/speed.py --encrypted [--sizes 10000] [--samples 200] [--bulk]

`--encrypted` fills one plain store to the largest size, copies it and encrypts the copy (the product's own
migration), then measures both in this process, in alternating rounds on the same sentences: write p50,
recall p50, and the time to open the engine (key lookup, connections, model state); with the ratios.
`--bulk` fills through the lossless import instead of the write path (as bench/maintenance.py does: a pool
of 300 embedded sentences, each memory a pool vector plus noise, its text numbered), which takes minutes
instead of half an hour at 100k; the measured writes and searches still go through the engine.

Memories are generated sentences (names, places, numbers, dates) so keyword and vector indexes see
realistic variety. The store is filled through the engine's own write path (history-import mode,
so every item is kept); latencies are then measured on fresh writes and searches at each size.
Medians and 95th percentiles, since this machine is noisy.

Filling 100k memories takes about half an hour here; `--store DIR` keeps the filled store in DIR
and, on a later run, tops it up only to the next size, so a change can be re-measured in minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from hindsight_desktop.config import Settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.model.default_model import ensure_default_model
from hindsight_desktop.core.model.embedder import load_embedder

NAMES = [
    "Alice",
    "Bruno",
    "Chen Wei",
    "Dara",
    "Emeka",
    "Fatima",
    "Goran",
    "Hana",
    "Ivan",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Yusuf",
]
PLACES = ["Lisbon", "Osaka", "Nairobi", "Toronto", "Hangzhou", "Berlin", "Lima", "Oslo", "Austin", "Seoul"]
TEMPLATES = [
    "{name} recommended a ramen place in {place} called {code}.",
    "My flight {code} to {place} leaves on {day} {month} at {hour}:{minute:02d}.",
    "{name}'s birthday is on {day} {month}; they like {thing}.",
    "I prefer {thing} over coffee in the morning, especially in {place}.",
    "Remember that the storage unit code is {number} and the key is with {name}.",
    "We agreed with {name} to ship order {code} before {day} {month}.",
    "The dentist in {place} charges {number} for a cleaning; {name} goes there too.",
    "To reset the router, hold the button for {minute} seconds, then call {name} if it fails.",
    "{name} moved to {place} for a job at a {thing} startup.",
    "Book club picked a novel about {thing}; {name} hosts on {day} {month}.",
]
THINGS = ["green tea", "jazz", "bouldering", "sourdough", "chess", "rainy days", "vintage cameras", "kayaking"]
MONTHS = ["January", "March", "May", "July", "September", "November"]
QUERIES = [
    "when does my flight leave?",
    "who recommended ramen?",
    "storage unit code",
    "{name} birthday",
    "dentist price in {place}",
    "how do I reset the router",
    "order {code}",
    "what does {name} like?",
]


def sentence(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format(
        name=rng.choice(NAMES),
        place=rng.choice(PLACES),
        thing=rng.choice(THINGS),
        month=rng.choice(MONTHS),
        day=rng.randint(1, 28),
        hour=rng.randint(5, 22),
        minute=rng.randint(0, 59),
        number=rng.randint(100, 99999),
        code=f"{rng.choice('ABCDEFGHJK')}{rng.choice('XYZ')}{rng.randint(100, 9999)}",
    )


def query(rng: random.Random) -> str:
    return rng.choice(QUERIES).format(
        name=rng.choice(NAMES),
        place=rng.choice(PLACES),
        code=f"{rng.choice('ABCDEFGHJK')}{rng.choice('XYZ')}{rng.randint(100, 9999)}",
    )


def fill(engine: MemoryEngine, rng: random.Random, count: int) -> None:
    """Add `count` memories, embedding in batches first (the write path then finds them cached)."""
    batch = 128
    for start in range(0, count, batch):
        texts = [sentence(rng) + f" (note {rng.randint(0, 10**9)})" for _ in range(min(batch, count - start))]
        engine.parts.embed(texts)
        for text in texts:
            engine.write(text, client="bench", gate=False)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def measure(engine: MemoryEngine, rng: random.Random, samples: int) -> dict[str, float]:
    writes, searches, model = [], [], []
    for _ in range(samples):
        text = sentence(rng) + f" (fresh {rng.randint(0, 10**9)})"
        started = time.perf_counter()
        engine.write(text, client="bench")
        writes.append((time.perf_counter() - started) * 1000)
        # The model's share of a write: the same kind of sentence through the embedder alone.
        other = sentence(rng) + f" (fresh {rng.randint(0, 10**9)})"
        started = time.perf_counter()
        engine.embedder.embed([other])
        model.append((time.perf_counter() - started) * 1000)
    for _ in range(samples):
        started = time.perf_counter()
        engine.search(query(rng), limit=10, client="bench")
        searches.append((time.perf_counter() - started) * 1000)
    return {
        "write_p50_ms": round(statistics.median(writes), 2),
        "write_p95_ms": round(percentile(writes, 95), 2),
        "embed_p50_ms": round(statistics.median(model), 2),
        "recall_p50_ms": round(statistics.median(searches), 2),
        "recall_p95_ms": round(percentile(searches, 95), 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


FRESH = """
import json, random, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from speed import own_peak_rss_mb, percentile, query
from hindsight_desktop.core.model.default_model import ensure_default_model
from hindsight_desktop.core.model.embedder import load_embedder
from hindsight_desktop.config import Settings
from hindsight_desktop.core.engine import MemoryEngine
tmp, samples = Path(sys.argv[1]), int(sys.argv[2])
engine = MemoryEngine(tmp / "data", embedder=load_embedder(ensure_default_model(tmp / "models")))
rng = random.Random(11)
started = time.perf_counter()
engine.search("warm up the vector cache", client="bench")
first = (time.perf_counter() - started) * 1000
times = []
for _ in range(samples):
    started = time.perf_counter()
    engine.search(query(rng), limit=10, client="bench")
    times.append((time.perf_counter() - started) * 1000)
print(json.dumps({"memories": engine.count(), "first_search_ms": round(first, 1),
                  "recall_p50_ms": round(statistics.median(times), 2), "recall_p95_ms": round(percentile(times, 95), 2),
                  "peak_rss_mb": own_peak_rss_mb()}))
"""


def own_peak_rss_mb() -> float:
    """This process's own peak RSS. Linux carries `ru_maxrss` over from the parent that forked the
    process (a child of the filled-up bench would report the bench's peak), so read the memory map's
    own high-water mark (VmHWM) where there is one."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def measure_fresh_process(tmp: Path, samples: int) -> dict[str, float]:
    """What the app or an MCP process costs when it opens the full store: a new process, so the
    filling above (batches, growth of the arrays) does not count toward its memory."""
    out = subprocess.run(
        # -P: the tree PYTHONPATH names is measured, not one in the working folder (recall_stages.fresh).
        [sys.executable, "-P", "-c", FRESH, str(tmp), str(samples), str(Path(__file__).parent)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def _workdir(store: Path | None) -> Iterator[str]:
    if store is None:
        with tempfile.TemporaryDirectory(prefix="hindsight-speed-") as tmp:
            yield tmp
        return
    store.mkdir(parents=True, exist_ok=True)
    yield str(store)


def _open_ms(data: Path, embedder: object, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        engine = MemoryEngine(data, embedder=embedder)  # type: ignore[arg-type]
        engine.search("open", limit=1, client="bench")  # the first read through a reader connection
        times.append((time.perf_counter() - started) * 1000)
        engine.close()
    return round(statistics.median(times), 2)


def bulk_fill(engine: MemoryEngine, size: int, work: Path) -> None:
    """Fill `engine` with `size` memories through the lossless import of a generated bundle."""
    import numpy as np

    sys.path.insert(0, str(Path(__file__).parent))
    from maintenance import _record  # the bundle record the maintenance bench writes

    rng, nprng = random.Random(7), np.random.default_rng(7)
    texts = list(dict.fromkeys(sentence(rng) for _ in range(600)))[:300]
    pool = np.vstack([engine.embedder.embed(texts[i : i + 8]) for i in range(0, len(texts), 8)])
    bundle = work / "bundle.jsonl"
    now = time.time()
    with open(bundle, "w", encoding="utf-8") as out:
        out.write(json.dumps({"record": "header", "format": "hindsight-desktop", "version": 1}) + "\n")
        for i in range(size):
            base = rng.randrange(len(texts))
            vector = pool[base] + nprng.normal(0, 0.05, pool.shape[1]).astype(np.float32)
            vector /= np.linalg.norm(vector)
            record = _record(i, f"{texts[base]} (note {i})", vector, [], now, rng, engine.embedder.model_id)
            out.write(json.dumps({"record": "memory", **record}) + "\n")
    engine.import_file(bundle)
    bundle.unlink()


def compare_encrypted(size: int, samples: int, bulk: bool = False) -> dict[str, object]:
    """Plain and encrypted copies of one filled store, measured side by side (see the module's doc)."""
    import os
    import shutil

    from hindsight_desktop.core.store.database import Store

    os.environ.setdefault("HINDSIGHT_KEY_STORE", "file")  # the key in the bench's folder, not the person's keyring
    with tempfile.TemporaryDirectory(prefix="hindsight-speed-enc-") as tmp:
        models = Path(tmp) / "models"
        embedder = load_embedder(ensure_default_model(models))
        plain, encrypted = Path(tmp) / "plain", Path(tmp) / "encrypted"
        with MemoryEngine(plain, embedder=embedder, settings=Settings(encrypt_memory_file=False)) as engine:
            started = time.perf_counter()
            if bulk:
                bulk_fill(engine, size, Path(tmp))
            else:
                fill(engine, random.Random(7), size)
            filled = round(time.perf_counter() - started, 1)
        shutil.copytree(plain, encrypted)
        started = time.perf_counter()
        Store(encrypted / "memory.sqlite3", encrypt=True).close()
        encrypt_seconds = round(time.perf_counter() - started, 2)
        rows: dict[str, list[dict[str, float]]] = {"plain": [], "encrypted": []}
        engines = {
            "plain": MemoryEngine(plain, embedder=embedder, settings=Settings(encrypt_memory_file=False)),
            "encrypted": MemoryEngine(encrypted, embedder=embedder),
        }
        try:
            for round_ in range(4):  # alternating, each on the same sentences, so drift hits both alike
                for label, engine in engines.items():
                    rows[label].append(measure(engine, random.Random(100 + round_), max(1, samples // 4)))
        finally:
            for engine in engines.values():
                engine.close()
        result: dict[str, object] = {
            "memories": size,
            "filled_by": "import" if bulk else "write path",
            "fill_seconds": filled,
            "encrypt_seconds": encrypt_seconds,
            "file_mb": round((plain / "memory.sqlite3").stat().st_size / 2**20, 1),
        }
        for label, data in (("plain", plain), ("encrypted", encrypted)):
            result[label] = {
                key: round(statistics.median(r[key] for r in rows[label]), 2)
                for key in ("write_p50_ms", "recall_p50_ms")
            } | {"open_ms": _open_ms(data, embedder)}
        plain_r, enc_r = result["plain"], result["encrypted"]
        assert isinstance(plain_r, dict) and isinstance(enc_r, dict)
        result["ratio"] = {key: round(enc_r[key] / plain_r[key], 3) for key in plain_r}
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--store", type=Path, help="keep (and reuse) the filled store in this folder")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--encrypted", action="store_true", help="plain beside encrypted at the largest size")
    parser.add_argument("--bulk", action="store_true", help="with --encrypted: fill through the lossless import")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if args.encrypted:
        print(json.dumps(compare_encrypted(sizes[-1], args.samples, args.bulk), indent=2))
        return 0
    rng = random.Random(7)
    results = []
    with _workdir(args.store) as tmp:
        # Convert the model in a child process: a one-time first-run cost that would otherwise
        # dominate this process's peak RSS.
        models = Path(tmp) / "models"
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys, pathlib; from hindsight_desktop.core.model.default_model "
                "import ensure_default_model; ensure_default_model(pathlib.Path(sys.argv[1]))",
                str(models),
            ],
            check=True,
        )
        embedder = load_embedder(ensure_default_model(models))
        with MemoryEngine(Path(tmp) / "data", embedder=embedder) as engine:
            have = engine.count()
            rng.seed(7 + have)  # a kept store continues with new sentences, not repeats of its first ones
            for size in sizes:
                if have > size and size != sizes[-1]:  # a kept store is already past this size
                    continue
                started = time.perf_counter()
                fill(engine, rng, max(0, size - have))
                have = max(have, size)
                row = {"memories": have, "fill_seconds": round(time.perf_counter() - started, 1)}
                row.update(measure(engine, rng, args.samples))
                have += args.samples  # the measured writes stay in the store
                results.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
        reopened = measure_fresh_process(Path(tmp), args.samples)
        print(json.dumps(reopened), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"results": results, "fresh_process": reopened}))
        return 0
    print(
        f"A fresh process opening the {reopened['memories']:,} memories: recall p50 {reopened['recall_p50_ms']} ms, "
        f"p95 {reopened['recall_p95_ms']} ms, peak RSS {reopened['peak_rss_mb']} MB "
        f"(cache load {reopened['first_search_ms']} ms on the first search)"
    )
    print("| memories | write p50 | write p95 | of which the model (p50) | recall p50 | recall p95 | peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['memories']:,} | {r['write_p50_ms']} ms | {r['write_p95_ms']} ms | {r['embed_p50_ms']} ms "
            f"| {r['recall_p50_ms']} ms "
            f"| {r['recall_p95_ms']} ms | {r['peak_rss_mb']} MB |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
