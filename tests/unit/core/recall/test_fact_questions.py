"""A question about one of the person's facts brings the statement that currently holds it."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.recall.fact_questions import asked_facts


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("我现在的上司是谁？", [("user", "manager")]),
        ("Who is my manager now?", [("user", "manager")]),
        ("我老婆在哪家公司上班？", [("spouse", "employer")]),
        ("What does my wife do for a living?", [("spouse", "job")]),
        ("我现在住在哪？", [("user", "residence")]),
        ("What's my phone number?", [("user", "phone")]),
        ("车牌号是多少？", [("user", "plate")]),
        ("年度体检到底是哪天？", [("user", "when:")]),
    ],
)
def test_questions_name_the_attribute(question: str, asked: list[tuple[str, str]]) -> None:
    assert asked_facts(question) == asked


@pytest.mark.parametrize(
    "question",
    [
        "Where does Tom live?",  # someone named: not keyed reliably, left to the other signals
        "他住在哪？",
        "What did we talk about yesterday?",
    ],
)
def test_questions_about_others_or_nothing_ask_no_fact(question: str) -> None:
    assert asked_facts(question) == []


def test_someone_named_in_chinese_is_not_the_writer() -> None:
    assert asked_facts("苏晴的老板是谁？", names_someone=True) == []


def test_the_current_manager_is_found_by_a_question_sharing_no_word(engine, clock) -> None:
    old = engine.write("My manager at Xingtu is Kevin Zhang; we have a one-on-one every Thursday at 4pm.")
    for filler in (
        "朵朵的班主任换了，李老师休产假，现在是赵老师，教数学。",
        "周末带年糕去宠物店洗澡剪毛，花了180。",
        "最近在学粤语，每天在多邻国上练15分钟。",
    ):
        clock.advance(days=3)
        engine.write(filler)
    clock.advance(days=30)
    new = engine.write("新领导叫周敏，是数据平台的产品总监，她喜欢每天早上九点半开站会。")
    assert engine.get(old.id).status == "superseded"
    hits = engine.search("我现在的上司是谁？", limit=3).hits
    ids = [h.memory.id for h in hits]
    assert new.id in ids
    assert old.id not in ids or ids.index(new.id) < ids.index(old.id)
    assert [h.scores.get("fact", 0.0) for h in hits] == [1.0 if h.memory.id == new.id else 0.0 for h in hits]


def test_another_clients_private_fact_is_never_brought(engine) -> None:
    engine.write("我的新领导叫周敏。", client="victim", scope="private")
    hits = engine.search("我现在的上司是谁？", client="attacker", limit=5).hits
    assert all("周敏" not in h.memory.content for h in hits)
