"""relations_in skips a language's word-by-word pass when no relation word of it is anywhere in the
text: what it finds must be what that pass finds, whatever the case, apostrophe or script."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight_desktop.core.recall import subjects


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("My WIFE's car is blue.", {"wife"}),
        ("Dinner at my Sister\u2019s place", {"sister"}),
        ("FIANCÉE and Co-Worker came too", {"partner", "colleague"}),
        ("Mum and Dad, then my boss", {"mother", "father", "manager"}),
        ("The midwife and the wifely duties", set()),  # inside a longer word: no relation
        ("a sonnet by the sonata", set()),
        ("Nothing about anyone here.", set()),
        ("", set()),
        ("我外甥女和表哥都来了", {"niece", "cousin"}),
        ("我妈妈说 my daughter 要来", {"mother", "daughter"}),
        ("杭州的西湖很美", set()),
        # In-laws, and an uncle or aunt by their place in the family (二舅, 小姨) or by marriage (小舅子).
        ("岳母和二舅下周来", {"mother_in_law", "uncle"}),
        ("小舅子开车送小姨回家", {"brother_in_law", "aunt"}),
        ("My mother-in-law called my sister-in-law", {"mother_in_law", "sister_in_law"}),
    ],
)
def test_relations_found_in_either_language(text, keys):
    assert subjects.relations_in(text) == keys


def test_possessive_endings_with_either_apostrophe():
    assert subjects._possessive("wife's") == "wife"
    assert subjects._possessive("wife\u2019s") == "wife"
    assert subjects._possessive("sisters'") == "sisters"
    assert subjects._possessive("sisters") == "sisters"  # no apostrophe: the word as it is


@pytest.mark.parametrize(
    ("question", "keys"),
    [
        ("Which password manager am I using?", set()),  # a compound's head names no one
        ("What did the project manager say?", set()),
        ("What does my manager like?", {"manager"}),
        ("Who is the boss here?", {"manager"}),
        ("What is Tom's wife called?", {"wife"}),
        ("What is Aunt Rosa's number?", {"aunt"}),
        ("Daughter's birthday?", {"daughter"}),
        ("我女儿对什么过敏？", {"daughter"}),
    ],
)
def test_the_relations_a_question_asks_about(question, keys):
    assert subjects.of(question, datetime(2026, 12, 1, tzinfo=UTC), question=True).relations == keys
