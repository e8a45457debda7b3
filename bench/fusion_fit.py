"""Fit recall's fusion (core/recall/fusion.py) from cached candidate signals, with cross-validation.

Two steps, so that weight trials never re-run recall (a LoCoMo pass takes minutes on a shared machine):

    python bench/fusion_fit.py dump --locomo ../shared/bench/locomo-dev.json --zh --out /tmp/fusion-cache.jsonl
    python bench/fusion_fit.py fit --cache /tmp/fusion-cache.jsonl [--write] [--json]

`dump` builds each store once through the real engine (LoCoMo: every turn of a conversation, as
bench/locomo_recall.py does; the Chinese set: bench/data/zh_memories.jsonl through the write gate, asked
at its reference time) and records, for every question, every candidate recall scored with its signals
(fusion.FEATURES) and how many of the question's gold memories it holds. The cache is evaluation data:
keep it out of the product.

`fit` fits, per question language, a listwise softmax model (each question's scores, through a
softmax, should put their weight on its gold candidates) with non-negative weights, so that more
evidence never lowers a score. Cross-validated across groups: LoCoMo's conversations (each held out
in turn), the Chinese set's questions in five folds (one person's store: there are no conversations
to split by). Recall@k on the held-out part is the share of a question's gold memories among the first k candidates, for
the learned and the hand-set fusion ranked the same way from the cache (no repeat demotion, no
successor order: the two are compared on equal terms; bench/locomo_recall.py measures the product).
With --write it fits on everything and writes the weights file, keeping the hand-set fusion for a
language where the learned one does not beat it on held-out data.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from hindsight_desktop.core.recall import fusion  # noqa: E402

KS = (5, 10, 25, 50)
FEATURES = fusion.FEATURES
ZH_FOLDS = 5
# Evidence the training sets hardly hold keeps at least its hand-set weight: LoCoMo has no flight
# numbers, order codes or "who is my manager now?" facts, so it cannot say what an exact code or the
# current statement of a fact is worth (the Chinese set and the unit tests rely on both).
FLOORED = ("entity", "fact")
TRAINED_ON = {"en": "locomo", "zh": "zh"}


# ---- dump ----------------------------------------------------------------------------------------


def _trace_search(engine: Any, text: str, limit: int) -> list[dict[str, Any]]:
    from hindsight_desktop.core.recall.hybrid import recall
    from hindsight_desktop.core.recall.query import Query

    trace: list[dict[str, Any]] = []
    q = Query(text=text, limit=limit)
    recall(engine.parts, q, engine.recall_weights, trace=trace)
    return trace


def _ids_of_rowids(engine: Any, rowids: list[int]) -> dict[int, str]:
    from hindsight_desktop.core.store import memories

    with engine.store.read() as db:
        loaded = memories.load_memories(db, rowids)
    return {rowid: m.id for rowid, m in loaded.items()}


def dump_locomo(path: Path, embedder: Any, workdir: Path, out: Any) -> int:
    import locomo_recall as lr

    from hindsight_desktop.core.engine import MemoryEngine

    count = 0
    for sample in json.loads(path.read_text(encoding="utf-8")):
        turns = lr.turns_of(sample["conversation"])
        known = {t[0] for t in turns}
        with MemoryEngine(workdir / sample["sample_id"], embedder=embedder) as engine:
            dia_of: dict[str, set[str]] = defaultdict(set)
            for dia, text, when, session in turns:
                result = engine.write(
                    text, occurred_at=when, session_id=f"{sample['sample_id']}-{session}", client="locomo", gate=False
                )
                dia_of[result.id].add(dia)
            for qa in sample["qa"]:
                category = int(qa.get("category", 0))
                gold = lr.evidence_ids(qa.get("evidence", []), known)
                if category not in (1, 2, 3, 4) or not gold:
                    continue
                trace = _trace_search(engine, qa["question"], max(KS))
                ids = _ids_of_rowids(engine, [t["rowid"] for t in trace])
                cands = [
                    [round(float(t[f]), 5) for f in FEATURES] + [len(dia_of[ids[t["rowid"]]] & set(gold))]
                    for t in trace
                    if t["rowid"] in ids
                ]
                row = {"set": "locomo", "group": sample["sample_id"], "category": str(category), "lang": "en"}
                out.write(json.dumps(row | {"gold": len(gold), "cands": cands}) + "\n")
                count += 1
        print(f"dumped {sample['sample_id']}", file=sys.stderr, flush=True)
    return count


def dump_zh(embedder: Any, workdir: Path, out: Any) -> int:
    import zh_recall as zr

    from hindsight_desktop.core.engine import MemoryEngine

    data = zr.load_set()
    now = [data.reference]
    count = 0
    with MemoryEngine(workdir / "zh", embedder=embedder, clock=lambda: now[0]) as engine:
        ours: dict[str, str] = {}
        for memory in data.memories:
            now[0] = memory["occurred"]
            result = engine.write(
                memory["text"], occurred_at=memory["occurred"], session_id=f"day-{memory['occurred'].date()}"
            )
            ours.setdefault(result.id, memory["id"])
        now[0] = data.reference
        for i, q in enumerate(data.questions):
            if q["category"] in zr.NO_ANSWER:
                continue
            trace = _trace_search(engine, q["text"], 10)
            ids = _ids_of_rowids(engine, [t["rowid"] for t in trace])
            gold = set(q["gold"])
            cands = [
                [round(float(t[f]), 5) for f in FEATURES] + [1 if ours.get(ids[t["rowid"]]) in gold else 0]
                for t in trace
                if t["rowid"] in ids
            ]
            lang = "zh" if q.get("lang") != "en" else "en"
            row = {"set": "zh", "group": f"zh-{i % ZH_FOLDS}", "category": q["category"], "lang": lang}
            # A question answered by any one gold memory: one found is the whole answer.
            out.write(json.dumps(row | {"gold": 1, "any": True, "cands": cands}, ensure_ascii=False) + "\n")
            count += 1
    print("dumped the Chinese set", file=sys.stderr, flush=True)
    return count


# ---- fit -----------------------------------------------------------------------------------------


def load_cache(path: Path) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            matrix = np.asarray(row["cands"], dtype=np.float64).reshape(-1, len(FEATURES) + 1)
            row["x"], row["y"] = matrix[:, :-1], matrix[:, -1]
            del row["cands"]
            rows.append(row)
    return rows


def weights_vector(model: fusion.Fusion) -> np.ndarray:
    return np.array([model.weights.get(f, 0.0) for f in FEATURES])


def recall_at(rows: list[dict[str, Any]], w: np.ndarray) -> dict[str, float]:
    out = {}
    for k in KS:
        total = 0.0
        for row in rows:
            order = np.argsort(-(row["x"] @ w), kind="stable")[:k]
            found = row["y"][order]
            total += float(found.max() > 0) if row.get("any") else float(found.sum()) / row["gold"]
        out[str(k)] = round(total / len(rows), 4) if rows else 0.0
    return out


def _padded(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Questions as one array: signals [question, candidate, feature], a mask of real candidates, and
    each candidate's share of the question's gold (what a perfect order puts first)."""
    width = max(len(r["y"]) for r in rows)
    x = np.zeros((len(rows), width, len(FEATURES)))
    mask = np.zeros((len(rows), width), dtype=bool)
    target = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        n = len(row["y"])
        x[i, :n], mask[i, :n], target[i, :n] = row["x"], True, row["y"] / row["y"].sum()
    return x, mask, target


def fit(rows: list[dict[str, Any]], l2: float = 0.01, temperature: float = 10.0, steps: int = 800) -> np.ndarray:
    """Listwise softmax regression (ListNet): per question, the softmax of the scores should put the
    probability on its gold candidates. Non-negative weights, pulled towards the hand-set ones by `l2`
    so that a signal the data says little about keeps its old weight. Adam, projected."""
    hand = weights_vector(fusion.HAND_SET)
    rows = [r for r in rows if r["y"].sum() > 0]
    if not rows:
        return hand
    x, mask, target = _padded(rows)
    floor = np.array([hand[i] if f in FLOORED else 0.0 for i, f in enumerate(FEATURES)])
    w = hand.copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    lr, b1, b2 = 0.02, 0.9, 0.999
    for t in range(1, steps + 1):
        s = np.where(mask, temperature * (x @ w), -1e9)
        p = np.exp(s - s.max(axis=1, keepdims=True)) * mask
        p /= p.sum(axis=1, keepdims=True)
        grad = temperature * np.einsum("qc,qcf->f", p - target, x) / len(rows) + l2 * (w - hand)
        m, v = b1 * m + (1 - b1) * grad, b2 * v + (1 - b2) * grad**2
        w = np.maximum(floor, w - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + 1e-8))
    return np.maximum(floor, _rescale(w, rows))


def _rescale(w: np.ndarray, rows: list[dict[str, Any]]) -> np.ndarray:
    """The same spread of scores as the hand-set fusion: recall's repeat penalty and superseded factor
    are set on that scale."""
    x = np.concatenate([row["x"] for row in rows])
    hand = x @ weights_vector(fusion.HAND_SET)
    mine = x @ w
    return w * (hand.std() / mine.std()) if mine.std() > 0 else w


def by_category(rows: list[dict[str, Any]], w: np.ndarray) -> dict[str, dict[str, float]]:
    cats: dict[str, list] = defaultdict(list)
    for row in rows:
        cats[row["category"]].append(row)
    return {c: recall_at(v, w) for c, v in sorted(cats.items())}


def cross_validate(rows: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    groups = sorted({row["group"] for row in rows})
    learned_rows: list[tuple[dict[str, Any], np.ndarray]] = []
    folds = []
    hand = weights_vector(fusion.HAND_SET)
    for held in groups:
        train = [r for r in rows if r["group"] != held]
        test = [r for r in rows if r["group"] == held]
        w = fit(train, **kw)
        learned_rows += [(r, w) for r in test]
        folds.append({"held_out": held, "learned": recall_at(test, w), "hand_set": recall_at(test, hand)})

    def pooled(select: list[tuple[dict[str, Any], np.ndarray]]) -> dict[str, float]:
        out = {}
        for k in KS:
            part = [recall_at([r], w)[str(k)] for r, w in select]
            out[str(k)] = round(float(np.mean(part)), 4) if part else 0.0
        return out

    cats = sorted({r["category"] for r in rows})
    return {
        "questions": len(rows),
        "folds": folds,
        "learned": pooled(learned_rows),
        "hand_set": recall_at(rows, hand),
        "learned_by_category": {c: pooled([p for p in learned_rows if p[0]["category"] == c]) for c in cats},
        "hand_set_by_category": by_category(rows, hand),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    d = sub.add_parser("dump", help="run recall once per question and cache every candidate's signals")
    d.add_argument("--locomo", type=Path, help="LoCoMo-format JSON (evaluation data)")
    d.add_argument("--zh", action="store_true", help="also the Chinese set (bench/data/zh_*.jsonl)")
    d.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit", help="cross-validate and (with --write) write the weights file")
    f.add_argument("--cache", type=Path, required=True)
    f.add_argument("--write", action="store_true", help=f"write {fusion.WEIGHTS_FILE.name}")
    f.add_argument("--json", action="store_true")
    f.add_argument(
        "--folds-out",
        type=Path,
        help="also write, per LoCoMo conversation, the weights fitted without it (<sample_id>.json), for "
        "bench/locomo_recall.py --fusion-folds",
    )
    args = parser.parse_args(argv)

    if args.step == "dump":
        from hindsight_desktop.core.model.default_model import ensure_default_model
        from hindsight_desktop.core.model.embedder import load_embedder

        with tempfile.TemporaryDirectory(prefix="hindsight-fusion-") as tmp, open(args.out, "w") as out:
            embedder = load_embedder(ensure_default_model(Path(tmp) / "models"))
            n = dump_locomo(args.locomo, embedder, Path(tmp), out) if args.locomo else 0
            n += dump_zh(embedder, Path(tmp), out) if args.zh else 0
        print(f"{n} questions cached in {args.out}")
        return 0

    rows = load_cache(args.cache)
    report: dict[str, Any] = {}
    languages: dict[str, Any] = {}
    for language in sorted({r["lang"] for r in rows}):
        # English is fitted on LoCoMo, Chinese on the Chinese set (its English questions are too few).
        mine = [r for r in rows if r["lang"] == language and r["set"] == TRAINED_ON[language]]
        cv = cross_validate(mine)
        w = fit(mine)
        better = cv["learned"]["10"] > cv["hand_set"]["10"] and cv["learned"]["5"] >= cv["hand_set"]["5"] - 0.005
        cv["weights"] = {f: round(float(x), 4) for f, x in zip(FEATURES, w, strict=True)}
        cv["shipped"] = "learned" if better else "hand-set"
        report[language] = cv
        if better:
            languages[language] = {
                "weights": {f: x for f, x in cv["weights"].items() if x > 0},
                "questions": len(mine),
                "cv_r10": cv["learned"]["10"],
                "hand_set_cv_r10": cv["hand_set"]["10"],
            }
    if args.folds_out:
        args.folds_out.mkdir(parents=True, exist_ok=True)
        english = [r for r in rows if r["lang"] == "en" and r["set"] == "locomo"]
        for held in sorted({r["group"] for r in english}):
            w = fit([r for r in english if r["group"] != held])
            weights = {f: round(float(x), 4) for f, x in zip(FEATURES, w, strict=True) if x > 0}
            payload = {"held_out": held, "languages": {"en": {"weights": weights}}}
            (args.folds_out / f"{held}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    if args.write:
        payload = {
            "about": "recall's fusion weights per question language, fitted by bench/fusion_fit.py",
            "fitted_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "features": list(FEATURES),
            "languages": languages,
        }
        fusion.WEIGHTS_FILE.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report))
        return 0
    for language, cv in report.items():
        print(f"\n[{language}] {cv['questions']} questions, shipped: {cv['shipped']}")
        print(f"  {'':<22}" + "".join(f"R@{k:<6}" for k in KS))
        print(f"  {'hand-set':<22}" + "".join(f"{cv['hand_set'][str(k)]:<8.3f}" for k in KS))
        print(f"  {'learned (held out)':<22}" + "".join(f"{cv['learned'][str(k)]:<8.3f}" for k in KS))
        for c in cv["hand_set_by_category"]:
            hand, learned = cv["hand_set_by_category"][c], cv["learned_by_category"][c]
            print(f"  {'  cat ' + c + ' hand':<22}" + "".join(f"{hand[str(k)]:<8.3f}" for k in KS))
            print(f"  {'  cat ' + c + ' learned':<22}" + "".join(f"{learned[str(k)]:<8.3f}" for k in KS))
        for fold in cv["folds"]:
            hand, learned = fold["hand_set"]["10"], fold["learned"]["10"]
            print(f"  fold {fold['held_out']}: hand R@10 {hand:.3f}  learned {learned:.3f}")
        print("  weights: " + ", ".join(f"{k} {v:.3f}" for k, v in cv["weights"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
