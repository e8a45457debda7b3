"""The storage operations the engine, the writer and recall call instead of writing SQL: the pause
flag, editable columns, counting, the event log and the visibility of recall's reads."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.errors import PausedError
from hindsight_desktop.core.records import MemoryFilter
from hindsight_desktop.core.store import entities, events, memories, meta, searches


def test_the_pause_flag_is_shared_and_refuses_writes_and_imports(engine):
    with engine.store.read() as db:
        assert not meta.is_paused(db)
        meta.refuse_if_paused(db, "never raised")
    engine.set_paused(True)
    with engine.store.read() as db:
        assert meta.is_paused(db)
        with pytest.raises(PausedError, match="memory is paused: resume it"):
            meta.refuse_if_paused(db, "resume it")
    with pytest.raises(PausedError, match="nothing new is being remembered"):
        engine.write("Remember: the boiler service is on 3 June", explicit=True)
    engine.set_paused(False)
    assert engine.write("Remember: the boiler service is on 3 June", explicit=True).stored
    assert [e.kind for e in engine.events(limit=3)][1:] == ["resume", "pause"]


def test_only_editable_columns_change_and_counts_are_by_known_columns(engine):
    written = engine.write("My passport number ends in 4471", explicit=True)
    with engine.store.write() as db:
        rowid, _ = memories.load_memory(db, written.id)
        with pytest.raises(ValueError, match="not editable: client"):
            memories.update_fields(db, rowid, {"client": "someone-else"}, "2026-01-01T00:00:00.000Z")
        with pytest.raises(ValueError, match="not counted by"):
            memories.count_by(db, "content")
        memories.update_fields(db, rowid, {"importance": 0.25}, "2026-01-01T00:00:00.000Z")
        assert sum(memories.count_by(db, "layer").values()) == 1 == sum(memories.count_by(db, "client").values())
        assert memories.count(db, MemoryFilter()) == 1
        assert memories.count(db, MemoryFilter(ids=("nope",))) == 0
        assert searches.totals(db) == (0, 0)
    assert engine.get(written.id).importance == 0.25


def test_event_log_reads_newest_first_per_memory(engine):
    first = engine.write("I moved to Lisbon in 2024", explicit=True)
    second = engine.write("My dentist is Dr. Okafor", explicit=True)
    engine.edit(first.id, pinned=True)
    with engine.store.read() as db:
        assert [e.kind for e in events.recent(db, first.id, 10)] == ["edit", "write"]
        assert [e.memory_id for e in events.recent(db, None, 2)] == [first.id, second.id]


def test_recall_reads_hide_other_clients_private_memories(engine):
    mine = engine.write("Our wifi router is in the hallway cupboard", client="alpha", scope="private", explicit=True)
    shared = engine.write("The hallway light is on a timer", client="alpha", explicit=True)
    with engine.store.read() as db:
        rowids = sorted(memories.rowids_of(db, [mine.id, shared.id]))
        hidden = memories.hidden_from(db, rowids, "beta")
        assert len(hidden) == 1 and memories.hidden_from(db, rowids, "alpha") == set()
        assert {i for _, i, _ in memories.statuses_visible(db, rowids, "beta")} == {shared.id}
        assert {i for _, i, _ in memories.statuses_visible(db, rowids, None)} == {mine.id, shared.id}
        day = engine.get(mine.id).occurred_at.date().isoformat()
        assert len(entities.naming_dates_between(db, day, "9999-12-31", "beta")) == 1
        assert len(entities.naming_dates_between(db, day, "9999-12-31", None)) == 2
