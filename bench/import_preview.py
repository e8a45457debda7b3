"""What the app's import costs with its preview: the dry run and then the import of one file, read and
parsed once (`plan_import`, the preview's vectors kept for the import), against the old way (two
`import_file` calls, each reading, parsing and embedding the whole file).

    python bench/import_preview.py [--memories 400] [--runs 3]

A "lines" file (one memory a line, as ChatGPT's export) of --memories generated texts and an own-format
JSON bundle of the same memories; each measured into a fresh data folder. Medians over the runs, wall
time; prints a table, asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_load import corpus  # noqa: E402  (the load bench's generated memories)

from hindsight_desktop.core.engine import MemoryEngine  # noqa: E402
from hindsight_desktop.core.model.default_model import ensure_default_model  # noqa: E402


def _engine(folder: Path) -> MemoryEngine:
    ensure_default_model(folder / "models")
    return MemoryEngine(folder)


def _old_way(folder: Path, path: Path, fmt: str | None) -> tuple[float, float]:
    with _engine(folder) as engine:
        start = time.perf_counter()
        engine.import_file(path, fmt, dry_run=True)
        middle = time.perf_counter()
        engine.import_file(path, fmt)
        return middle - start, time.perf_counter() - middle


def _planned(folder: Path, path: Path, fmt: str | None) -> tuple[float, float]:
    with _engine(folder) as engine:
        start = time.perf_counter()
        plan = engine.plan_import(path, fmt)
        engine.run_import_plan(plan, dry_run=True)
        middle = time.perf_counter()
        engine.run_import_plan(plan)
        return middle - start, time.perf_counter() - middle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    # The memory files' keys stay out of this account's keyring (the key is kept beside each folder).
    os.environ.update({"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "HINDSIGHT_TOKEN_STORE": "file"})
    with tempfile.TemporaryDirectory(prefix="hd-import-bench-") as tmp:
        root = Path(tmp)
        texts = [text for text, _person in corpus(args.memories, seed=7)]
        lines = root / "memories.txt"
        lines.write_text("\n".join(t.replace("\n", " ") for t in texts) + "\n", encoding="utf-8")
        bundle = root / "memories.json"
        with _engine(root / "source") as source:
            for text in texts:
                source.write(text, client="claude-desktop", explicit=True)
            source.export("json", str(bundle))
        print(f"{args.memories} memories, median of {args.runs} runs (seconds)")
        print(f"{'file':<8} {'way':<22} {'preview':>8} {'import':>8} {'both':>8}")
        for label, path, fmt in (("lines", lines, "lines"), ("json", bundle, None)):
            for way, measure in (("two import_file calls", _old_way), ("plan, kept vectors", _planned)):
                times = [measure(root / f"{label}-{way[:3]}-{run}", path, fmt) for run in range(args.runs)]
                preview = statistics.median(t[0] for t in times)
                imported = statistics.median(t[1] for t in times)
                both = statistics.median(t[0] + t[1] for t in times)
                print(f"{label:<8} {way:<22} {preview:8.2f} {imported:8.2f} {both:8.2f}")


if __name__ == "__main__":
    main()
