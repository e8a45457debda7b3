"""A question's term the newer memory says in other words ("光纤" for 宽带) counts as held when dropping it from
the question costs the newer about as much closeness as the older, which holds it (core/recall/conflicts.py
`_said_otherwise`), through the real engine and model."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np

from hindsight_desktop.core.model.calibration import ANSWER_LEVEL
from hindsight_desktop.core.recall import conflicts, subjects
from hindsight_desktop.core.recall.conflicts import _alike, _alike_in_meaning, _carried, _literal, _on_scale, _without


def _ids(engine, question: str) -> list[str]:
    return [h.memory.id for h in engine.search(question, limit=5).hits]


def _order(engine, question: str, first: str, second: str) -> bool:
    ids = _ids(engine, question)
    return first in ids and (second not in ids or ids.index(first) < ids.index(second))


def _vector(engine, text: str) -> np.ndarray:
    return engine.parts.embed([text], "passage")[0]


def test_a_chinese_attribute_said_in_other_words_comes_first(engine, clock):
    old = engine.write("表舅家用的是移动宽带。")
    clock.advance(days=90)
    new = engine.write("表舅家上周接了联通的千兆光纤。")
    assert new.stored and new.supersedes == []
    question = "表舅家的宽带是哪家的？"
    assert _order(engine, question, new.id, old.id)
    engine.recall_weights = dataclasses.replace(engine.recall_weights, conflicts=False)
    assert _order(engine, question, old.id, new.id)  # by score alone the older one wins


def test_a_synonym_carries_the_term_and_another_thing_does_not(engine):
    parts = engine.parts
    old = _vector(engine, "表舅家用的是移动宽带。")
    fibre = _vector(engine, "表舅家上周接了联通的千兆光纤。")
    assert _carried(parts, "表舅家的宽带是哪家的？", "宽带", fibre, old)
    bill = _vector(engine, "At the lake house, Mum pays the electricity bill by standing order from Lloyds.")
    water = _vector(engine, "The lake house's water bill arrives twice a year and Mum pays it by card.")
    assert not _carried(parts, "How is the lake house's electricity bill paid?", "electricity", water, bill)


def test_a_term_is_dropped_in_any_of_its_forms():
    assert _without("What does Ana play on Sundays?", "plays") == "What does Ana on Sundays?"
    assert _without("表舅家的宽带是哪家的？", "宽带") == "表舅家的是哪家的？"


def test_whom_and_when_count_only_as_written():
    whom = subjects.of("What does Ana's daughter do on Sunday mornings?", conflicts._REFERENCE, question=True)
    assert _literal(whom, "daughter")
    assert _literal(whom, "mornings")
    assert _literal(whom, "上午")
    assert not _literal(whom, "piano")


def _ranked(relevance: float, vector: float) -> SimpleNamespace:
    return SimpleNamespace(relevance=relevance, cand=SimpleNamespace(vector=vector))


def test_a_lead_in_words_alone_leaves_the_pair_alike_in_meaning():
    older, newer = _ranked(0.74, 0.76), _ranked(0.44, 0.55)
    assert not _alike(newer, older)  # the older's keyword score holds the word the newer says otherwise
    assert _alike_in_meaning(newer, older)
    assert not _alike_in_meaning(_ranked(0.44, 0.3), older)


def test_a_difference_is_read_on_the_question_languages_scale(engine):
    parts = engine.parts
    scale = parts.calibration
    for asked in ("en", "zh"):
        span = scale.answer[scale.script(asked)] - scale.off_topic[scale.script(asked)]
        assert abs(_on_scale(parts, span, asked) - ANSWER_LEVEL) < 1e-9
        assert abs(_on_scale(parts, span / 2, asked) - ANSWER_LEVEL / 2) < 1e-9
