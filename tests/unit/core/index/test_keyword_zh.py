"""Chinese in the keyword index and recall: words match as words, old files are re-indexed by a
migration, changed facts supersede, and a question's dates select memories by period."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from support.store import insert_indexed

from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.store import schema
from hindsight_desktop.core.store.database import Store


def _matches(db, term: str) -> set[int]:
    return {
        r
        for (r,) in db.execute(
            "SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (keyword.match_expression([term]),)
        )
    }


def test_single_character_words_and_dictionary_words_match(tmp_path) -> None:
    store = Store(tmp_path / "m.db")
    when = datetime(2026, 5, 1, tzinfo=UTC)
    with store.write() as db:
        car = insert_indexed(db, "我的车是一辆白色的特斯拉", when)
        tea = insert_indexed(db, "我不喝咖啡，只喝绿茶和乌龙茶", when)
        hits = dict(keyword.search(db, "我开的什么车？", 10))
        assert car in hits and tea not in hits
        assert tea in dict(keyword.search(db, "我喝什么茶", 10))
    store.close()


def test_migration_reindexes_chinese_memories(tmp_path) -> None:
    # The version-6 change itself, run on rows indexed the old way; later versions' tables already exist in a
    # new file, so the test runs this one change rather than rewinding user_version (test_migrations opens a
    # real version-5 file).
    path = tmp_path / "m.db"
    store = Store(path)
    when = datetime(2026, 5, 1, tzinfo=UTC)
    with store.write() as db:
        zh = insert_indexed(db, "我养了一只橘猫，名字叫胖虎。", when, old_style=True)
        en = insert_indexed(db, "Bought a new bike for the commute.", when, old_style=True)
        assert _matches(db, "猫") == set()  # schema 5 had no single characters
        schema.segment_chinese_keywords(db)
    store.close()
    store = Store(path)
    with store.read() as db:
        assert _matches(db, "猫") == {zh}
        assert _matches(db, "bike") == {en}
        assert db.execute("SELECT count(*) FROM fts_words WHERE rowid IN (?, ?)", (zh, en)).fetchone()[0] == 2
    store.close()


def test_chinese_changed_facts_supersede_through_the_engine(engine, clock) -> None:
    old = engine.write("我住在北京。")
    friend = engine.write("我朋友住在上海。")
    phone = engine.write("我的手机号是13812345678。")
    clock.advance(days=40)
    new = engine.write("我搬到上海了。")
    assert old.id in new.supersedes and friend.id not in new.supersedes
    assert engine.get(old.id).status == "superseded" and engine.get(old.id).superseded_by == new.id
    assert engine.get(phone.id).status == "active"
    clock.advance(days=5)
    new_phone = engine.write("我换了手机号，新号码是13900001111。")
    assert new_phone.supersedes == [phone.id]
    assert engine.get(new.id).status == "active"  # another attribute: untouched
    ids = [h.memory.id for h in engine.search("我现在住在哪里？", limit=10).hits]
    assert new.id in ids and (old.id not in ids or ids.index(new.id) < ids.index(old.id))


def test_mixed_language_facts_supersede(engine, clock) -> None:
    old = engine.write("I work at Google.")
    clock.advance(days=10)
    new = engine.write("我入职了微软。")
    assert new.supersedes == [old.id]
    clock.advance(days=10)
    car = engine.write("我的车牌是京A12345。")
    clock.advance(days=10)
    newer_car = engine.write("我新车的车牌号是京B54321。")
    assert newer_car.supersedes == [car.id] and engine.get(new.id).status == "active"


def test_question_dates_select_memories_by_period(engine, clock) -> None:
    # now: 2026-11-25. October is "last month"; the 2025 National Day holiday is 1-7 October 2025.
    trips = {
        "west_lake": engine.write("去杭州西湖玩了一天，风景很好。", occurred_at="2026-10-12T10:00:00Z", explicit=True),
        "qingdao": engine.write(
            "去青岛海边玩了三天，吃了很多海鲜。", occurred_at="2026-08-03T10:00:00Z", explicit=True
        ),
        "yunnan": engine.write("和家人去云南旅游，在大理住了三晚。", occurred_at="2025-10-03T10:00:00Z", explicit=True),
        "hiking": engine.write("和朋友去云南爬山，很累。", occurred_at="2025-07-10T10:00:00Z", explicit=True),
        # Written before the holiday: its 国庆 resolves against its own time, to October 2025.
        "plan": engine.write("国庆打算带孩子去海边。", occurred_at="2025-09-20T10:00:00Z", explicit=True),
    }

    def order(question: str) -> list[str]:
        by_id = {r.id: name for name, r in trips.items()}
        return [by_id[h.memory.id] for h in engine.search(question, limit=10).hits if h.memory.id in by_id]

    def entity(question: str, name: str) -> float:
        hits = {h.memory.id: h for h in engine.search(question, limit=10).hits}
        hit = hits.get(trips[name].id)
        return hit.scores["entity"] if hit else 0.0

    last_month = order("上个月我去了哪里？")
    assert last_month[0] == "west_lake"
    assert entity("上个月我去了哪里？", "west_lake") > 0 and entity("上个月我去了哪里？", "qingdao") == 0
    national_day = order("去年国庆我做了什么？")
    assert set(national_day[:2]) == {"yunnan", "plan"}
    assert entity("去年国庆我做了什么？", "hiking") == 0
    # English questions use the same periods.
    assert order("Where did I go last month?")[0] == "west_lake"


def test_plate_is_stored_as_a_code_entity(engine) -> None:
    result = engine.write("我的车牌是京A12345，下周三去杭州。", explicit=True)
    with engine.store.read() as db:
        stored = json.loads(db.execute("SELECT entities FROM memories WHERE id = ?", (result.id,)).fetchone()[0])
    assert any(e["kind"] == "code" and e["value"] == "京A12345" for e in stored)
