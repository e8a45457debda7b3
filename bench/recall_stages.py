"""Where a search's time goes beyond its embedding, stage by stage, at 10k and 100k memories.

    python bench/recall_stages.py [--sizes 10000,100000] [--samples 60] [--store DIR] [--client claude]
                                  [--direct] [--after-write] [--with-model] [--json]

Each store is filled as bench/maintenance.py fills one (its `fill`: a pool of real sentences embedded once,
each memory one of them with noise on its vector, written through the engine's lossless import), so filling
100k takes minutes; `--direct` writes the same kind of memories straight through the storage layer
(bench/fill_store.py), about a minute per 100k, for 1M. `--store DIR` keeps the filled stores in DIR/<size>/
for the next run (the baseline and a change then measure the same file).

The questions (bench/speed.py's) are embedded once before timing, so every stage's time excludes the model.
Stages are timed by wrapping the functions recall calls (exclusive time: a stage's time leaves out the
stages it calls), so the bench runs on any version of core/recall that still has them; a stage a version
lacks prints as "-". "recall, the rest" is recall's own time outside every wrapped stage (fusion, scoring,
calibration). Medians over the samples, per stage, and of the whole search (engine.search, embedding
cached) beside the sum of the stage medians. The samples ask the 48 questions in turn; each round's median
is printed too (a question asked again finds its postings and codes kept).

`--with-model` measures what the issue measures: each question is embedded by the model inside the search
(its embedding forgotten first), and the same text through the model alone right before; the part of a
search beyond its embedding is the search's median less the model's. Recall reads the indexes while the
model runs on the other core, yet what follows the embedding runs slower right after the model, so this can
exceed the cached search's time (bench/NOTES.md, ninth pass).

`--after-write` writes one memory before every search (on a copy of each store): the viewer's statistics
and the keyword postings are kept only until the keyword index changes, so this shows what a store that
changes between searches pays.

A fresh process per size then opens the store and times its first search, one Chinese question (`first_zh_ms`:
the first of its language), the 24 English ones after it (beside the background load of the vector codes the
first search starts, from schema v11) and 23 more once the codes are held. Warm searches above
are timed after the engine's warm-up, as a served process runs them, and once the codes are held too
(`codes_wait_s`: how long that took). A second fresh process first runs the engine's warm-up, as the app,
`serve` and `mcp` do in the background when they open the store (joined here, with the codes' load it
starts, and timed), then the same searches: the first search of a served process once its warm-up is done.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from speed import own_peak_rss_mb, query  # noqa: E402

from hindsight_desktop.core.engine import MemoryEngine  # noqa: E402
from hindsight_desktop.core.model.default_model import ensure_default_model  # noqa: E402
from hindsight_desktop.core.model.embedder import load_embedder  # noqa: E402

PERSON = "person"  # --client for the person at the desktop, who sees every memory
QUESTIONS = 48  # distinct questions, embedded once (the engine's embedding cache holds 256)
# Asked by each fresh process right after its first search (English): what its first Chinese question pays.
ZH_FIRST = "我女儿对什么过敏？"

# (module, attribute, stage): the functions recall calls, by where it looks them up.
STAGES = [
    ("hindsight_desktop.core.index.keyword_stats", "view", "viewer statistics"),
    ("hindsight_desktop.core.index.keyword", "search", "keyword search"),
    ("hindsight_desktop.core.index.keyword", "search_words", "keyword search, other language"),
    ("hindsight_desktop.core.index.keyword", "full_match_score", "full-match score"),
    ("hindsight_desktop.core.recall.candidates", "visible_hits", "visibility filter"),
    ("hindsight_desktop.core.recall.hybrid", "entity_hits", "entity lookups"),
    ("hindsight_desktop.core.recall.hybrid", "cross_language_hits", "other-language terms"),
    ("hindsight_desktop.core.recall.dates", "period_hits", "date lookups"),
    ("hindsight_desktop.core.recall.fact_questions", "current_statements", "fact questions"),
    ("hindsight_desktop.core.index.vector_cache", "VectorCache.refresh", "vector cache refresh"),
    ("hindsight_desktop.core.index.vector_cache", "VectorCache.nearest", "vector search"),
    ("hindsight_desktop.core.recall.hybrid", "_load", "candidate rows"),
    ("hindsight_desktop.core.recall.hybrid", "_fill_similarity", "candidate similarities"),
    ("hindsight_desktop.core.recall.hybrid", "_spread_links", "links"),
    ("hindsight_desktop.core.recall.hybrid", "_bring_successors", "successors"),
    ("hindsight_desktop.core.recall.hybrid", "_demote_repeats", "repeats"),
    ("hindsight_desktop.core.recall.conflicts", "newer_first", "conflicts"),
    ("hindsight_desktop.core.store.memories", "load_memories", "result rows"),
    ("hindsight_desktop.core.recall.subjects", "aliases", "subject aliases"),
    ("hindsight_desktop.core.recall.confidence", "coverage", "confidence"),
    ("hindsight_desktop.core.recall.confidence", "confidence", "confidence"),
    ("hindsight_desktop.core.recall.hybrid", "recall", "recall, the rest"),
    ("hindsight_desktop.core.recall.access_stats", "AccessStats.record", "access log"),
    ("hindsight_desktop.core.render", "search_text", "rendering"),
]


class Timer:
    """Exclusive time per stage for the calls on the timing thread (the embedding thread is not timed)."""

    def __init__(self) -> None:
        self.current: dict[str, float] = defaultdict(float)
        self._stack: list[list[float]] = []  # [started, time spent in nested stages]
        self._thread = threading.get_ident()

    def wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() != self._thread:
                return fn(*args, **kwargs)
            frame = [time.perf_counter(), 0.0]
            self._stack.append(frame)
            try:
                return fn(*args, **kwargs)
            finally:
                self._stack.pop()
                spent = time.perf_counter() - frame[0]
                self.current[stage] += (spent - frame[1]) * 1000
                if self._stack:
                    self._stack[-1][1] += spent

        return timed

    def take(self) -> dict[str, float]:
        out, self.current = dict(self.current), defaultdict(float)
        return out


def install(timer: Timer) -> list[str]:
    """Wrap every stage that this version of the code has; the stages found."""
    import importlib

    found = []
    for module_name, attribute, stage in STAGES:
        try:
            owner: Any = importlib.import_module(module_name)
        except ModuleNotFoundError:  # a stage this version does not have
            continue
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        if owner is None or not hasattr(owner, name):
            continue
        setattr(owner, name, timer.wrap(stage, getattr(owner, name)))
        found.append(stage)
    # Names recall imported before the wrapping still point at the originals: point them at the wrappers.
    hybrid = importlib.import_module("hindsight_desktop.core.recall.hybrid")
    candidates = importlib.import_module("hindsight_desktop.core.recall.candidates")
    if hasattr(hybrid, "visible_hits"):
        hybrid.visible_hits = candidates.visible_hits
    engine_module = importlib.import_module("hindsight_desktop.core.engine")
    engine_module.recall = hybrid.recall  # type: ignore[attr-defined]
    return found


def questions() -> list[str]:
    rng = random.Random(11)
    return list(dict.fromkeys(query(rng) for _ in range(QUESTIONS * 4)))[:QUESTIONS]


def prime(engine: MemoryEngine, asked: list[str]) -> None:
    """Embed the questions once; the engine's embedding cache then answers every search."""
    for i in range(0, len(asked), 8):
        engine.parts.embed(asked[i : i + 8], "query")


def filled(store: Path, size: int, direct: bool = False) -> tuple[Path, Path]:
    """(data folder, models folder) of a store of `size` memories, filled the first time (through the
    lossless import, or with `direct` straight through the storage layer: bench/fill_store.py)."""
    import fill_store
    import maintenance

    folder = store / str(size)
    data, models = folder / "data", folder / "models"
    if not (folder / "filled").exists():
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        report = fill_store.fill(data, models, size) if direct else maintenance.fill(data, models, size)
        report["fill_seconds"] = round(time.perf_counter() - started, 1)
        (folder / "filled").write_text(json.dumps(report))
        print(json.dumps({"filled": size, **report}), file=sys.stderr, flush=True)
    return data, models


def wait_for_codes(engine: MemoryEngine, limit_s: float = 60.0) -> float:
    """Seconds until the vector cache holds its codes (a background load since v11; 0 for a version or a
    store size that has none), so warm searches are timed in the steady state a served process reaches."""
    cache = getattr(engine.parts.vectors, "cache", None)
    started = time.perf_counter()
    while cache is not None and hasattr(cache, "held") and not cache.held and len(cache) <= cache.hold_up_to:
        if time.perf_counter() - started > limit_s:
            break
        time.sleep(0.05)
    return round(time.perf_counter() - started, 2)


def measure(
    data: Path, models: Path, samples: int, asker: str, after_write: bool = False, with_model: bool = False
) -> dict[str, Any]:
    """Stage medians over `samples` searches; with `after_write`, each search right after a write of one
    memory (on a copy of the store): what is kept until the keyword index changes is then read again.
    With `with_model`, each search embeds its question (module docstring)."""
    from hindsight_desktop.core import render

    if after_write:
        import atexit
        import shutil
        import tempfile

        copy = Path(tempfile.mkdtemp(prefix="hindsight-stages-write-")) / "data"
        atexit.register(shutil.rmtree, copy.parent, True)
        shutil.copytree(data, copy)
        data = copy

    client = None if asker == PERSON else asker
    timer = Timer()
    found = install(timer)
    asked = questions()
    with MemoryEngine(data, embedder=load_embedder(ensure_default_model(models))) as engine:
        prime(engine, asked)
        engine.warm_up()  # as a served process does when it opens the store (the app, serve, mcp)
        for text in asked[:4]:  # the vector cache, index pages and lexicon, before timing
            engine.search(text, limit=10, client=client)
        codes_wait = wait_for_codes(engine)
        timer.take()
        totals, model, per_stage = [], [], defaultdict(list)
        for i in range(samples):
            text = asked[i % len(asked)]
            if with_model:
                engine.parts.embed.discard([text])
                started = time.perf_counter()
                engine.embedder.embed([text], "query")  # the model's share, as the search's call pays it
                model.append((time.perf_counter() - started) * 1000)
            if after_write:
                engine.write(
                    f"Probe note {i}: the spare key is under flowerpot {i}", client=client or "claude", explicit=True
                )
                timer.take()  # the write's own calls are not the search's
            started = time.perf_counter()
            result = engine.search(text, limit=10, client=client)
            render.search_text(result.query, result.hits)
            totals.append((time.perf_counter() - started) * 1000)
            spent = timer.take()
            for stage in found:
                per_stage[stage].append(spent.get(stage, 0.0))
        count = engine.count()
    medians = {stage: round(statistics.median(times), 3) for stage, times in per_stage.items()}
    searched = round(statistics.median(totals), 2)
    beyond = {"model_p50_ms": round(statistics.median(model), 2)} if with_model else {}
    if with_model:
        beyond["beyond_model_ms"] = round(searched - beyond["model_p50_ms"], 2)
    # The questions asked in turn: each round's median (the first round asks each for the first time).
    rounds = [round(statistics.median(totals[i : i + len(asked)]), 2) for i in range(0, len(totals), len(asked))]
    return beyond | {
        "memories": count,
        "search_p50_ms": searched,
        "rounds_p50_ms": rounds,
        "stage_sum_ms": round(sum(medians.values()), 2),
        "stages": medians,
        "peak_rss_mb": own_peak_rss_mb(),
        "codes_wait_s": codes_wait,
    }


FRESH = """
import json, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from recall_stages import ZH_FIRST, prime, questions, wait_for_codes
from speed import own_peak_rss_mb
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.model.default_model import ensure_default_model
from hindsight_desktop.core.model.embedder import load_embedder
data, models, client, served = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[5] == "served"
client = None if client == "person" else client
asked = questions()
engine = MemoryEngine(data, embedder=load_embedder(ensure_default_model(models)))
prime(engine, asked)
started = time.perf_counter()
if served:  # as the app, serve and mcp do when they open the store (in the background there; joined here)
    engine.warm_up()
    wait_for_codes(engine)
warm_up = (time.perf_counter() - started) * 1000
started = time.perf_counter()
engine.search(asked[0], limit=10, client=client)
first = (time.perf_counter() - started) * 1000
def timed(texts):
    times = []
    for text in texts:
        started = time.perf_counter()
        engine.search(text, limit=10, client=client)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)
engine.parts.embed([ZH_FIRST], "query")
started = time.perf_counter()
engine.search(ZH_FIRST, limit=10, client=client)  # the first question in Chinese (segmentation's first use)
first_zh = (time.perf_counter() - started) * 1000
warm = timed(asked[1:25])  # right after the first: beside any background load it started
waited = wait_for_codes(engine)
settled = timed(asked[25:48])
engine.close()
print(json.dumps({"warm_up_ms": round(warm_up, 1), "first_search_ms": round(first, 1), "warm_p50_ms": warm,
                  "first_zh_ms": round(first_zh, 1),
                  "codes_wait_s": waited,
                  "settled_p50_ms": settled, "peak_rss_mb": own_peak_rss_mb()}))
"""


def fresh(data: Path, models: Path, client: str, served: bool = False) -> dict[str, float]:
    """A new process's first searches; `served`: after the engine's warm-up, as a served process runs it."""
    how = "served" if served else "plain"
    out = subprocess.run(
        # -P: without it `-c` puts the working folder first on the path, and a checkout run from there (not
        # the one PYTHONPATH names, when comparing two trees) is what would be measured.
        [sys.executable, "-P", "-c", FRESH, str(data), str(models), client, str(Path(__file__).parent), how],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _workdir(store: Path | None) -> Iterator[Path]:
    import tempfile

    if store is not None:
        store.mkdir(parents=True, exist_ok=True)
        yield store
        return
    with tempfile.TemporaryDirectory(prefix="hindsight-stages-") as tmp:
        yield Path(tmp)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--store", type=Path, help="keep (and reuse) the filled stores in this folder")
    parser.add_argument(
        "--client", default="claude", help="who searches (others' private memories hidden); 'person': the person"
    )
    parser.add_argument("--fill-only", action="store_true")
    parser.add_argument(
        "--direct", action="store_true", help="fill new stores through the storage layer (for 1M), not the import"
    )
    parser.add_argument("--no-fresh", action="store_true", help="skip the fresh process's first search")
    parser.add_argument(
        "--after-write", action="store_true", help="each search right after a write (on a copy of each store)"
    )
    parser.add_argument(
        "--with-model", action="store_true", help="each search embeds its question: the part beyond the model"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    rows = []
    for work in _workdir(args.store):
        for size in sizes:
            data, models = filled(work, size, args.direct)
            if args.fill_only:
                continue
            # Each size in its own process, so one size's cache and arrays do not weigh on the next.
            out = subprocess.run(
                [sys.executable, __file__, "--one", str(data), str(models), str(args.samples), args.client]
                + (["--after-write"] if args.after_write else [])
                + (["--with-model"] if args.with_model else []),
                check=True,
                capture_output=True,
                text=True,
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            if not args.no_fresh:
                row["fresh"] = fresh(data, models, args.client)
                row["served"] = fresh(data, models, args.client, served=True)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    if args.fill_only:
        return 0
    if args.json:
        print(json.dumps(rows))
        return 0
    stages = list(dict.fromkeys(stage for _, _, stage in STAGES))
    print("| stage (p50, ms) | " + " | ".join(f"{r['memories']:,}" for r in rows) + " |")
    print("|---|" + "---:|" * len(rows))
    for stage in stages:
        cells = [str(r["stages"].get(stage, "-")) for r in rows]
        print(f"| {stage} | " + " | ".join(cells) + " |")
    print("| sum of stage medians | " + " | ".join(str(r["stage_sum_ms"]) for r in rows) + " |")
    cached = "" if args.with_model else " (embedding cached)"
    print(f"| search p50{cached} | " + " | ".join(str(r["search_p50_ms"]) for r in rows) + " |")
    if args.with_model:
        print("| the model alone, p50 | " + " | ".join(str(r["model_p50_ms"]) for r in rows) + " |")
        print("| beyond the model (search less model) | " + " | ".join(str(r["beyond_model_ms"]) for r in rows) + " |")
    each = (" / ".join(map(str, r["rounds_p50_ms"])) for r in rows)
    print("| each round of the questions, p50 | " + " | ".join(each) + " |")
    print("| peak RSS, MB | " + " | ".join(str(r["peak_rss_mb"]) for r in rows) + " |")
    if not args.no_fresh:
        print(
            "| fresh process: first search / next 24 p50 / p50 once settled, ms | "
            + " | ".join(
                f"{r['fresh']['first_search_ms']} / {r['fresh']['warm_p50_ms']} / {r['fresh'].get('settled_p50_ms')}"
                for r in rows
            )
            + " |"
        )
        print(
            "| served process (the engine's warm-up first): warm-up / first search / next 24 p50, ms | "
            + " | ".join(
                f"{r['served']['warm_up_ms']} / {r['served']['first_search_ms']} / {r['served']['warm_p50_ms']}"
                for r in rows
            )
            + " |"
        )
        print(
            "| first Chinese question (fresh / served), ms | "
            + " | ".join(f"{r['fresh'].get('first_zh_ms')} / {r['served'].get('first_zh_ms')}" for r in rows)
            + " |"
        )
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        found = measure(
            Path(sys.argv[2]),
            Path(sys.argv[3]),
            int(sys.argv[4]),
            sys.argv[5],
            "--after-write" in sys.argv,
            "--with-model" in sys.argv,
        )
        print(json.dumps(found))
        sys.exit(0)
    sys.exit(main())
