"""Retrieval recall@k on LoCoMo-format data through the real engine (hybrid, vector-only, keyword-only).

Protocol (see ../shared/bench/README.md): per conversation, index every turn as one memory with its
session's date as the event time, then ask each question of categories 1-4 that has evidence and
count the share of its evidence turns among the top k. recall@k is the mean over questions.

    python bench/locomo_recall.py --data ../shared/bench/locomo-dev.json [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.model.default_model import ensure_default_model
from hindsight_desktop.core.model.embedder import load_embedder
from hindsight_desktop.core.recall import fusion

KS = (5, 10, 25, 50)
MODES = ("hybrid", "vector", "keyword")
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


def parse_session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def evidence_ids(raw: list[str], known: set[str]) -> list[str]:
    found: list[str] = []
    for item in raw:
        for piece in re.split(r"[;,\s]+", item):
            match = _EVIDENCE.fullmatch(piece.strip())
            if match:
                dia = f"D{int(match.group(1))}:{int(match.group(2))}"
                if dia in known and dia not in found:
                    found.append(dia)
    return found


def turns_of(conversation: dict) -> list[tuple[str, str, datetime, str]]:
    """(dia_id, text, when, session) for every turn, in order."""
    out = []
    sessions = sorted(int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k))
    for n in sessions:
        when = parse_session_time(conversation[f"session_{n}_date_time"])
        for i, turn in enumerate(conversation[f"session_{n}"]):
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            out.append((turn["dia_id"], text, when + timedelta(seconds=30 * i), f"s{n}"))
    return out


def run_conversation(
    sample: dict,
    embedder,
    workdir: Path,
    modes: tuple[str, ...] = MODES,
    folds: Path | None = None,
    variant: dict | None = None,
) -> dict[str, list[tuple[int, dict[int, float]]]]:
    """Per mode: a list of (category, {k: recall}) for each scored question. With `folds`, English
    questions are fused with the weights fitted without this conversation (bench/fusion_fit.py --folds-out)."""
    turns = turns_of(sample["conversation"])
    known = {t[0] for t in turns}
    with MemoryEngine(workdir / sample["sample_id"], embedder=embedder) as engine:
        if variant:
            engine.recall_weights = dataclasses.replace(engine.recall_weights, **variant)
        if folds is not None:
            path = folds / f"{sample['sample_id']}.json"
            fitted = fusion.parse(json.loads(path.read_text(encoding="utf-8")), path.name)["en"]
            engine.recall_weights = dataclasses.replace(engine.recall_weights, fusion=fitted)
        dia_of: dict[str, set[str]] = defaultdict(set)
        for dia, text, when, session in turns:
            result = engine.write(
                text, occurred_at=when, session_id=f"{sample['sample_id']}-{session}", client="locomo", gate=False
            )
            dia_of[result.id].add(dia)
        scored: dict[str, list] = {mode: [] for mode in modes}
        for qa in sample["qa"]:
            category = int(qa.get("category", 0))
            gold = evidence_ids(qa.get("evidence", []), known)
            if category not in (1, 2, 3, 4) or not gold:
                continue
            for mode in modes:
                hits = engine.search(qa["question"], limit=max(KS), mode=mode, log=False).hits
                ranked = [dia_of[h.memory.id] for h in hits]
                per_k = {}
                for k in KS:
                    found = set().union(*ranked[:k]) if ranked else set()
                    per_k[k] = sum(1 for g in gold if g in found) / len(gold)
                scored[mode].append((category, per_k))
    return scored


def summarise(rows: list[tuple[int, dict[int, float]]]) -> dict:
    def mean(items: list[dict[int, float]]) -> dict[str, float]:
        return {str(k): round(sum(r[k] for r in items) / len(items), 4) for k in KS} if items else {}

    by_cat: dict[int, list] = defaultdict(list)
    for category, per_k in rows:
        by_cat[category].append(per_k)
    return {
        "overall": mean([r for _, r in rows]),
        "by_category": {str(c): mean(v) for c, v in sorted(by_cat.items())},
        "questions": len(rows),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="LoCoMo-format JSON file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--limit-conversations", type=int, default=0, help="only the first N (for a quick look)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, of " + ", ".join(MODES))
    parser.add_argument(
        "--fusion-folds",
        type=Path,
        default=None,
        help="a folder of per-conversation weights fitted without that conversation (held-out figures)",
    )
    parser.add_argument("--hand-set", action="store_true", help="fuse with the hand-set weights (fusion.HAND_SET)")
    parser.add_argument(
        "--no-conflicts", action="store_true", help="leave changed values in score order (RecallWeights.conflicts)"
    )
    args = parser.parse_args(argv)
    variant: dict = {}
    if args.hand_set:
        variant["fusion"] = fusion.HAND_SET
    if args.no_conflicts:
        variant["conflicts"] = False
    modes = tuple(m for m in args.modes.split(",") if m)
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes: choose among {', '.join(MODES)}")
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    if args.limit_conversations:
        samples = samples[: args.limit_conversations]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hindsight-locomo-") as tmp:
        embedder = load_embedder(ensure_default_model(Path(tmp) / "models"))
        rows: dict[str, list] = {mode: [] for mode in modes}
        for sample in samples:
            scored_modes = run_conversation(sample, embedder, Path(tmp), modes, args.fusion_folds, variant)
            for mode, scored in scored_modes.items():
                rows[mode].extend(scored)
    report = {mode: summarise(rows[mode]) for mode in modes}
    report["conversations"] = len(samples)
    report["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"LoCoMo retrieval recall@k, {len(samples)} conversations, {report[modes[0]]['questions']} questions "
        f"({report['seconds']} s)"
    )
    print(f"{'mode':<10}{'cat':<6}" + "".join(f"R@{k:<6}" for k in KS))
    for mode in modes:
        print(f"{mode:<10}{'all':<6}" + "".join(f"{report[mode]['overall'][str(k)]:<8.3f}" for k in KS))
        for cat, values in report[mode]["by_category"].items():
            print(f"{'':<10}{cat:<6}" + "".join(f"{values[str(k)]:<8.3f}" for k in KS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
