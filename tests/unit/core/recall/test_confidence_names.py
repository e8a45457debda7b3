"""A memory that gives the name a question asks for answers it (issue 23 §3), with the real model: "Who
is my manager?" is answered by "My boss is Dana..." though they share no word, in either language."""

from __future__ import annotations

import pytest
from support.confidence import confidences as _sure

from hindsight_desktop.core.engine import HIT_CONFIDENCE

BOSS = "My boss is Dana, she runs the Lisbon office."
MEMORIES = [BOSS, "我女儿每天坐校车上学。", "I usually cycle to work.", "My sister lives in Oslo."]


@pytest.fixture
def engine_with_boss(engine):
    for text in MEMORIES:
        engine.write(text, explicit=True, gate=False)
    return engine


@pytest.mark.parametrize("question", ["我现在的领导是谁？", "Who is my manager?"])
def test_the_memory_that_names_the_asked_relation_is_claimed(engine_with_boss, question) -> None:
    assert _sure(engine_with_boss, question).get(BOSS, 0.0) >= HIT_CONFIDENCE


def test_a_name_for_another_relation_is_not(engine_with_boss) -> None:
    assert _sure(engine_with_boss, "Who is my sister's husband?").get(BOSS, 0.0) < HIT_CONFIDENCE


def test_an_in_law_is_not_an_aunt(engine) -> None:
    # 岳母 (the wife's mother) is no "aunt": the aunt's new number is a near miss, not the answer.
    aunt = "Aunt Rosa switched her mobile to 07700 900111."
    mother_in_law = "岳母的手机号是13900001111。"
    for text in (aunt, mother_in_law, "我每天骑车上班。"):
        engine.write(text, explicit=True, gate=False)
    sure = _sure(engine, "岳母的电话是多少？")
    assert sure.get(aunt, 0.0) < HIT_CONFIDENCE
    assert sure.get(mother_in_law, 0.0) >= HIT_CONFIDENCE
