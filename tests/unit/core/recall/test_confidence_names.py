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
