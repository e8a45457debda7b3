"""Forgetting: archive and restore, conditions, and a purge that leaves no trace anywhere."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hindsight_desktop.core.errors import InvalidInput, NotFound

SECRET = "Remember: Zanzibar-Quokka-7731 is the name of my secret novel."


def test_archive_and_restore(engine):
    mid = engine.write("Remember: I keep my passport in the grey safe.").id
    receipt = engine.forget(ids=mid)
    assert receipt.mode == "archive" and receipt.forgotten == [mid]
    assert engine.get(mid).status == "archived"
    assert engine.restore(mid).status == "active"
    assert engine.search("passport safe").hits[0].memory.id == mid
    assert [e.kind for e in engine.events(mid)][:2] == ["restore", "forget"]


def test_forget_needs_a_condition_and_known_ids(engine):
    with pytest.raises(InvalidInput, match="at least one condition"):
        engine.forget()
    with pytest.raises(NotFound, match="no memory with id"):
        engine.forget(ids=["mem_does_not_exist"])


def test_forget_by_condition_spares_pinned(engine, clock):
    old = engine.write("Remember: the old office door code was 1234.", occurred_at="2025-01-01T00:00:00Z").id
    pinned = engine.write("Remember: grandma's recipe uses cardamom.", occurred_at="2025-01-01T00:00:00Z").id
    engine.edit(pinned, pinned=True)
    fresh = engine.write("Remember: the new office door code is on the badge.").id
    receipt = engine.forget(older_than_days=90)
    assert receipt.forgotten == [old]
    assert engine.get(pinned).status == "active" and engine.get(fresh).status == "active"


def test_forget_by_query(engine):
    gone = engine.write("Remember: my ex Jordan's birthday is 3 March.").id
    kept = engine.write("Remember: my cousin's wedding is in Lyon.").id
    assert engine.forget(query="Jordan").forgotten == [gone]
    assert engine.get(kept).status == "active"


def test_purge_leaves_nothing_in_any_table_or_file(engine):
    mid = engine.write(SECRET, session_id="s").id
    other = engine.write("Remember: the novel's working title is on my desk.", session_id="s").id
    engine.edit(mid, importance=0.9)
    receipt = engine.forget(ids=[mid], purge=True)
    assert receipt.mode == "purge" and receipt.removed["memories"] == 1
    assert receipt.removed["vectors"] == 1 and receipt.removed["fts"] == 2
    for query in ("Zanzibar", "Quokka", "7731", "secret novel", SECRET):
        for mode in ("hybrid", "keyword", "vector"):
            assert all(h.memory.id != mid for h in engine.search(query, mode=mode, deep=True).hits)
    db = engine.store.db
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table') AND sql NOT LIKE '%VIRTUAL%'"):
        for row in db.execute(f'SELECT * FROM "{table}"'):
            assert "Zanzibar" not in repr(row) and mid not in repr(row) or table == "events"
    assert all(e.kind == "purge" and not e.detail for e in engine.events(mid))
    assert engine.get(other).status == "active"
    raw = b"".join(p.read_bytes() for p in engine.store.path.parent.glob("memory.sqlite3*"))
    assert b"Zanzibar" not in raw and b"Quokka" not in raw


def test_edit_reembeds_and_reindexes(engine):
    mid = engine.write("Remember: book club meets on Mondays.").id
    engine.edit(mid, content="Remember: book club meets on Thursdays at Mara's flat.")
    assert engine.search("Thursdays", mode="keyword").hits[0].memory.id == mid
    assert engine.search("Mondays", mode="keyword").hits == []
    history = engine.events(mid)
    assert history[0].kind == "edit" and "Mondays" not in str(history[0].detail)  # no copy of the old text


def test_maintenance_archives_faded_merges_and_repairs(engine, clock):
    faded = engine.write("The cafe on 5th street had a blue door.", importance=0.1, explicit=True).id
    kept = engine.write("Remember: my blood type is O negative.", importance=0.9).id
    working = engine.write("ok cool").id
    first = engine.write("Remember that I drink oat milk in my coffee.", gate=False).id
    second = engine.write("Remember that I drink oat milk with my coffee.", gate=False).id
    engine.store.db.execute("DELETE FROM fts_words WHERE rowid = (SELECT rowid FROM memories WHERE id = ?)", (kept,))
    clock.advance(days=45)
    report = engine.run_maintenance()
    assert report["expired_working"] == 1
    assert report["archived"] >= 1 and engine.get(faded).status == "archived"
    assert engine.get(kept).status == "active"
    assert report["merged"] == 1
    statuses = {engine.get(first).status, engine.get(second).status}
    assert statuses == {"active", "superseded"}
    assert report["repaired"] == 1
    assert engine.search("blood type", mode="keyword").hits[0].memory.id == kept
    with pytest.raises(NotFound, match="no memory"):
        engine.get(working)
    assert engine.events()[0].kind == "reflect"


# ---- forget by query takes only what a memory says (issue 17 §4) --------------------------------


def test_forget_by_query_follows_the_text_never_the_terms_the_index_adds(engine):
    dated = [
        engine.write(text, gate=False, occurred_at="2025-12-05T10:00:00Z").id
        for text in ("Dinner with Sam at the noodle bar.", "我们去了哈尔滨看冰灯。", "Flight CA981 left on time.")
    ]
    says = engine.write("We plan a ski trip in December.", gate=False, occurred_at="2025-06-01T10:00:00Z").id
    # The index holds every memory's date in words ("5 December 2025") and entity values ("ca981"):
    # neither is anything the memory says.
    assert engine.forget(query="December", client="mallory", sees_all=False).forgotten == [says]
    assert engine.forget(query="5 December 2025").forgotten == []
    assert all(engine.get(mid).status == "active" for mid in dated)
    # What the text does say is still found, Chinese words included.
    assert engine.forget(query="哈尔滨").forgotten == [dated[1]]
    assert engine.forget(query="CA981").forgotten == [dated[2]]


# ---- what a forgotten successor leaves behind (issue 17 §2) --------------------------------------


def _moved(engine, clock) -> tuple[str, str]:
    old = engine.write("I live in Berlin.").id
    clock.advance(days=10)
    new = engine.write("I live in Tokyo.", client="mallory").id
    assert engine.get(old).superseded_by == new
    return old, new


def test_forgetting_a_successor_makes_what_it_replaced_current_until_it_returns(engine, clock):
    old, new = _moved(engine, clock)
    receipt = engine.forget(ids=new, client="mallory", sees_all=False)
    back = engine.get(old)
    assert back.status == "active" and back.superseded_by is None
    revived = engine.events(old)[0]
    assert (revived.kind, revived.detail["from"], revived.detail["successor"]) == ("restore", "superseded", new)
    # Undoing the forget puts the successor back in its place, and the older statement under it again.
    engine.undo_forget(receipt.batch)
    assert engine.get(new).status == "active" and engine.get(old).superseded_by == new
    # So does restoring it by id.
    engine.forget(ids=new)
    assert engine.get(old).status == "active"
    engine.restore(new)
    assert engine.get(new).status == "active" and engine.get(old).status == "superseded"
    assert engine.get(old).superseded_by == new


def test_what_a_forgotten_successor_replaced_stays_under_a_statement_that_still_stands(engine, clock):
    old, new = _moved(engine, clock)
    # History arriving later: older than Tokyo (so it gives way to it), newer than Berlin.
    between = engine.write("I live in Paris.", occurred_at=clock.now - timedelta(days=5)).id
    assert engine.get(between).superseded_by == new
    engine.forget(ids=new)
    assert engine.get(between).status == "active"
    assert engine.get(old).status == "superseded" and engine.get(old).superseded_by == between


def test_restoring_a_superseded_memory_by_hand_keeps_it_current(engine, clock):
    old, new = _moved(engine, clock)
    engine.restore(old)  # the person says the old statement holds: it is not superseded again at once
    assert engine.get(old).status == "active" and engine.get(new).status == "active"


def test_a_forgotten_consolidated_fact_gives_back_its_statements_and_takes_them_again(engine, clock):
    ids = []
    for text in ("I live in Lisbon now.", "I moved to Lisbon last year.", "I live in Lisbon with my cat."):
        ids.append(engine.write(text, layer="episodic", explicit=True).id)
        clock.advance(days=2)
    semantic = engine.run_maintenance()["consolidations"][0]["semantic"]
    assert {engine.get(i).superseded_by for i in ids} == {semantic}
    # A hand-made evidence link to another client's memory gives the fact no hold on it.
    theirs = engine.write("I live in Lisbon, says the other client.", client="mallory", gate=False).id
    engine.link(semantic, theirs, "derived_from")
    receipt = engine.forget(ids=semantic)
    assert all(engine.get(i).status == "active" for i in ids)  # the statements are its evidence, not copies
    engine.undo_forget(receipt.batch)
    assert engine.get(semantic).status == "active"
    assert {(engine.get(i).status, engine.get(i).superseded_by) for i in ids} == {("superseded", semantic)}
    assert engine.get(theirs).status == "active"
