"""Embedding latency of one sentence on an idle machine, next to a busy process, and beside a second
embedding process, with the embedder's own thread choice and with one thread fixed.

    python bench/embed_threads.py [--seconds 6]

Each case runs in fresh processes, since OpenMP reads its settings when it loads. Medians and 95th
percentiles of the calls made in the time given.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SENTENCE = "On Tuesday I met Caroline at the Lisbon office to plan the Q3 launch of the payments app."

WORKER = """
import json, statistics, sys, time
from pathlib import Path
from hindsight_desktop.core.model.embedder import Embedder
embedder = Embedder(Path(sys.argv[1]), threads=int(sys.argv[3]) or None)
for _ in range(10):
    embedder.embed([sys.argv[4]])
times, end = [], time.time() + float(sys.argv[2])
while time.time() < end:
    started = time.perf_counter()
    embedder.embed([sys.argv[4]])
    times.append((time.perf_counter() - started) * 1000)
    time.sleep(0.002)  # a little idle time between calls, as between a client's writes
times.sort()
print(json.dumps({"p50_ms": round(statistics.median(times), 2), "p95_ms": round(times[int(len(times) * 0.95)], 2)}))
"""

BUSY = "import time, sys\nend = time.time() + float(sys.argv[1])\nwhile time.time() < end:\n    pass\n"


def run_case(model: Path, seconds: float, fixed: int, neighbour: str) -> dict[str, float]:
    worker = [sys.executable, "-c", WORKER, str(model), str(seconds), str(fixed), SENTENCE]
    others: list[subprocess.Popen] = []
    if neighbour == "busy":
        others.append(subprocess.Popen([sys.executable, "-c", BUSY, str(seconds + 3)]))
    elif neighbour == "embedder":
        others.append(subprocess.Popen(worker, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        out = subprocess.run(worker, check=True, capture_output=True, text=True)
    finally:
        for other in others:
            other.wait()
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args(argv)
    from hindsight_desktop.core.model.default_model import ensure_default_model

    with tempfile.TemporaryDirectory(prefix="hindsight-threads-") as tmp:
        model = ensure_default_model(Path(tmp) / "models")
        print("| neighbour | chosen threads p50 | p95 | one thread p50 | p95 |")
        print("|---|---:|---:|---:|---:|")
        for neighbour in ("none", "busy", "embedder"):
            chosen = run_case(model, args.seconds, 0, neighbour)
            single = run_case(model, args.seconds, 1, neighbour)
            print(
                f"| {neighbour} | {chosen['p50_ms']} ms | {chosen['p95_ms']} ms "
                f"| {single['p50_ms']} ms | {single['p95_ms']} ms |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
