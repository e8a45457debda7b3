"""Confidence in a small store (issue 23 §3): an off-topic question, a question about another person and
a search whose only match is archived claim nothing; the answers stay sure."""

from __future__ import annotations

import pytest
from support.confidence import confidences as _sure

from hindsight_desktop.core.engine import HIT_CONFIDENCE

MEMORIES = [
    "My car's number plate is KX19 ABC.",
    "I am allergic to penicillin.",
    "I live in Beijing.",
    "I have a dentist appointment on Thursday at 3pm with Dr. Lee.",
    "My daughter Mia is allergic to peanuts.",
    "My sister Anna lives in Berlin.",
    "My wife Sarah teaches maths at a secondary school.",
    "Sarah's birthday is on 12 March.",
    "I take vitamin D every morning.",
    "My son Leo plays the violin.",
    "I prefer green tea over coffee.",
    "我对青霉素过敏。",
    "我女儿叫朵朵，今年六岁。",
    "我每周三晚上去健身房。",
]


@pytest.fixture
def store(engine):
    ids = {text: engine.write(text, explicit=True, gate=False).id for text in MEMORIES}
    return engine, ids


def _nothing_relevant(found: dict[str, float]) -> bool:
    return not any(c >= HIT_CONFIDENCE for c in found.values())


@pytest.mark.parametrize("question", ["what is my favourite football team?", "我最喜欢哪个足球队？"])
def test_an_off_topic_question_finds_nothing_relevant(store, question) -> None:
    found = _sure(store[0], question)
    assert found and _nothing_relevant(found), found


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("我女儿对什么过敏？", "I am allergic to penicillin."),
        ("我女儿对什么过敏？", "我对青霉素过敏。"),
        ("where does Priya live?", "I live in Beijing."),
        ("What is my son allergic to?", "My daughter Mia is allergic to peanuts."),
    ],
)
def test_a_memory_about_someone_else_is_not_claimed(store, question, other) -> None:
    found = _sure(store[0], question)
    assert found.get(other, 0.0) < HIT_CONFIDENCE, found


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is my daughter allergic to?", "My daughter Mia is allergic to peanuts."),
        ("我女儿对什么过敏？", "My daughter Mia is allergic to peanuts."),
        ("what am I allergic to?", "I am allergic to penicillin."),
        ("我对什么过敏？", "我对青霉素过敏。"),
        ("When is my wife's birthday?", "Sarah's birthday is on 12 March."),  # Sarah is the wife by another memory
        ("What's my licence plate?", "My car's number plate is KX19 ABC."),
        ("dentist", "I have a dentist appointment on Thursday at 3pm with Dr. Lee."),
    ],
)
def test_an_answer_stays_sure(store, question, answer) -> None:
    assert _sure(store[0], question).get(answer, 0.0) >= HIT_CONFIDENCE


def test_an_archived_only_match_leaves_nothing_relevant_unless_searched_deep(store) -> None:
    engine, ids = store
    engine.forget(ids=[ids["I have a dentist appointment on Thursday at 3pm with Dr. Lee."]])
    found = _sure(engine, "dentist")
    assert found and _nothing_relevant(found), found  # the other memories are listed, none claimed
    deep = _sure(engine, "dentist", deep=True)
    assert deep["I have a dentist appointment on Thursday at 3pm with Dr. Lee."] >= HIT_CONFIDENCE


def test_a_memory_kept_only_for_its_meaning_is_never_claimed(store) -> None:
    hits = store[0].search("Who is Priya?", log=False).hits
    kept = [h for h in hits if not h.evidenced]
    assert kept and all(h.confidence < HIT_CONFIDENCE for h in kept)
