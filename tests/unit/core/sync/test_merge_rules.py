"""The merge rules, one at a time, between two devices that change the same memory before syncing."""

from __future__ import annotations

import pytest
from support.sync_folder import device_id, memory_state

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import NotFound
from hindsight_desktop.core.sync.merge import CONFLICT_EVENT
from hindsight_desktop.core.sync.service import SYNC_EVENT


def _both_ways(a: MemoryEngine, b: MemoryEngine) -> None:
    for _ in range(2):
        a.sync_now()
        b.sync_now()


def _shared(a: MemoryEngine, b: MemoryEngine, text: str) -> str:
    memory_id = a.write(text, explicit=True).id
    _both_ways(a, b)
    return memory_id


def test_concurrent_edits_resolve_the_same_way_on_both_and_the_loser_is_kept_in_history(pair):
    a, b = pair
    memory_id = _shared(a, b, "The plumber comes on Tuesday morning")
    a.edit(memory_id, content="The plumber comes on Wednesday morning")
    b.edit(memory_id, content="The plumber comes on Thursday afternoon")  # later: it wins
    _both_ways(a, b)
    assert a.get(memory_id).content == b.get(memory_id).content == "The plumber comes on Thursday afternoon"
    for engine in (a, b):
        lost = [e for e in engine.events(memory_id) if e.kind == CONFLICT_EVENT]
        assert [e.detail["lost_content"] for e in lost] == ["The plumber comes on Wednesday morning"]
    a.sync_now()
    assert len([e for e in a.events(memory_id) if e.kind == CONFLICT_EVENT]) == 1  # kept once
    batches = [e for e in b.events() if e.kind == SYNC_EVENT]  # what follows the event log hears of arrivals
    assert batches and batches[0].memory_id is None and batches[0].detail["applied"] >= 1
    assert "Thursday" not in str([e.detail for e in batches])  # counts only, never text
    status = b.sync_status()
    assert status["incoming_dirs"] and device_id(b) not in " ".join(status["incoming_dirs"])


def test_an_edit_after_seeing_the_other_is_no_conflict(pair):
    a, b = pair
    memory_id = _shared(a, b, "The gym closes at nine")
    a.edit(memory_id, content="The gym closes at ten")
    _both_ways(a, b)
    b.edit(memory_id, content="The gym closes at eleven")
    _both_ways(a, b)
    assert a.get(memory_id).content == "The gym closes at eleven"
    assert not [e for e in a.events(memory_id) + b.events(memory_id) if e.kind == CONFLICT_EVENT]


def test_groups_merge_apart_a_pin_on_one_and_an_edit_on_the_other_both_stay(pair):
    a, b = pair
    memory_id = _shared(a, b, "The library card number ends in 4471")
    a.edit(memory_id, pinned=True)
    b.edit(memory_id, content="The library card number ends in 4472")
    _both_ways(a, b)
    for engine in (a, b):
        memory = engine.get(memory_id)
        assert memory.pinned and memory.content == "The library card number ends in 4472"


def test_a_purge_wins_over_a_concurrent_and_a_later_edit(pair, clock):
    a, b = pair
    memory_id = _shared(a, b, "The old alarm code was written on the fridge")
    a.forget(ids=[memory_id], purge=True)
    clock.advance(hours=1)
    b.edit(memory_id, content="The old alarm code note was moved to the drawer")  # after the purge, unaware
    _both_ways(a, b)
    for engine in (a, b):
        with pytest.raises(NotFound):
            engine.get(memory_id)
    assert memory_state(a) == memory_state(b)


def test_archive_restore_and_links_travel_and_private_stays_private(pair):
    a, b = pair
    first = _shared(a, b, "The boat is moored at pier seven")
    second = _shared(a, b, "The boat's winter storage is booked in Hamble")
    a.link(first, second, "related")
    b.forget(ids=[second])
    secret = a.write("My therapist appointment is on Friday", explicit=True, client="claude", scope="private").id
    _both_ways(a, b)
    assert b.get(second).status == "archived" and a.get(second).status == "archived"
    assert ("related" in {lk.type for lk in b.links(first)}) and memory_state(a) == memory_state(b)
    b.restore(second)
    _both_ways(a, b)
    assert a.get(second).status == "active"
    assert b.get(secret).client == "claude" and b.get(secret).scope == "private"
    with pytest.raises(NotFound):
        b.get(secret, client="cursor")  # another assistant on the other device does not see it
    assert b.get(secret, client="claude").id == secret
