"""Confidence across languages and scripts (issue 23 §3), with the real model: a memory in the other
language that shares no word can still answer, a person named in one script is the same person in the
other, and an off-topic question still finds nothing relevant."""

from __future__ import annotations

import pytest
from support.confidence import confidences as _sure

from hindsight_desktop.core.engine import HIT_CONFIDENCE
from hindsight_desktop.core.recall import confidence as sure

MEMORIES = [
    "我女儿叫果果，今年上幼儿园大班。",
    "Guoguo is afraid of thunderstorms and hides under the table.",
    "I am afraid of spiders.",
    "儿子小杰每周三下午踢足球。",
    "Xiaojie broke his arm last spring.",
    "My sister and her husband live in Perth with their two children.",
    "I work as a nurse.",
    "我的车是白色的丰田。",
]


@pytest.fixture
def engine_with_family(engine):
    for text in MEMORIES:
        engine.write(text, explicit=True, gate=False)
    return engine


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # 果果 is the daughter by the first memory, and Guoguo is 果果 spelt in pinyin.
        ("我女儿怕什么？", "Guoguo is afraid of thunderstorms and hides under the table."),
        ("What is my daughter afraid of?", "Guoguo is afraid of thunderstorms and hides under the table."),
        ("When did my son break his arm?", "Xiaojie broke his arm last spring."),  # 儿子小杰: 小杰 is Xiaojie
        # An English memory cannot share the Chinese question's words (住, 城市 have no translation here).
        ("我妹妹一家住在哪座城市？", "My sister and her husband live in Perth with their two children."),
    ],
)
def test_an_answer_in_the_other_script_or_language_is_claimed(engine_with_family, question, answer) -> None:
    assert _sure(engine_with_family, question).get(answer, 0.0) >= HIT_CONFIDENCE


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("What is my daughter afraid of?", "I am afraid of spiders."),
        ("When did my son break his arm?", "Guoguo is afraid of thunderstorms and hides under the table."),
    ],
)
def test_someone_else_is_still_not_claimed(engine_with_family, question, other) -> None:
    assert _sure(engine_with_family, question).get(other, 0.0) < HIT_CONFIDENCE


@pytest.mark.parametrize("question", ["火星上的天气怎么样？", "我的鞋码是多少？", "Who painted the Mona Lisa?"])
def test_an_off_topic_question_in_a_store_of_two_languages_finds_nothing(engine_with_family, question) -> None:
    found = _sure(engine_with_family, question)  # an empty list also says nothing relevant
    assert max(found.values(), default=0.0) < HIT_CONFIDENCE, found


def test_sharing_no_word_counts_less_against_a_memory_in_the_other_language(engine) -> None:
    scale = engine.parts.calibration
    at_floor = scale.evidence_floor("zh")  # as likely an answer as not, on meaning alone
    same_language = sure.confidence(at_floor, 0.0, sure.Covered(0.0, 1.0), scale, "zh")
    other_language = sure.confidence(at_floor, 0.0, sure.Covered(0.0, sure.CROSS), scale, "zh")
    assert same_language < other_language < 0.5  # still below the floor: meaning alone, lightly discounted
    assert sure.confidence(at_floor, 0.0, 0.0, scale, "zh") == same_language  # a bare share: same language
