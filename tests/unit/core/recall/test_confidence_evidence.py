"""The pieces of confidence that need no model: content words, their rarity and the memory's coverage."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.recall import confidence as sure


def test_question_words_and_character_pairs_are_not_content() -> None:
    assert sure.content_terms("What is my favourite football team?") == ["favourite", "football", "team"]
    terms = sure.content_terms("我女儿对什么过敏？")
    assert "过敏" in terms and "女儿" in terms
    assert not [t for t in terms if "什" in t or "么" in t]
    assert "儿对" not in terms  # a pair across two words, which no memory holds
    # Asking for a name: the answer says the name, not the word ("My daughter is Mia").
    assert sure.content_terms("What is my landlord's name?") == ["landlord"]
    assert "名字" not in sure.content_terms("房东叫什么名字？")


def test_a_rare_word_weighs_more_than_a_common_one() -> None:
    assert sure.rarity(0, 20) > sure.rarity(1, 20) > sure.rarity(15, 20) > 0


def test_coverage_is_the_rarity_weighted_share_held() -> None:
    terms = {"favourite": 1.0, "football": 3.0, "team": 2.0}
    assert sure.coverage(terms, "My car's number plate is KX19 ABC.").share == 0.0
    assert sure.coverage(terms, "My favourite tea is green.").share == pytest.approx(1 / 6)
    assert sure.coverage(terms, "Arsenal is my favourite football team.").share == pytest.approx(1.0)
    assert sure.coverage({"teach": 1.0}, "My wife teaches maths.").share == 1.0  # a plural or -es form counts
    assert sure.coverage({"过敏": 1.0}, "我对青霉素过敏。").share == 1.0


def test_forms_of_a_word_and_its_other_language_words_count() -> None:
    assert sure.coverage({"live": 1.0}, "My sister lives in Berlin.").share == 1.0
    assert sure.coverage({"drive": 1.0}, "Tom drives a Corolla.").share == 1.0
    other = {"过敏": ["allergic", "allergy"]}
    crossed = sure.coverage({"过敏": 1.0}, "My daughter is allergic to peanuts.", other)
    assert crossed.share == pytest.approx(sure.CROSS)
    assert sure.coverage({"过敏": 1.0}, "My daughter is allergic to peanuts.").share == 0.0


def test_a_word_the_memory_could_not_write_counts_as_a_translation() -> None:
    # A Chinese question's word in an English memory can be shared only through translation.
    terms = {"家务": 2.0, "Wi-Fi": 1.0}
    assert sure.coverage(terms, "Su Qing and I split the chores.") == (0.0, pytest.approx((sure.CROSS * 2 + 1) / 3))
    assert sure.coverage(terms, "家务我们两个人分着做。").comparable == pytest.approx((2 + sure.CROSS) / 3)
    assert sure.coverage(terms, "家里的Wi-Fi密码我记不住，家务也没做。").comparable == 1.0
    assert sure.coverage({}, "Su Qing and I split the chores.") == (0.0, 1.0)  # nothing asked: meaning alone
