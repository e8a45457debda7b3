"""Two values of one attribute that nothing tied at write time: the newer comes first when a question asks
for the current value (core/recall/conflicts.py), through the real engine and model."""

from __future__ import annotations

import dataclasses

import pytest

from hindsight_desktop.core.recall.conflicts import asks_current


def _ids(engine, question: str) -> list[str]:
    return [h.memory.id for h in engine.search(question, limit=5).hits]


def _without_conflicts(engine) -> None:
    engine.recall_weights = dataclasses.replace(engine.recall_weights, conflicts=False)


def test_a_change_that_superseded_nothing_comes_first(engine, clock):
    old = engine.write("Our standup is at 9:30 on Zoom, Priya runs it.")
    clock.advance(days=30)
    # It names nothing the old one lacks, so the write path does not replace the old statement.
    new = engine.write("Priya moved the standup off Zoom; we meet by the kitchen at 9:30 instead.")
    assert new.stored and new.supersedes == [], new.reason
    clock.advance(days=2)
    question = "Where is the standup held?"
    ids = _ids(engine, question)
    assert ids.index(new.id) < ids.index(old.id)
    _without_conflicts(engine)
    ids = _ids(engine, question)
    assert ids.index(old.id) < ids.index(new.id)  # by score alone the old one, which shares more words, wins


def test_a_second_english_change_comes_first(engine, clock):
    old = engine.write("Mia walks to school with her friend Lucy.")
    clock.advance(days=30)
    new = engine.write("Mia no longer walks with Lucy; she takes the school bus now.")
    assert new.supersedes == []
    ids = _ids(engine, "How does Mia get to school?")
    assert ids.index(new.id) < ids.index(old.id)


def test_a_question_about_the_past_keeps_the_order(engine, clock):
    old = engine.write("Mia walks to school with her friend Lucy.")
    clock.advance(days=30)
    new = engine.write("Mia no longer walks with Lucy; she takes the school bus now.")
    ids = _ids(engine, "How did Mia get to school before?")
    assert ids.index(old.id) < ids.index(new.id)


def test_someone_elses_change_does_not_move_up(engine, clock):
    old = engine.write("Mia walks to school with her friend Lucy.")
    clock.advance(days=30)
    other = engine.write("Ben no longer walks; he takes the school bus now.")
    ids = _ids(engine, "How does Mia get to school?")
    assert ids.index(old.id) < ids.index(other.id)


def test_a_chinese_change_across_privacy_groups_comes_first(engine, clock):
    # A private note and a later shared change are never tied at write time (supersession stays inside
    # one privacy group), so only recall can put the change first for the writer who sees both.
    old = engine.write("外婆住在老城区的纺织厂宿舍。", client="claude", scope="private")
    clock.advance(days=30)
    new = engine.write("外婆不住宿舍了，搬到舅舅家去住，离医院近一些。", client="claude")
    assert new.stored and new.supersedes == [], new.reason
    hits = engine.search("外婆住在哪里？", limit=5, client="claude").hits
    ids = [h.memory.id for h in hits]
    assert ids.index(new.id) < ids.index(old.id), [h.memory.content for h in hits]
    _without_conflicts(engine)
    ids = [h.memory.id for h in engine.search("外婆住在哪里？", limit=5, client="claude").hits]
    assert ids.index(old.id) < ids.index(new.id)


@pytest.mark.parametrize(
    "question",
    ["Where is the standup held?", "Which gym do I go to?", "外婆住在哪里？", "朵朵周日下午上什么课？"],
)
def test_questions_about_now(question):
    assert asks_current(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did I use before?",
        "Where was the standup last year?",
        "When did Caroline go to the support group?",
        "外婆以前住在哪里？",
        "上个月我去哪里出差了？",
        "原来的牙医是谁？",
    ],
)
def test_questions_about_the_past(question):
    assert not asks_current(question)


def test_another_thing_of_one_owner_neither_replaces_nor_moves_up(engine, clock):
    # "外公的降糖药…改成了…" says a change of his diabetes pill, not of the blood pressure pill beside it.
    asked = engine.write("外公的降压药是每天早上吃一片。")
    clock.advance(days=30)
    other = engine.write("外公的降糖药现在改成了晚饭后吃。")
    assert other.stored and other.supersedes == [], other.reason
    ids = _ids(engine, "外公的降压药什么时候吃？")
    assert ids.index(asked.id) < ids.index(other.id)
