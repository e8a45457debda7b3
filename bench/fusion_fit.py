"""Fit recall's fusion (core/recall/fusion.py) from cached candidate signals, with cross-validation.

Two steps, so that weight trials never re-run recall (a LoCoMo pass takes minutes on a shared machine):

    python bench/fusion_fit.py dump --locomo ../shared/bench/locomo-dev.json --zh --out /tmp/fusion-cache.jsonl
    python bench/fusion_fit.py fit --cache /tmp/fusion-cache.jsonl [--method NAME] [--write] [--json]
    python bench/fusion_fit.py variants --cache /tmp/fusion-cache.jsonl [--only a,b] [--out t.json]

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

`variants` compares the fits of methods() on English (LoCoMo), each held out per conversation, by R@5
and R@10 overall and per category beside the hand-set fusion (a "!" marks a category below it): the
plain fit, one whose categories weigh the same, guards that push back a category whose training loss
rises above the hand-set fusion's, shrinkage towards the hand-set weights, and blends or settings
chosen by an inner leave-one-conversation-out. `fit --method` ships one (SHIPPED_METHOD by default).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
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
# How soft _soft_recall's count of the candidates above a gold one is, in units of the fit's scaled scores.
_RANK_SOFTNESS = 0.5
_SOFT_TOP = 30
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


def _question_weights(rows: list[dict[str, Any]], balance: bool) -> np.ndarray:
    """Each question's share of the loss: equal, or (balance) equal per category, so that the small
    categories (LoCoMo's open-domain questions are a tenth of its dev set) count as much as the large."""
    if not balance:
        return np.full(len(rows), 1.0 / len(rows))
    sizes: dict[str, int] = defaultdict(int)
    for row in rows:
        sizes[row["category"]] += 1
    a = np.array([1.0 / sizes[row["category"]] for row in rows])
    return a / a.sum()


def _listwise(w: np.ndarray, x: np.ndarray, mask: np.ndarray, target: np.ndarray, temperature: float):
    """Per question: the cross-entropy of the gold share against the softmax of the scores, and the
    gradient of each question's loss as [question, feature]."""
    s = np.where(mask, temperature * (x @ w), -1e9)
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s) * mask
    z = p.sum(axis=1, keepdims=True)
    p /= z
    logp = np.where(mask, s - np.log(z), 0.0)
    loss = -(target * logp).sum(axis=1)
    return loss, temperature * np.einsum("qc,qcf->qf", p - target, x)


def _soft_recall(s: np.ndarray, mask: np.ndarray, y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A smooth recall@k per question from its scores `s` [question, candidate], and its gradient in the
    scores: a gold candidate's rank is one plus the (sigmoid-softened) count of candidates scored above
    it, and it counts as found by a sigmoid of how far that rank is above k."""
    diff = s[:, None, :] - s[:, :, None]  # [q, g, j]: how far j is above gold g
    pair = mask[:, None, :] & mask[:, :, None] & ~np.eye(s.shape[1], dtype=bool)[None]
    above = np.where(pair, 1.0 / (1.0 + np.exp(-np.clip(diff / _RANK_SOFTNESS, -50, 50))), 0.0)
    rank = 1.0 + above.sum(axis=2)
    found = 1.0 / (1.0 + np.exp(-np.clip(k + 0.5 - rank, -50, 50)))
    share = y / np.maximum(y.sum(axis=1, keepdims=True), 1e-9)
    coef = share * -found * (1.0 - found)  # d recall / d rank of each gold candidate
    slope = above * (1.0 - above) / _RANK_SOFTNESS
    grad = np.einsum("qg,qgj->qj", coef, slope) - coef * slope.sum(axis=2)
    return (share * found).sum(axis=1), grad


def _top(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each question's _SOFT_TOP best-scored candidates (a gold one further down is not found at 10
    whatever the rest: leaving the others out keeps the pairwise ranks cheap)."""
    depth = min(_SOFT_TOP, scores.shape[1])
    return np.argsort(-np.where(mask, scores, -1e9), axis=1, kind="stable")[:, :depth]


def fit(
    rows: list[dict[str, Any]],
    l2: float = 0.01,
    temperature: float = 10.0,
    steps: int = 800,
    balance: bool = False,
    guard: float = 0.0,
    rank_guard: float = 0.0,
) -> np.ndarray:
    """Listwise softmax regression (ListNet): per question, the softmax of the scores should put the
    probability on its gold candidates. Non-negative weights, pulled towards the hand-set ones by `l2`
    so that a signal the data says little about keeps its old weight. Adam, projected.

    `balance` weighs the categories equally; `guard` adds, for every category whose training loss is
    above the hand-set fusion's, that excess times `guard`: a fit that buys one category's questions
    with another's is pushed back towards the hand-set order in the one it would lose. `rank_guard` does
    the same with what the check reads: for every category whose smooth recall@5 or @10 (_soft_recall)
    is below the hand-set fusion's, that shortfall times `rank_guard`."""
    hand = weights_vector(fusion.HAND_SET)
    rows = [r for r in rows if r["y"].sum() > 0]
    if not rows:
        return hand
    x, mask, target = _padded(rows)
    a = _question_weights(rows, balance)
    cats = sorted({r["category"] for r in rows})
    member = np.array([[r["category"] == c for r in rows] for c in cats], dtype=np.float64)
    member /= member.sum(axis=1, keepdims=True)
    hand_loss = member @ _listwise(hand, x, mask, target, temperature)[0]
    gold = target * mask
    top = _top(x @ hand, mask)
    hs, hm, hg = (
        np.take_along_axis(x, top[..., None], 1) @ hand,
        np.take_along_axis(mask, top, 1),
        np.take_along_axis(gold, top, 1),
    )
    hand_soft = {k: member @ _soft_recall(temperature * hs, hm, hg, k)[0] for k in (5, 10)}
    floor = np.array([hand[i] if f in FLOORED else 0.0 for i, f in enumerate(FEATURES)])
    w = hand.copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    lr, b1, b2 = 0.02, 0.9, 0.999
    for t in range(1, steps + 1):
        loss, per_q = _listwise(w, x, mask, target, temperature)
        grad = a @ per_q + l2 * (w - hand)
        if guard > 0:
            over = (member @ loss) > hand_loss
            if over.any():
                grad += guard * (member[over] @ per_q).sum(axis=0)
        if rank_guard > 0:
            for k in (5, 10):
                top = _top(x @ w, mask)
                xs, ms = np.take_along_axis(x, top[..., None], 1), np.take_along_axis(mask, top, 1)
                soft, ds = _soft_recall(temperature * (xs @ w), ms, np.take_along_axis(gold, top, 1), k)
                short = (member @ soft) < hand_soft[k]
                if short.any():
                    grad -= rank_guard * temperature * np.einsum("q,qc,qcf->f", member[short].sum(axis=0), ds, xs)
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


# The fit `fit` cross-validates and writes (one of methods()).
SHIPPED_METHOD = "l2=1"
Method = Callable[[list[dict[str, Any]]], np.ndarray]


def per_question(rows: list[dict[str, Any]], w: np.ndarray, k: int) -> np.ndarray:
    """Each question's recall@k when ranked by `w`."""
    out = np.zeros(len(rows))
    for i, row in enumerate(rows):
        found = row["y"][np.argsort(-(row["x"] @ w), kind="stable")[:k]]
        out[i] = float(found.max() > 0) if row.get("any") else float(found.sum()) / row["gold"]
    return out


def _held_out(rows: list[dict[str, Any]], fits: dict[str, Method]) -> dict[str, list[np.ndarray]]:
    """Leave one group out: each question's weight vector, per candidate fit, from the fit without its group."""
    groups = sorted({r["group"] for r in rows})
    out: dict[str, list[np.ndarray]] = {name: [np.zeros(0)] * len(rows) for name in fits}
    for held in groups:
        train = [r for r in rows if r["group"] != held]
        for name, method in fits.items():
            w = method(train)
            for i, r in enumerate(rows):
                if r["group"] == held:
                    out[name][i] = w
    return out


def _figures(rows: list[dict[str, Any]], ws: list[np.ndarray]) -> dict[str, dict[str, float]]:
    """R@5 and R@10, overall ("all") and per category, of questions each ranked by its own weights."""
    recalls = {k: np.array([per_question([r], w, k)[0] for r, w in zip(rows, ws, strict=True)]) for k in (5, 10)}
    cats = np.array([r["category"] for r in rows])
    out = {"all": {str(k): float(v.mean()) for k, v in recalls.items()}}
    for c in sorted(set(cats)):
        out[c] = {str(k): float(v[cats == c].mean()) for k, v in recalls.items()}
    return out


def _pick(figures: dict[str, dict[str, dict[str, float]]], baseline: dict[str, dict[str, float]]) -> str:
    """The candidate with the best overall R@10 among those no category of which falls below the
    baseline at R@5 or R@10; when every candidate loses somewhere, the one whose worst fall is least."""

    def worst_fall(f: dict[str, dict[str, float]]) -> float:
        return max(max(0.0, baseline[c][k] - f[c][k]) for c in baseline if c != "all" for k in ("5", "10"))

    return min(
        figures, key=lambda n: (round(worst_fall(figures[n]), 6), -figures[n]["all"]["10"], -figures[n]["all"]["5"])
    )


def chosen_by_inner_cv(candidates: dict[str, Method], blends: tuple[float, ...] = ()) -> Method:
    """A method that, on its training conversations, picks among `candidates` by leaving each of them
    out in turn (and, with `blends`, among mixes (1 - a) * hand-set + a * fitted of each), then fits the
    pick on all of them. The hand-set fusion is always a candidate, so the pick never does worse than it
    on the inner held-out figures it is judged by."""
    hand = weights_vector(fusion.HAND_SET)

    def method(train: list[dict[str, Any]]) -> np.ndarray:
        held = _held_out(train, candidates)
        figures = {"hand": _figures(train, [hand] * len(train))}
        for name, ws in held.items():
            for a in blends or (1.0,):
                figures[f"{name}@{a}"] = _figures(train, [(1 - a) * hand + a * w for w in ws])
        pick = _pick(figures, figures["hand"])
        method.picks.append(pick)  # type: ignore[attr-defined]
        if pick == "hand":
            return hand
        name, share = pick.rsplit("@", 1)
        return (1 - float(share)) * hand + float(share) * candidates[name](train)

    method.picks = []  # type: ignore[attr-defined]
    return method


BLENDS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
SHRINK = (0.01, 0.1, 1.0, 10.0)
GUARDS = (1.0, 10.0)


def methods() -> dict[str, Method]:
    """The fits compared by `variants`, by name (`fit --method` ships one)."""
    return {
        "learned": lambda tr: fit(tr),
        "balanced": lambda tr: fit(tr, balance=True),
        "guard1": lambda tr: fit(tr, guard=1.0),
        "guard10": lambda tr: fit(tr, guard=10.0),
        "balanced+guard10": lambda tr: fit(tr, balance=True, guard=10.0),
        "guard3": lambda tr: fit(tr, guard=3.0),
        "rank-guard1": lambda tr: fit(tr, rank_guard=1.0),
        "rank-guard10": lambda tr: fit(tr, rank_guard=10.0),
        "guard1+rank-guard10": lambda tr: fit(tr, guard=1.0, rank_guard=10.0),
        "l2=0.1": lambda tr: fit(tr, l2=0.1),
        "l2=1": lambda tr: fit(tr, l2=1.0),
        "guard1+l2=0.1": lambda tr: fit(tr, guard=1.0, l2=0.1),
        "guard1+l2=1": lambda tr: fit(tr, guard=1.0, l2=1.0),
        "blend-cv": chosen_by_inner_cv({"learned": lambda tr: fit(tr)}, BLENDS),
        "shrink-cv": chosen_by_inner_cv({f"l2={l2}": partial(fit, l2=l2) for l2 in SHRINK}),
        "guard-cv": chosen_by_inner_cv(
            {f"guard={g}": partial(fit, guard=g) for g in GUARDS}
            | {f"balanced+guard={g}": partial(fit, balance=True, guard=g) for g in GUARDS}
        ),
        "balanced+guard10-blend-cv": chosen_by_inner_cv(
            {"balanced+guard10": lambda tr: fit(tr, balance=True, guard=10.0)}, BLENDS
        ),
    }


def cross_validate(rows: list[dict[str, Any]], method: Method | None = None) -> dict[str, Any]:
    method = method or (lambda tr: fit(tr))
    groups = sorted({row["group"] for row in rows})
    learned_rows: list[tuple[dict[str, Any], np.ndarray]] = []
    folds = []
    hand = weights_vector(fusion.HAND_SET)
    for held in groups:
        train = [r for r in rows if r["group"] != held]
        test = [r for r in rows if r["group"] == held]
        w = method(train)
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


def variants(rows: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """Every named method's held-out (leave one conversation out) R@5/R@10, overall and per category,
    beside the hand-set fusion's, with the per-fold picks of the methods that choose by inner CV."""
    hand = weights_vector(fusion.HAND_SET)
    table = {"hand-set": _figures(rows, [hand] * len(rows))}
    picks = {}
    every = methods()
    for name in names:
        held = _held_out(rows, {name: every[name]})[name]
        table[name] = _figures(rows, held)
        picks[name] = list(getattr(every[name], "picks", []))
        print(f"{name}: " + _line(table[name], table["hand-set"]), file=sys.stderr, flush=True)
    return {"table": table, "picks": picks}


def _line(f: dict[str, dict[str, float]], base: dict[str, dict[str, float]]) -> str:
    parts = []
    for c in f:
        falls = "!" if c != "all" and any(f[c][k] < base[c][k] - 1e-9 for k in ("5", "10")) else ""
        parts.append(f"{c} {f[c]['5']:.4f}/{f[c]['10']:.4f}{falls}")
    return "  ".join(parts)


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
    f.add_argument("--method", default=SHIPPED_METHOD, help="the fit to cross-validate and ship (see `variants`)")
    f.add_argument(
        "--folds-out",
        type=Path,
        help="also write, per LoCoMo conversation, the weights fitted without it (<sample_id>.json), for "
        "bench/locomo_recall.py --fusion-folds",
    )
    c = sub.add_parser("variants", help="held-out R@5/R@10 per category of every method (English, LoCoMo)")
    c.add_argument("--cache", type=Path, required=True)
    c.add_argument("--only", default="", help="comma-separated method names (default: all)")
    c.add_argument("--out", type=Path, help="also write the table as JSON")
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
    if args.step == "variants":
        english = [r for r in rows if r["lang"] == "en" and r["set"] == "locomo"]
        names = [n for n in args.only.split(",") if n] or list(methods())
        result = variants(english, names)
        if args.out:
            args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        for name, f in result["table"].items():
            print(f"{name:<28}" + _line(f, result["table"]["hand-set"]))
            if result["picks"].get(name):
                print(f"{'':<28}picks per fold: {result['picks'][name]}")
        return 0
    method = methods()[args.method]
    report: dict[str, Any] = {}
    languages: dict[str, Any] = {}
    for language in sorted({r["lang"] for r in rows}):
        # English is fitted on LoCoMo, Chinese on the Chinese set (its English questions are too few).
        mine = [r for r in rows if r["lang"] == language and r["set"] == TRAINED_ON[language]]
        cv = cross_validate(mine, method if language == "en" else None)
        w = method(mine) if language == "en" else fit(mine)
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
            w = method([r for r in english if r["group"] != held])
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
