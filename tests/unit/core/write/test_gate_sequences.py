"""The labelled sequences for the write gate, and the Chinese evaluation set the recall bench reads.

The sequence is written, in order, into one fresh store through the real engine and model, so that
what is already stored moves novelty and duplicate detection (issue 10: the gate must not punish a
language once a few memories of it exist).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import sys
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
from support.paths import DATA, REPO

SEQUENCES = DATA / "gate_sequences.jsonl"
KINDS_KEEP = {"fact", "preference", "plan", "event", "instruction"}
KINDS_DROP = {"ack", "chatter", "smalltalk", "question", "repeat"}


def _bench(name: str) -> ModuleType:
    """A bench script as a module (bench/ is a folder of scripts, not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict]:
    with open(SEQUENCES, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _letters(text: str) -> str:
    """Letters and digits only, folded: what stays when a repeat changes punctuation or case."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


def test_the_sequence_is_well_formed():
    rows = _rows()
    assert len(rows) >= 150
    for row in rows:
        assert set(row) == {"text", "keep", "lang", "kind"}, row
        assert row["lang"] in {"zh", "en", "mixed"} and row["text"].strip()
        assert row["kind"] in (KINDS_KEEP if row["keep"] else KINDS_DROP), row
    langs = [r["lang"] for r in rows]
    assert langs.count("zh") >= len(rows) / 2 and langs.count("en") >= len(rows) / 5
    kept = sum(r["keep"] for r in rows)
    assert 0.35 <= kept / len(rows) <= 0.65


def test_every_repeat_restates_an_earlier_memory_worth_keeping():
    rows = _rows()
    for i, row in enumerate(rows):
        if row["kind"] != "repeat":
            continue
        mine = _letters(row["text"])
        earlier = [_letters(r["text"]) for r in rows[:i] if r["keep"]]
        # Near-duplicates: the same words with small changes (punctuation, a word or two added).
        assert max(difflib.SequenceMatcher(None, mine, e).ratio() for e in earlier) >= 0.8, row["text"]


def test_the_sequence_through_the_real_engine_keeps_what_is_worth_keeping(engine):
    gate_eval = _bench("gate_eval")
    report = gate_eval.evaluate_sequence(engine, _rows())
    misses = [m["text"] for m in report["misclassified"] if m["expected"]]
    assert report["overall"]["recall"] >= 0.97, misses
    assert report["overall"]["precision"] >= 0.8, [m["text"] for m in report["misclassified"] if not m["expected"]]


def test_the_chinese_set_meets_its_brief():
    zh = _bench("zh_recall")
    data = zh.load_set()
    mems, questions = data.memories, data.questions
    assert len(mems) >= 160 and len(questions) >= 110
    assert sum(m["lang"] == "zh" for m in mems) >= 0.6 * len(mems)
    months = {m["occurred"].strftime("%Y-%m") for m in mems}
    assert {f"2026-{n:02d}" for n in range(5, 12)} <= months
    count = {c: sum(q["category"] == c for q in questions) for c in zh.CATEGORIES}
    assert count["changed"] >= 8 and count["unanswerable"] >= 15 and count["zh_about_en"] >= 5
    assert count["off_topic"] >= 10
    assert count["paraphrase"] == max(count.values())
    assert all(m["occurred"] < data.reference for m in mems)


def test_a_bad_set_is_refused_with_its_line(tmp_path: Path):
    zh = _bench("zh_recall")
    memories = tmp_path / "m.jsonl"
    questions = tmp_path / "q.jsonl"
    memories.write_text(
        json.dumps({"id": "m1", "text": "我住在杭州。", "occurred_at": "2026-05-01T00:00:00Z", "lang": "zh"}) + "\n",
        encoding="utf-8",
    )
    question = {
        "id": "q1",
        "text": "我住在哪？",
        "category": "paraphrase",
        "gold": ["m9"],
        "asked_at": "2026-12-01T10:00:00Z",
    }
    questions.write_text(json.dumps(question, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(zh.DataError, match=r"q\.jsonl:1: unknown memory ids \['m9'\]"):
        zh.load_set(memories, questions)
    questions.write_text(json.dumps({**question, "gold": ["m1"], "asked_at": "2026-12-01"}) + "\n", encoding="utf-8")
    with pytest.raises(zh.DataError, match="has no time zone"):
        zh.load_set(memories, questions)


def test_the_recall_figures_follow_the_answers(tmp_path: Path):
    """Any gold id answers; newer-first needs the newer listed above the older; flags come from the server."""
    zh = _bench("zh_recall")
    memories, questions = tmp_path / "m.jsonl", tmp_path / "q.jsonl"
    mems = [
        ("m1", "我住在杭州。", "2026-05-01"),
        ("m2", "搬到了上海。", "2026-09-01"),
        ("m3", "我养了一只猫。", "2026-06-01"),
    ]
    memories.write_text(
        "".join(
            json.dumps({"id": i, "text": t, "occurred_at": f"{d}T08:00:00Z", "lang": "zh"}, ensure_ascii=False) + "\n"
            for i, t, d in mems
        ),
        encoding="utf-8",
    )
    asked = "2026-12-01T10:00:00Z"
    qs = [
        {"id": "q1", "text": "我现在住哪？", "category": "changed", "gold": ["m2"], "older": ["m1"], "asked_at": asked},
        {"id": "q2", "text": "宠物？", "category": "paraphrase", "gold": ["m3"], "asked_at": asked},
        {"id": "q3", "text": "血型？", "category": "unanswerable", "gold": [], "asked_at": asked},
        {"id": "q4", "text": "火星上冷吗？", "category": "off_topic", "gold": [], "asked_at": asked},
    ]
    questions.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in qs), encoding="utf-8")
    data = zh.load_set(memories, questions)
    out = zh.Outcome()
    out.writes = {
        "m1": {"id": "a", "stored": True, "layer": "episodic"},
        "m2": {"id": "b", "stored": True, "layer": "semantic"},
        "m3": {"id": "c", "stored": False, "layer": "working"},
    }
    out.searches = {
        "q1": {"results": [{"id": "a"}, {"id": "b"}], "nothing_relevant": False},
        "q2": {"results": [{"id": "a"}], "nothing_relevant": True},
        "q3": {"results": [{"id": "c"}], "nothing_relevant": True},
        "q4": {"results": [{"id": "a"}], "nothing_relevant": False},
    }
    report = zh.score(data, out, skipped=set())
    assert report["stored"] == round(2 / 3, 4)
    assert report["overall"] == {"n": 2, "r@1": 0.0, "r@5": 0.5, "r@10": 0.5}
    assert report["newer_first"] == 0.0 and report["older_listed"] == 1.0
    assert report["unanswerable"]["flagged"] == 1.0 and report["unanswerable"]["answerable_wrongly_flagged"] == 0.5
    assert report["off_topic"] == {"n": 1, "flagged": 0.0, "median_top_confidence": None}
    del out.searches["q2"]["nothing_relevant"]  # a server without the flag: n/a, not a guess
    assert zh.score(data, out, skipped=set())["unanswerable"]["flagged"] is None


def test_dates_move_by_whole_weeks_so_weekdays_hold():
    zh = _bench("zh_recall")
    reference = datetime(2026, 12, 1, 10, tzinfo=UTC)  # a Tuesday
    assert zh.week_shift(reference, reference + timedelta(days=3)) == timedelta(0)
    moved = zh.week_shift(reference, reference + timedelta(days=40))
    assert moved == timedelta(weeks=6) and (reference + moved).weekday() == reference.weekday()
    assert zh.week_shift(reference, reference - timedelta(days=12)) == timedelta(weeks=-2)
