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


def test_a_month_or_weekday_is_not_a_name() -> None:
    assert not subjects.of("Where did I travel for work in June?", NOW, question=True).names
    assert not subjects.of("What did I do on Friday?", NOW, question=True).names


def test_a_chinese_relation_is_tied_to_the_name_that_follows_it() -> None:
    daughter = subjects.of("女儿几点睡觉？", NOW, question=True)
    known = subjects.aliases(daughter, ["女儿果果今年五岁。", "老公叫陈刚，在医院上班。"], NOW)
    assert known.names == {"果果"}  # a doubled character: a nickname the entity finder misses
    assert subjects.same(known, "果果晚上九点睡觉。")
    son = subjects.aliases(subjects.of("我儿子爱吃什么？", NOW), ["儿子小杰上三年级了。"], NOW)
    assert "小杰" in son.names  # 小 and a character that make no dictionary word
    school = subjects.aliases(subjects.of("我女儿在哪上学？", NOW), ["女儿小学毕业了。", "女儿今年十岁。"], NOW)
    assert not school.names  # 小学 is a word, 今年 no nickname
    wife = subjects.aliases(subjects.of("我妻子喜欢什么花？", NOW), ["我老婆叫陈雨，是护士。"], NOW)
    assert "陈雨" in wife.names


def test_a_friend_called_by_two_names_and_slang_for_friend() -> None:
    assert subjects.relations_in("我最铁的哥们儿是谁？") == {"friend"}  # not a brother (哥)
    friend = subjects.aliases(subjects.of("我好友开什么店？", NOW), ["我的好友阿峰（林峰）开了一家面馆。"], NOW)
    assert "阿峰" in friend.names


def test_a_name_in_pinyin_is_the_same_person_as_in_characters() -> None:
    guoguo = subjects.Subjects(frozenset({"果果"}), frozenset())
    assert subjects.same(guoguo, "Guoguo is afraid of thunderstorms.")
    assert not subjects.same(guoguo, "Gogo dancing is fun.")
    chen = subjects.Subjects(frozenset({"chen yu"}), frozenset())
    assert subjects.same(chen, "陈雨今天值夜班。")
    assert not subjects.same(subjects.Subjects(frozenset({"li"}), frozenset()), "我去了李家。")  # too short to tell
    asked = subjects.aliases(subjects.Subjects(frozenset({"xiaojie"}), frozenset()), ["儿子小杰上三年级了。"], NOW)
    assert "son" in asked.relations  # the relation tied to the name, across scripts


def test_a_question_that_opens_with_a_chinese_nickname_asks_about_that_person() -> None:
    asked = subjects.of("果果怕什么？", NOW, question=True)
    assert asked.names == {"果果"}
    assert subjects.same(asked, "Guoguo is afraid of thunderstorms.")
    assert not subjects.same(asked, "我怕蜘蛛。")
    assert "小杰" in subjects.of("我儿子小杰几点放学？", NOW, question=True).names
    assert not subjects.of("小时候我住在哪里？", NOW, question=True).names  # 小时 is a word, not a nickname


def test_a_memory_that_gives_the_asked_name_is_told_apart() -> None:
    who = subjects.of("Who is my manager?", NOW, question=True)
    assert who.asks_name and not subjects.of("What does my manager like?", NOW, question=True).asks_name
    assert subjects.same(who, "My manager is Laura.") == subjects.Match.NAMES
    assert subjects.same(who, "My manager prefers email.") == subjects.Match.SAME  # about them, no name
    assert subjects.same(who, "My sister is Anna.") == subjects.Match.OTHER
    zh = subjects.aliases(subjects.of("我现在的上司是谁？", NOW, question=True), ["新领导叫何静。"], NOW)
    assert zh.asks_name and subjects.same(zh, "新领导叫何静，做市场出身。") == subjects.Match.NAMES
    assert subjects.same(zh, "何静明天出差。") == subjects.Match.SAME
    assert not subjects.of("我女儿和谁一起上学？", NOW, question=True).asks_name  # who she goes with, not who she is
