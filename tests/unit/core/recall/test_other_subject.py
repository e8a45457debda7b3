"""A result about someone other than whom the question names ranks below the ones about them
(RecallWeights.other_subject), through the real engine and model: the model puts a near miss about
another person as close in meaning as an answer ("我对青霉素过敏" for "我女儿对什么过敏？")."""

from __future__ import annotations

import dataclasses

DAUGHTER = "女儿朵朵吃芒果会起疹子。"
MINE = "我对青霉素过敏。"


def _contents(engine, question: str) -> list[str]:
    return [h.memory.content for h in engine.search(question, limit=5).hits]


def test_the_asked_persons_memory_comes_before_another_persons(engine) -> None:
    for text in (MINE, DAUGHTER, "我每天骑车上班。"):
        engine.write(text, explicit=True, gate=False)
    question = "我女儿对什么过敏？"
    assert _contents(engine, question)[0] == DAUGHTER
    mine = next(h for h in engine.search(question, limit=5).hits if h.memory.content == MINE)
    assert mine.scores["other_subject"] > 0  # the why panel shows what it cost
    engine.recall_weights = dataclasses.replace(engine.recall_weights, other_subject=1.0)
    assert _contents(engine, question)[0] == MINE  # by meaning and words alone the person's own allergy wins


def test_a_question_that_names_no_one_moves_nothing(engine) -> None:
    for text in (MINE, DAUGHTER):
        engine.write(text, explicit=True, gate=False)
    assert all("other_subject" not in h.scores for h in engine.search("过敏", limit=5).hits)
