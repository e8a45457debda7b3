"""How often the rules put a memory in the wrong class, on a small set written for it (issue 24 §5):
capitalised common words and brands read as people ("Notes", "Stripe"), and things done typed as plans
("去年国庆我们全家去了云南大理…").

The set is tests/data/classify_cases.jsonl, shared with tests/unit/core/text/test_classify_cases.py:

Cases marked "set": "held_out" were written after the rules and run once, untuned; they are
counted apart.

- people: {text, people (the names a reader sees), not_people (capitalised words that are not)}; the
  entities of kind "person" are scored: precision = right / found, recall = expected names found;
- type: {text, expect: past|plan, written (the write's day)}; the write gate's rule reading
  (gate_rules.read_cues) is scored: a past event typed "plan" is a mistake, and so is a plan typed
  anything else. Plan precision = plans typed plan / all typed plan.

No model: the type and the entities come from rules alone. To compare with an older checkout, run
this script with PYTHONPATH pointing at it (a checkout whose read_cues takes no write day is read
without one):

    python bench/classify_eval.py
    PYTHONPATH=/tmp/base python bench/classify_eval.py --json
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from hindsight_desktop.core.text.extract import extract_entities
from hindsight_desktop.core.write import gate_rules

CASES = Path(__file__).resolve().parents[1] / "tests" / "data" / "classify_cases.jsonl"
REFERENCE = datetime(2026, 12, 2, 9, tzinfo=UTC)


def load(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def people_of(text: str) -> list[str]:
    return [e.value for e in extract_entities(text, REFERENCE) if e.kind == "person"]


def type_of(text: str, written: str) -> str:
    if "written" in inspect.signature(gate_rules.read_cues).parameters:
        return gate_rules.read_cues(text, date.fromisoformat(written)).kind()
    return gate_rules.read_cues(text).kind()


def evaluate(cases: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = defaultdict(lambda: defaultdict(int))
    mistakes: list[str] = []
    for case in cases:
        lang, text = case["lang"], case["text"]
        tally = out[f"{case['task']}_{lang}" + (" held-out" if case.get("set") == "held_out" else "")]
        if case["task"] == "people":
            found, expected = people_of(text), case["people"]
            tally["found"] += len(found)
            tally["right"] += sum(1 for p in found if p in expected)
            tally["expected"] += len(expected)
            tally["recalled"] += sum(1 for p in expected if p in found)
            mistakes += [f"[{lang}] person {p!r} in: {text}" for p in found if p not in expected]
            mistakes += [f"[{lang}] missed {p!r} in: {text}" for p in expected if p not in found]
        else:
            kind = type_of(text, case["written"])
            tally[case["expect"]] += 1
            tally["typed_plan"] += kind == "plan"
            if case["expect"] == "plan":
                tally["plan_right"] += kind == "plan"
            else:
                tally["past_not_plan"] += kind != "plan"
                tally["past_event"] += kind == "event"
            if (kind == "plan") != (case["expect"] == "plan"):
                mistakes.append(f"[{lang}] {case['expect']} typed {kind}: {text} (written {case['written']})")
    result: dict[str, Any] = {k: dict(v) for k, v in out.items()}
    for key, tally in result.items():
        if key.startswith("people"):
            tally["precision"] = round(tally["right"] / tally["found"], 3) if tally["found"] else None
            tally["recall"] = round(tally["recalled"] / tally["expected"], 3) if tally["expected"] else None
        else:
            typed = tally["typed_plan"]
            tally["plan_precision"] = round(tally.get("plan_right", 0) / typed, 3) if typed else None
    result["mistakes"] = mistakes
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    result = evaluate(load())
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return
    for key in sorted(k for k in result if k != "mistakes"):
        t = result[key]
        if key.startswith("people"):
            print(
                f"{key:19} persons found {t['found']:3}, right {t['right']:3}: precision {t['precision']}; "
                f"expected names {t['expected']:3}, found {t['recalled']:3}: recall {t['recall']}"
            )
        else:
            print(
                f"{key:19} past {t.get('past', 0):3}: not typed plan {t.get('past_not_plan', 0):3} "
                f"(event {t.get('past_event', 0)}); plans {t.get('plan', 0):3}: typed plan {t.get('plan_right', 0):3}; "
                f"plan precision {t['plan_precision']}"
            )
    print(f"\nmistakes ({len(result['mistakes'])}):")
    for line in result["mistakes"]:
        print("  " + line)


if __name__ == "__main__":
    main()
