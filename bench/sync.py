"""Sync through a folder: what it costs in the folder and in time.

    python bench/sync.py [--size 10000] [--rounds 15] [--skip-reembed] [--json]

- bytes in the folder per memory, and per 10k memories, after device A has written --size memories
  and sent them (`sync now`);
- time for device B to apply them all from the folder (its join, which runs the first sync), twice: with
  carried vectors (B uses A's model, so the vectors travel and nothing is embedded again) and without
  (B uses another model, the packaged e5-small pruned to English and Portuguese, so every text is
  embedded again on arrival);
- time from `write` on A to the memory found by search on B through the folder, median of --rounds:
  A writes, A syncs, B syncs, B searches. Both devices read one folder on this disk, so the sync service's
  own delay (a scan, a transfer) is left out by construction.

A is filled through the import path (a JSONL bundle with embeddings, as bench/maintenance.py builds it),
after sync was set up, so the import is recorded as changes like any write. Keys go to the data folders'
fallback files, never into your keyring.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Before anything opens a keyring: the bench's keys stay in its temporary folders.
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
os.environ.setdefault("HINDSIGHT_TOKEN_STORE", "file")

from hindsight_desktop.core.engine import MemoryEngine  # noqa: E402
from hindsight_desktop.core.model.default_model import ensure_default_model  # noqa: E402
from hindsight_desktop.core.model.embedder import load_embedder  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from maintenance import _second_model, fill  # noqa: E402  (the maintenance bench's store filler and model)


def folder_bytes(folder: Path) -> tuple[int, int]:
    """(bytes, files) of everything in the sync folder."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def timed(fn: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def apply_on_new_device(root: Path, name: str, folder: Path, code: str, embedder: Any, size: int) -> dict[str, Any]:
    """A fresh device joins and applies everything in the folder; returns the timing."""
    with MemoryEngine(root / name, embedder=embedder) as device:
        joined, seconds = timed(lambda: device.sync_join(folder, code, name=name))  # joining applies at once
        report = joined["sync"]
        count = device.stats()["memories"]
    return {
        "applied": report["applied"],
        "memories": count,
        "seconds": round(seconds, 2),
        "per_10k_seconds": round(seconds / (size / 10_000), 2),
        "memories_per_s": round(count / seconds, 1) if seconds else None,
        "refused": len(report.get("refused") or []),
    }


def add_to_found(a: MemoryEngine, b: MemoryEngine, rounds: int) -> dict[str, Any]:
    """Median seconds from a write on A to a search on B that finds it, through the folder."""
    times, misses = [], 0
    for i in range(rounds):
        text = f"Bench round {i}: the violin lesson with Ines moved to Thursday {i} at 17:{i:02d}."
        started = time.perf_counter()
        written = a.write(text, explicit=True)
        a.sync_now()
        b.sync_now()
        hits = b.search(f"violin lesson Ines Thursday {i}", limit=5, log=False).hits
        elapsed = time.perf_counter() - started
        if any(hit.memory.id == written.id for hit in hits):
            times.append(elapsed)
        else:
            misses += 1
    return {
        "rounds": rounds,
        "found": len(times),
        "missed": misses,
        "median_ms": round(statistics.median(times) * 1000, 1) if times else None,
        "max_ms": round(max(times) * 1000, 1) if times else None,
    }


def measure(size: int, rounds: int, reembed: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hindsight-sync-bench-") as tmp:
        root = Path(tmp)
        models, folder = root / "models", root / "folder"
        folder.mkdir()
        embedder = load_embedder(ensure_default_model(models))
        with MemoryEngine(root / "a", embedder=embedder) as a:
            code = a.sync_setup(folder, name="a")["code"]
            empty_bytes, _ = folder_bytes(folder)
        filled = fill(root / "a", models, size)  # the import, recorded as changes
        with MemoryEngine(root / "a", embedder=embedder) as a:
            sent, send_s = timed(a.sync_now)
        total, files = folder_bytes(folder)
        result: dict[str, Any] = {
            "memories": size,
            "import_seconds": filled["import_seconds"],
            "send_seconds": round(send_s, 2),
            "sent": sent["sent"],
            "folder_bytes": total,
            "folder_files": files,
            "bytes_per_memory": round((total - empty_bytes) / size, 1),
            "mb_per_10k": round((total - empty_bytes) / size * 10_000 / 1e6, 2),
        }
        result["apply_with_vectors"] = apply_on_new_device(root, "b", folder, code, embedder, size)
        if reembed:
            other = load_embedder(_second_model(root, None))
            result["apply_without_vectors"] = apply_on_new_device(root, "c", folder, code, other, size)
            result["apply_without_vectors"]["model"] = other.model_id
        with MemoryEngine(root / "a", embedder=embedder) as a, MemoryEngine(root / "b", embedder=embedder) as b:
            a.search("warm the vector cache", log=False)
            b.search("warm the vector cache", log=False)
            result["add_to_found"] = add_to_found(a, b, rounds)
        result["folder_bytes_after"] = folder_bytes(folder)[0]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--skip-reembed", action="store_true", help="leave out the apply without carried vectors")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.size, args.rounds, not args.skip_reembed)
    if args.json:
        print(json.dumps(result))
        return 0
    with_v, found = result["apply_with_vectors"], result["add_to_found"]
    without = result.get("apply_without_vectors")
    print("| memories | bytes/memory | MB per 10k | apply, vectors carried | apply, re-embedded | add → found on B |")
    print("|---:|---:|---:|---:|---:|---:|")
    reembedded = f"{without['seconds']} s ({without['memories_per_s']}/s)" if without else "skipped"
    print(
        f"| {result['memories']:,} | {result['bytes_per_memory']} | {result['mb_per_10k']} "
        f"| {with_v['seconds']} s ({with_v['memories_per_s']}/s) | {reembedded} | {found['median_ms']} ms median |"
    )
    print(json.dumps(result, indent=2), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
