"""Editing a memory's scope and date through the real engine: what is stored, the history, the indexes,
and who may do it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from hindsight_desktop.core.errors import InvalidInput, NotFound

WHEN = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)


def _edits(engine, memory_id):
    return [e.detail for e in engine.events(memory_id) if e.kind == "edit"]


def test_the_person_makes_a_shared_memory_private_and_back(engine):
    mid = engine.write("My sister Lena's birthday is on 14 July.", client="claude-code", explicit=True).id
    assert engine.get(mid).scope == "shared" and engine.get(mid, client="cursor").id == mid
    assert engine.edit(mid, scope="private").scope == "private"
    with pytest.raises(NotFound):
        engine.get(mid, client="cursor")  # no longer another assistant's to see
    assert engine.get(mid, client="claude-code").id == mid  # its writer still sees it
    assert not [h for h in engine.search("Lena birthday", client="cursor", log=False).hits if h.memory.id == mid]
    engine.edit(mid, scope="shared")
    assert engine.get(mid, client="cursor").scope == "shared"
    assert _edits(engine, mid) == [{"scope": "shared"}, {"scope": "private"}]  # newest first


def test_a_client_may_not_change_scope(engine):
    mid = engine.write("I prefer tea over coffee in the morning.", client="claude-code", explicit=True).id
    with pytest.raises(InvalidInput, match="only the person"):
        engine.edit(mid, client="claude-code", scope="private")
    assert engine.get(mid).scope == "shared" and _edits(engine, mid) == []


def test_the_date_is_stored_utc_logged_and_reindexed(engine):
    mid = engine.write("We went hiking in the Dolomites with the kids.", explicit=True, occurred_at=WHEN).id
    assert engine.search("10 March 2026", mode="keyword", log=False).hits[0].memory.id == mid
    moved = engine.edit(mid, occurred_at="2025-08-03T15:00:00+02:00")  # as the dialog sends local time
    assert moved.occurred_at == datetime(2025, 8, 3, 13, 0, tzinfo=UTC)
    assert moved.content == "We went hiking in the Dolomites with the kids."
    assert _edits(engine, mid) == [{"occurred_at": "2025-08-03T13:00:00.000Z"}]
    assert [h.memory.id for h in engine.search("3 August 2025", mode="keyword", log=False).hits] == [mid]
    assert not [h for h in engine.search("10 March 2026", mode="keyword", log=False).hits if h.memory.id == mid]
    tz = timezone(timedelta(hours=-5))
    later = engine.edit(mid, occurred_at=datetime(2025, 8, 4, 20, 0, tzinfo=tz))
    assert later.occurred_at == datetime(2025, 8, 5, 1, 0, tzinfo=UTC)


def test_a_bad_date_is_refused_by_name(engine):
    mid = engine.write("The car's next service is due in spring.", explicit=True).id
    with pytest.raises(InvalidInput, match="occurred_at"):
        engine.edit(mid, occurred_at="last tuesday")
    with pytest.raises(InvalidInput, match="scope"):
        engine.edit(mid, scope="everyone")
    assert _edits(engine, mid) == []
