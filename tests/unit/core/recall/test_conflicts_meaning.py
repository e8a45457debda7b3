"""Two values of one attribute said without a change word: the meaning (closeness, a shared subject, other
values) and the question (both answer it, with its words alike) put the newer first; another attribute of
the same subject stays where it ranks (core/recall/conflicts.py), through the real engine and model."""

from __future__ import annotations

import dataclasses

from hindsight_desktop.core.write.gate_change import says_changed, subject_terms


def _ids(engine, question: str) -> list[str]:
    return [h.memory.id for h in engine.search(question, limit=5).hits]


def _order(engine, question: str, first: str, second: str) -> bool:
    ids = _ids(engine, question)
    return first in ids and (second not in ids or ids.index(first) < ids.index(second))


def _without_conflicts(engine) -> None:
    engine.recall_weights = dataclasses.replace(engine.recall_weights, conflicts=False)


def test_an_english_value_restated_without_a_change_word_comes_first(engine, clock):
    old = engine.write("Nora's piano lesson is on Monday at 5pm with Mr Idris.")
    clock.advance(days=60)
    text = "Nora's piano lesson is on Thursday at 6pm with Mr Idris."
    assert not says_changed(text)
    new = engine.write(text)
    assert new.stored
    question = "When is Nora's piano lesson?"
    assert _order(engine, question, new.id, old.id)
    _without_conflicts(engine)
    assert _order(engine, question, old.id, new.id)  # by score alone the older one wins


def test_another_chinese_attribute_of_the_same_subject_stays_below(engine, clock):
    asked = engine.write("外婆每天吃一片二甲双胍控制血糖。")
    clock.advance(days=60)
    other = engine.write("外婆每天早上吃一片氨氯地平降血压。")
    assert other.supersedes == []
    assert _order(engine, "外婆吃什么药控制血糖？", asked.id, other.id)


def test_another_attribute_of_the_same_subject_stays_below(engine, clock):
    asked = engine.write("Auntie Rosa takes 10 mg of rosuvastatin every evening for her cholesterol.")
    clock.advance(days=60)
    other = engine.write("Auntie Rosa takes amlodipine every morning for her blood pressure.")
    assert other.supersedes == []
    assert _order(engine, "What does Auntie Rosa take for her cholesterol?", asked.id, other.id)


def test_an_owner_is_the_subject_word_without_its_s():
    assert {"leo", "soccer"} <= subject_terms("Leo's soccer practice")
    assert "leo" in subject_terms("Leo\u2019s bike")
    assert "its" not in subject_terms("its colour")  # too short to be an owner's 's
