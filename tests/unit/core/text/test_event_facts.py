"""A moved appointment supersedes its old time (text/event_facts.py), in Chinese and English."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.text.event_facts import event_fact
from hindsight_desktop.core.text.extract_facts import fact_key


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("公司年度体检约在11月12日上午，在美年大健康五道口分院，要空腹。", "when:体检", "11月12日上午"),
        ("体检改期了，从11月12日改到11月19日上午八点，地点不变。", "when:体检", "11月19日上午八点"),
        ("和王总的会议推迟到周四下午三点", "when:会议", "周四下午三点"),
        ("家长会安排在周五下午", "when:家长会", "周五下午"),
        ("公司年会定在12月18日，在五道口的一家酒店。", "when:年会", "12月18日"),
        ("My dentist appointment got moved to Friday at 3pm.", "when:dentist", "friday at 3pm"),
        ("The dentist appointment is on March 3.", "when:dentist", "march 3"),
    ],
)
def test_scheduling_sentences_key_the_event(text: str, key: str, value: str) -> None:
    assert fact_key(text) == ("user", key, value)


def test_a_family_members_event_is_theirs() -> None:
    assert event_fact("我爸的复查定在下周一上午") == ("father", "when:复查", "下周一上午")


@pytest.mark.parametrize(
    "text",
    [
        "会议室定在三楼",  # a place, not a time
        "体检不改期了，还是11月12日",  # negated
        "体检做完了，尿酸还是偏高",  # no scheduling verb
        "年度体检到底是哪天？",  # a question
        "The meeting went well.",
        "My appointment was not moved to Friday.",
    ],
)
def test_other_sentences_set_no_time(text: str) -> None:
    key = fact_key(text)
    assert key is None or not key[1].startswith("when:")


def test_moved_appointment_supersedes_and_recall_puts_the_new_time_first(engine, clock) -> None:
    old = engine.write("公司年度体检约在11月12日上午，在美年大健康五道口分院，要空腹。")
    clock.advance(days=16)
    new = engine.write("体检改期了，从11月12日改到11月19日上午八点，地点不变。")
    assert engine.get(old.id).status == "superseded"
    assert engine.get(old.id).superseded_by == new.id
    hits = engine.search("年度体检到底是哪天？", limit=5).hits
    ids = [h.memory.id for h in hits]
    assert new.id in ids
    assert old.id not in ids or ids.index(new.id) < ids.index(old.id)


def test_an_event_question_finds_the_event_it_names_among_many(engine) -> None:
    """The statement is looked up by the question's own words, in English and in Chinese, and one
    event's question does not bring another's."""
    from hindsight_desktop.core.recall import fact_questions
    from hindsight_desktop.core.store import memories

    dentist = engine.write("My dentist appointment was moved to Friday at 3pm.", gate=False)
    checkup = engine.write("体检改期了，从11月12日改到11月19日上午八点，地点不变。", gate=False)
    engine.write("The team offsite is scheduled for March 3.", gate=False)
    with engine.store.read() as db:
        assert fact_questions.current_statements(db, "When is my dentist appointment?", None) == memories.rowids_of(
            db, [dentist.id]
        )
        assert fact_questions.current_statements(db, "年度体检到底是哪天？", None) == memories.rowids_of(
            db, [checkup.id]
        )
