"""The changed-fact sets bench/zh_recall.py adds with --changes: each loads, all share one store without a
clashing id, and each pair is told in the order its question assumes (the older value first; for an
"other attribute" case the asked one first). fresh4 and fresh5 are held out: checked here for shape only."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest
from support.paths import REPO


def _zh_recall() -> ModuleType:
    if "zh_recall" in sys.modules:
        return sys.modules["zh_recall"]
    spec = importlib.util.spec_from_file_location("zh_recall", REPO / "bench" / "zh_recall.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["zh_recall"] = module
    spec.loader.exec_module(module)
    return module


def _when(data, memory_id: str):
    return next(m["occurred"] for m in data.memories if m["id"] == memory_id)


@pytest.mark.parametrize("name", sorted(_zh_recall().CHANGE_SETS))
def test_each_pair_is_told_in_the_order_its_question_assumes(name: str):
    zh = _zh_recall()
    data = zh.load_set(*zh.CHANGE_SETS[name])
    for question in data.questions:
        assert question["category"] == "changed"
        (first,), (later,) = question["gold"], question["older"]
        if question.get("via") != "other_attribute":
            first, later = later, first
        assert _when(data, first) < _when(data, later), question["id"]


def test_every_set_shares_one_store():
    zh = _zh_recall()
    data = zh.load_set()
    for name in zh.CHANGE_SETS:
        data = zh.merge(data, zh.load_set(*zh.CHANGE_SETS[name]))
    assert len({m["id"] for m in data.memories}) == len(data.memories)


def test_fresh4_meets_its_brief():
    zh = _zh_recall()
    data = zh.load_set(*zh.CHANGE_SETS["fresh4"])
    changed = [q for q in data.questions if q.get("via") != "other_attribute"]
    other = [q for q in data.questions if q.get("via") == "other_attribute"]
    english = sum(q["lang"] == "en" for q in changed)
    assert len(changed) >= 20 and english * 2 == len(changed)
    assert sum(q["lang"] == "mixed" for q in changed) >= 2  # Chinese with English names or codes
    assert len(other) >= 10
