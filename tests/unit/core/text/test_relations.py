"""The write path and the questions name the person's family with one table, so a question finds the subject
the write path stored the fact under."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.recall.fact_questions import asked_facts
from hindsight_desktop.core.text.event_facts import event_fact
from hindsight_desktop.core.text.extract_facts import fact_key
from hindsight_desktop.core.text.relations import ZH_RELATIONS


@pytest.mark.parametrize("word", sorted(ZH_RELATIONS))
def test_a_relations_fact_and_the_question_about_it_share_a_subject(word: str) -> None:
    subject = ZH_RELATIONS[word]
    assert fact_key(f"我{word}住在上海") == (subject, "residence", "shanghai")
    assert asked_facts(f"我{word}住在哪？") == [(subject, "residence")]


@pytest.mark.parametrize("word", sorted(ZH_RELATIONS))
def test_a_relations_event_and_the_question_about_it_share_a_subject(word: str) -> None:
    subject = ZH_RELATIONS[word]
    assert event_fact(f"我{word}的体检改到11月19日上午") == (subject, "when:体检", "11月19日上午")
    assert asked_facts(f"我{word}的体检是哪天？") == [(subject, "when:")]


def test_the_longer_word_is_taken_whole() -> None:
    # "爸妈" is both parents, not "爸" followed by a stray character.
    assert asked_facts("我爸妈住在哪？") == [("parents", "residence")]
    assert asked_facts("我爸爸住在哪？") == [("father", "residence")]
