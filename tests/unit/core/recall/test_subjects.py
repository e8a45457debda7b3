"""Whom a question asks about, and whether a memory names the same one (subjects.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from hindsight_desktop.core.recall import subjects

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_relations_in_either_language_share_one_key() -> None:
    assert subjects.relations_in("What is my daughter allergic to?") == {"daughter"}
    assert subjects.relations_in("我女儿对什么过敏？") == {"daughter"}
    assert subjects.relations_in("我外甥女在哪上学？") == {"niece"}  # the longer word, not 外甥 as well
    assert subjects.relations_in("I am allergic to penicillin.") == set()


def test_a_memory_about_another_person_is_not_the_same_subject() -> None:
    asked = subjects.of("我女儿对什么过敏？", NOW)
    assert subjects.same(asked, "My daughter Mia is allergic to peanuts.")
    assert not subjects.same(asked, "I am allergic to penicillin.")
    priya = subjects.of("where does Priya live?", NOW)
    assert not subjects.same(priya, "I live in Beijing.")
    assert subjects.same(subjects.of("where do I live?", NOW), "I live in Beijing.")  # no one named: no check


def test_a_name_is_a_whole_word_and_a_relation_can_be_named_by_another_memory() -> None:
    tom = subjects.of("When is Tom's birthday?", NOW)
    assert not subjects.same(tom, "Picked up tomatoes on the way home.")
    wife = subjects.of("When is my wife's birthday?", NOW)
    assert not subjects.same(wife, "Sarah's birthday is on 12 March.")
    known = subjects.aliases(wife, ["My wife Sarah teaches maths.", "My son Leo plays the violin."], NOW)
    assert subjects.same(known, "Sarah's birthday is on 12 March.")
    assert not subjects.same(known, "Leo's birthday is in May.")


def test_a_questions_lone_capitalised_word_is_a_name() -> None:
    assert "tom" in subjects.of("How does Tom prefer to be updated?", NOW, question=True).names
    assert subjects.of("How does Tom prefer to be updated?", NOW, question=True).names == {"tom"}
    assert not subjects.of("What is my favourite football team?", NOW, question=True)
    assert "lisbon" not in subjects.of("When do I fly to Lisbon?", NOW, question=True).names  # a place
    assert not subjects.of("Which flight did I take for the Mid-Autumn Festival?", NOW, question=True).names


def test_a_piece_of_a_chinese_name_is_the_name() -> None:
    asked = subjects.of("王磊对什么过敏吗？", NOW, question=True)
    assert subjects.names_someone(asked, "王") and subjects.names_someone(asked, "王磊")
    assert not subjects.names_someone(asked, "过敏")
