"""How much a keyword match counts: against a memory holding every term of the question, so a stray
shared word or character pair cannot pass for a match; and the memories nearest in meaning stay
candidates when the question shares no word with them."""

from __future__ import annotations

from datetime import UTC, datetime

from support.store import insert_indexed

from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.store.database import Store

WHEN = datetime(2026, 5, 1, tzinfo=UTC)
LIFE = [
    "最近在学粤语，每天在多邻国上练15分钟。",
    "女儿朵朵今年六岁，九月份上小学一年级。",
    "换了牙医，现在去五道口的拜博口腔，医生姓刘，离家近。",
    "戒烟已经两年了，现在闻到烟味会头疼。",
    "我爸体检查出血糖偏高，医生让他少吃米饭多走路。",
    "搬家了！现在住在海淀区五道口的华清嘉园，离公司走路十分钟。",
    "每周二和周四早上六点半在小区跑步，一次五公里。",
    "我喜欢拍街头摄影，用的是富士X100VI。",
]


def _index(tmp_path, texts: list[str]) -> Store:
    store = Store(tmp_path / "memory.sqlite3")
    with store.write() as db:
        for text in texts:
            insert_indexed(db, text, WHEN)
    return store


def test_full_match_score_tells_a_whole_match_from_a_stray_one(tmp_path) -> None:
    store = _index(tmp_path, [*LIFE, "朵朵的钢琴老师姓吴，每周三晚上上课。"])
    with store.read() as db:
        full = keyword.full_match_score(db, keyword.query_terms("朵朵的钢琴老师姓什么？"))
        hits = dict(keyword.search(db, "朵朵的钢琴老师姓什么？", 10))
        stray = dict(keyword.search(db, "孩子现在多大了？", 10))  # shares "在多", "现在" with others
        stray_full = keyword.full_match_score(db, keyword.query_terms("孩子现在多大了？"))
    assert full > 0 and stray_full > 0
    assert hits[len(LIFE) + 1] >= 0.5 * full  # the memory that holds the question's words
    assert max(stray.values()) < 0.5 * stray_full  # nothing holds "孩子" or "多大": only stray pieces


def test_a_stray_shared_pair_counts_for_little(engine) -> None:
    for text in LIFE:
        engine.write(text, importance=0.9)
    hits = engine.search("孩子现在多大了？", limit=5).hits
    assert any("朵朵今年六岁" in h.memory.content for h in hits), [h.memory.content for h in hits]
    learner = next((h for h in hits if h.memory.content == LIFE[0]), None)
    # The best keyword match ("在多" inside "每天在多邻国") used to count in full, as 1.0.
    assert learner is None or learner.scores["keyword"] < 0.5, learner.scores


def test_the_answer_nearest_in_meaning_is_found_without_a_shared_word(engine) -> None:
    told = {
        "我童年是在哪个街区度过的？": "我小时候在成都玉林一带长大，最怀念那边的钟水饺。",
        "我现在的投资策略是什么？": "股票亏了不少，决定以后只定投指数基金。",
    }
    for text in [*LIFE, *told.values()]:
        engine.write(text, importance=0.9)
    for question, answer in told.items():
        # Under the evidence floor in this store: the first question found nothing, the second only
        # memories that say "现在".
        hits = engine.search(question, limit=5).hits
        assert hits and hits[0].memory.content == answer, [h.memory.content for h in hits]
        assert hits[0].confidence < 0.5  # kept for its meaning, not claimed as a sure answer
        assert not hits[0].evidenced  # so neither a use of the memory nor a search that found something
    engine.set_paused(False)  # a write transaction writes the queued uses first
    first = engine.search("我童年是在哪个街区度过的？", limit=1, log=False).hits[0]
    assert first.memory.access_count == 0
