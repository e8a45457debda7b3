"""Whether two versions of the code rank a large store alike: every result of every search, to the bit.

    python bench/ranking_identity.py --store DIR/100000 --out before.json      # with one version's code
    python bench/ranking_identity.py --store DIR/100000 --out after.json       # with the other's
    python bench/ranking_identity.py --compare before.json after.json

`--store` is a folder of bench/recall_stages.py's (`data/`, `models/`). The data folder is copied first (a
search logs accesses, and the writes below change the store), the clock is fixed, and the engine warms up
as a served process does. Then recall_stages' 48 questions are asked as `claude`, `cursor` and the person,
and 48 more as `claude` with a memory written before every other one (a private one of `cursor`'s every
sixth). Each search's results are kept whole: id, relevance and confidence as exact floats, every signal's
score. Each search's accesses are written before the next search (they are written after the answer, on
another thread, so a run would not equal itself). Speed changes must leave these identical.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from recall_stages import prime, questions, wait_for_codes  # noqa: E402

from hindsight_desktop.core.engine import MemoryEngine  # noqa: E402
from hindsight_desktop.core.model.default_model import ensure_default_model  # noqa: E402
from hindsight_desktop.core.model.embedder import load_embedder  # noqa: E402

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ASKERS = ["claude", "cursor", None]  # None: the person, who sees every memory


def _hits(engine: MemoryEngine, question: str, client: str | None, probes: dict[str, str]) -> list[list[Any]]:
    """The results, a probe written here named by its place (a new memory's id differs run to run)."""
    result = engine.search(question, limit=10, client=client)
    engine._access.flush()  # each search's accesses land before the next: the access signal is then fixed
    return [
        [probes.get(h.memory.id, h.memory.id), repr(h.relevance), repr(h.confidence), h.scores] for h in result.hits
    ]


def rankings(store: Path) -> list[dict[str, Any]]:
    """Every search's results, in the order asked, on a copy of the store."""
    asked = questions()
    out: list[dict[str, Any]] = []
    probes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="hindsight-identity-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(store / "data", data)
        embedder = load_embedder(ensure_default_model(store / "models"))
        with MemoryEngine(data, embedder=embedder, clock=lambda: NOW) as engine:
            prime(engine, asked)
            engine.warm_up()
            wait_for_codes(engine)
            for client in ASKERS:
                for question in asked:
                    hits = _hits(engine, question, client, probes)
                    out.append({"client": client, "question": question, "hits": hits})
            for i, question in enumerate(asked):
                if i % 2 == 0:
                    writer = "cursor" if i % 6 == 0 else "claude"
                    written = engine.write(
                        f"Identity probe {i}: the spare key for {question[:30]} is in drawer {i}",
                        client=writer,
                        explicit=True,
                        scope="private" if writer == "cursor" else "shared",
                    )
                    probes[written.id] = f"probe {i}"
                hits = _hits(engine, question, "claude", probes)
                out.append({"client": "claude", "question": question, "hits": hits})
    return out


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    same = sum(x == y for x, y in zip(a, b, strict=False))
    print(json.dumps({"searches": len(a), "identical": same, "lengths_match": len(a) == len(b)}))
    for x, y in zip(a, b, strict=False):
        if x != y:
            print(json.dumps({"first_difference": x["question"], "client": x["client"]}))
            break
    return 0 if same == len(a) == len(b) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="a folder with data/ and models/ (bench/recall_stages.py's)")
    parser.add_argument("--out", type=Path, help="where to write the rankings (JSON)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.store is None or args.out is None:
        parser.error("--store and --out, or --compare")
    found = rankings(args.store)
    args.out.write_text(json.dumps(found))
    print(json.dumps({"searches": len(found), "out": str(args.out)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
