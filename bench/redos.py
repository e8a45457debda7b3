"""Hostile inputs against the engine's regular expressions, and what one hostile write costs the others.

    python bench/redos.py [--top 8] [--stand-in-model]

1. Every pattern the engine keeps (tests/support/redos.py collects them from the modules) meets the
   hostile runs built from it; the worst few are timed at 8K and 32K characters (best of 3), with
   the ratio 32K/8K (linear ~4, quadratic ~16). A time over 20 s is not run: it is extrapolated from
   the growth seen at smaller sizes and marked "~".
2. Client A writes each hostile 32 KB text while client B searches; B's slowest search during A's
   write, over B's median search alone. Both clients are threads of one process on one engine: the
   HTTP server runs every client's call in one process too, and what stalls B is the interpreter lock
   that `re` holds while it backtracks, which threads share exactly as the server's clients do.

`--stand-in-model` replaces the embedding model with hashed random vectors, for machines where
llama.cpp cannot run; the model's own time then counts in neither latency.
To compare with an older tree: PYTHONPATH=<old checkout> python bench/redos.py
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support import redos  # noqa: E402

from hindsight_desktop.core.engine import MemoryEngine  # noqa: E402

CAP_S = 20.0
HOSTILE_WRITES = {  # 32 KB each: the shapes and the ones the guard found
    "blank run between two words": "Ab " + " " * 32760 + " Cd",
    "'AB-' repeated": "AB-" * 10922,
    "'a.' repeated before ://": "a." * 16380 + " ://",
    "full-width digits": "１" * 10900,
    "'A-' repeated": "A-" * 16383,
    "'3pm ' repeated": "3pm " * 8190,
    "'我在'+'上学'...+'工作'": "我在" + "上学" * 5450 + "工作",
}
QUESTION = "where do I live?"


class StandInEmbedder:
    """Hashed random unit vectors with the real embedder's interface."""

    path = Path("stand-in.gguf")
    model_id = "stand-in:000000000000"
    dim = 384
    prefixes = {"query": "query: ", "passage": "passage: "}

    def token_ids(self, text: str, kind: str = "passage") -> list[int]:
        return [ord(c) % 1000 for c in text[:512]]

    def embed(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows)

    def embed_one(self, text: str, kind: str = "passage") -> np.ndarray:
        return self.embed([text], kind)[0]

    def close(self) -> None:
        pass


def _best(fn, text: str, runs: int = 3) -> float:
    return min(redos._time(fn, text) for _ in range(runs))


def patterns(top: int) -> None:
    started = time.perf_counter()
    sites = redos.collect()
    findings = [
        redos.worst(s.name, redos.finditer_all(s.pattern), redos.inputs(s.pattern), stop_at=None) for s in sites
    ]
    findings.sort(key=lambda f: f.weight, reverse=True)
    print(
        f"{len(sites)} patterns, searched in {time.perf_counter() - started:.0f} s; the {top} whose time grows fastest:"
    )
    print(f"  {'ms at 8K':>10} {'ms at 32K':>11} {'32K/8K':>7}  pattern: input")
    by_name = {s.name: s for s in sites}
    for f in findings[:top]:
        fn = redos.finditer_all(by_name[f.name].pattern)
        t8 = _best(fn, redos.build(f.unit, f.around, 8192)) if f.t_large * (8192 / f.large) ** 2 < CAP_S else None
        growth = max(f.ratio, 1.0)
        if t8 is None:
            t8_text, t32_text = "~%.0f" % (f.t_large * growth ** (np.log(8192 / f.large) / np.log(4)) * 1000), ""
            t32 = None
        else:
            t8_text = f"{t8 * 1000:.1f}"
            t32 = (
                _best(fn, redos.build(f.unit, f.around, 32768), 1 if t8 * growth > 1 else 3)
                if t8 * growth * 2 < CAP_S
                else None
            )
        if t32 is None:
            t32_text = "~%.0f" % (f.t_large * growth ** (np.log(32768 / f.large) / np.log(4)) * 1000)
            ratio = growth
        else:
            t32_text = f"{t32 * 1000:.1f}"
            ratio = t32 / t8 if t8 else growth
        print(f"  {t8_text:>10} {t32_text:>11} {ratio:7.1f}  {f.name}: {f.shape}")


def _search_times(engine: MemoryEngine, stop: threading.Event | None, count: int) -> list[float]:
    times = []
    while (stop is None and len(times) < count) or (stop is not None and not stop.is_set()):
        start = time.perf_counter()
        engine.search(QUESTION, client="client-b", log=False)
        times.append(time.perf_counter() - start)
    return times


def contention(engine: MemoryEngine) -> None:
    for text in (
        "I live in Berlin.",
        "我住在北京，下个月初去上海。",
        "My dentist appointment got moved to Friday at 3pm.",
    ):
        engine.write(text, client="client-b")
    _search_times(engine, None, 5)
    baseline = statistics.median(_search_times(engine, None, 40))
    print(f"\nclient B's search alone: median {baseline * 1000:.1f} ms; while client A writes 32 KB:")
    print(f"  {'A writes':32s} {'A s':>7} {'B max ms':>9} {'B median ms':>11} {'B max/alone':>11}")
    rows = []
    for name, text in HOSTILE_WRITES.items():
        stop = threading.Event()
        result: list[list[float]] = []
        reader = threading.Thread(target=lambda r=result, s=stop: r.append(_search_times(engine, s, 0)))
        reader.start()
        time.sleep(0.05)
        start = time.perf_counter()
        engine.write(text, client="client-a", gate=False)
        took = time.perf_counter() - start
        stop.set()
        reader.join()
        during = result[0] or [took]
        rows.append((took, name, max(during), statistics.median(during)))
    for took, name, most, middle in sorted(rows, reverse=True):
        print(f"  {name:32s} {took:7.2f} {most * 1000:9.1f} {middle * 1000:11.1f} {most / baseline:11.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--stand-in-model", action="store_true")
    args = parser.parse_args()
    patterns(args.top)
    if args.stand_in_model:
        embedder = StandInEmbedder()
    else:
        from hindsight_desktop.core.model.default_model import ensure_default_model
        from hindsight_desktop.core.model.embedder import load_embedder

        embedder = load_embedder(ensure_default_model(Path(tempfile.mkdtemp()) / "models"))
    with tempfile.TemporaryDirectory() as folder, MemoryEngine(Path(folder) / "data", embedder=embedder) as engine:
        contention(engine)


if __name__ == "__main__":
    main()
