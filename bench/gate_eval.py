"""How well does the write gate separate what is worth keeping from chatter?

Runs the gate over tests/data/gate_labelled.jsonl (keep=true is the positive class) with
novelty=1.0, as for a fresh store, once on rules alone and once with the real model, and prints
precision, recall, F1 and accuracy overall and per language, plus every misclassified text.

With the model it also writes tests/data/gate_sequences.jsonl, in order, into one fresh store
through the real engine, so that what is already stored moves novelty and duplicate detection as
it does for a person: a message counts as kept when it was stored as a new long-term memory (not
left in working memory, not taken as a repeat of an earlier one). Its recall is the share of the
memories worth keeping that were kept (target >= 0.97).

    python bench/gate_eval.py                 # readable report
    python bench/gate_eval.py --json          # one JSON object
    python bench/gate_eval.py --rules-only    # skip the model (and the sequence)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from hindsight_desktop.core.write.gate import WriteScorer  # noqa: E402

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import MemoryEngine

LABELLED = ROOT / "tests" / "data" / "gate_labelled.jsonl"
SEQUENCES = ROOT / "tests" / "data" / "gate_sequences.jsonl"


def load_labelled(path: Path = LABELLED) -> list[dict[str, Any]]:
    """The labelled messages, one dict per line: text, keep, lang, kind."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def metrics(rows: list[dict[str, Any]], predicted: list[bool]) -> dict[str, float | int]:
    """Precision, recall, F1 and accuracy with keep=true as the positive class."""
    tp = sum(1 for r, p in zip(rows, predicted, strict=True) if p and r["keep"])
    fp = sum(1 for r, p in zip(rows, predicted, strict=True) if p and not r["keep"])
    fn = sum(1 for r, p in zip(rows, predicted, strict=True) if not p and r["keep"])
    tn = len(rows) - tp - fp - fn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = (tp + tn) / len(rows) if rows else 0.0
    return {
        "n": len(rows),
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "accuracy": round(accuracy, 4),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
    }


def evaluate(scorer: WriteScorer, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Score every row with novelty=1.0; return metrics overall, per language, and the misses."""
    started = time.perf_counter()
    scores = [scorer.score(r["text"], novelty=1.0) for r in rows]
    elapsed_ms = (time.perf_counter() - started) * 1000
    predicted = [s.passed for s in scores]
    report: dict[str, Any] = {"overall": metrics(rows, predicted), "per_language": {}}
    for language in sorted({r["lang"] for r in rows}):
        pairs = [(r, p) for r, p in zip(rows, predicted, strict=True) if r["lang"] == language]
        report["per_language"][language] = metrics([r for r, _ in pairs], [p for _, p in pairs])
    report["misclassified"] = [
        {
            "text": r["text"],
            "lang": r["lang"],
            "kind": r["kind"],
            "expected": r["keep"],
            "score": s.score,
            "type": s.type,
            "reason": s.reason,
        }
        for r, s in zip(rows, scores, strict=True)
        if s.passed != r["keep"]
    ]
    report["mean_ms_per_score"] = round(elapsed_ms / max(1, len(rows)), 3)
    return report


def kept_as_new(result: Any) -> bool:
    """Stored as a new long-term memory: not left in working memory, not a repeat of an earlier one."""
    return bool(result.stored) and result.layer != "working" and result.duplicate_of is None


def evaluate_sequence(engine: MemoryEngine, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Write every row, in order, into `engine` (a fresh store); metrics overall, per language, misses."""
    started = time.perf_counter()
    results = [engine.write(r["text"], client="gate-eval", session_id="gate-sequence") for r in rows]
    elapsed_ms = (time.perf_counter() - started) * 1000
    predicted = [kept_as_new(w) for w in results]
    report: dict[str, Any] = {"overall": metrics(rows, predicted), "per_language": {}}
    for language in sorted({r["lang"] for r in rows}):
        pairs = [(r, p) for r, p in zip(rows, predicted, strict=True) if r["lang"] == language]
        report["per_language"][language] = metrics([r for r, _ in pairs], [p for _, p in pairs])
    report["misclassified"] = [
        {
            "position": i + 1,  # the line in the file
            "text": r["text"],
            "lang": r["lang"],
            "kind": r["kind"],
            "expected": r["keep"],
            "score": w.score,
            "novelty": w.signals.get("novelty"),
            "relevance": w.signals.get("relevance"),
            "layer": w.layer,
            "repeat": w.duplicate_of is not None,
            "reason": w.reason,
        }
        for i, (r, w, p) in enumerate(zip(rows, results, predicted, strict=True))
        if p != r["keep"]
    ]
    report["mean_ms_per_score"] = round(elapsed_ms / max(1, len(rows)), 3)
    return report


def _real_embedder(base: Path):
    from hindsight_desktop.core.model.default_model import ensure_default_model
    from hindsight_desktop.core.model.embedder import load_embedder

    return load_embedder(ensure_default_model(base / "models"))


def _run_sequence(embedder: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    from hindsight_desktop.core.engine import MemoryEngine

    with (
        tempfile.TemporaryDirectory(prefix="hindsight-gate-seq-") as tmp,
        MemoryEngine(Path(tmp) / "data", embedder=embedder) as engine,
    ):
        return evaluate_sequence(engine, rows)


def _print_report(name: str, report: dict[str, Any]) -> None:
    print(f"== {name} ({report['mean_ms_per_score']} ms per score)")
    header = f"  {'set':<8}{'n':>5}{'precision':>11}{'recall':>8}{'F1':>8}{'accuracy':>10}"
    print(header)
    blocks = {"all": report["overall"], **report["per_language"]}
    for label, m in blocks.items():
        print(f"  {label:<8}{m['n']:>5}{m['precision']:>11.3f}{m['recall']:>8.3f}{m['f1']:>8.3f}{m['accuracy']:>10.3f}")
    misses = report["misclassified"]
    print(f"  misclassified ({len(misses)}):")
    for miss in misses:
        want = "keep" if miss["expected"] else "drop"
        where = f"#{miss['position']} " if "position" in miss else ""
        extra = "".join(f", {name} {miss[name]:.2f}" for name in ("novelty", "relevance") if miss.get(name) is not None)
        extra += ", taken as a repeat" if miss.get("repeat") else ""
        print(
            f"    [{where}{miss['lang']} {miss['kind']}, want {want}, score {miss['score']:.2f}{extra}] {miss['text']}"
        )
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rules-only", action="store_true", help="do not load the model")
    parser.add_argument("--labelled", type=Path, default=LABELLED, help="the JSONL file to score")
    parser.add_argument("--sequences", type=Path, default=SEQUENCES, help="the JSONL sequence to write in order")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="cache the converted model here (default: convert afresh, so it is never stale)",
    )
    args = parser.parse_args(argv)

    rows = load_labelled(args.labelled)
    results: dict[str, Any] = {"labelled": str(args.labelled), "n": len(rows)}
    results["rules_only"] = evaluate(WriteScorer(), rows)
    if not args.rules_only:
        with tempfile.TemporaryDirectory(prefix="hindsight-gate-eval-") as tmp:
            embedder = _real_embedder(args.data_dir or Path(tmp))
            results["model"] = embedder.model_id
            results["with_model"] = evaluate(WriteScorer(embed=embedder.embed), rows)
            sequence = load_labelled(args.sequences)
            results["sequences"] = str(args.sequences)
            results["sequence"] = _run_sequence(embedder, sequence)

    if args.json:
        print(json.dumps(results, ensure_ascii=False))
        return 0
    print(f"write gate on {args.labelled.name}: {len(rows)} messages, novelty=1.0\n")
    _print_report("rules only", results["rules_only"])
    if "with_model" in results:
        _print_report(f"with model ({results['model']})", results["with_model"])
        seq = results["sequence"]
        print(
            f"sequence {args.sequences.name}: {seq['overall']['n']} messages written in order into one store; "
            f"kept of those worth keeping (recall) {seq['overall']['recall']:.3f}, target 0.97"
        )
        _print_report(f"sequence through the engine ({results['model']})", seq)
    return 0


if __name__ == "__main__":
    sys.exit(main())
