"""Hybrid recall through the real engine: signals, filters, deep recall, scopes, logging."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hindsight_desktop.core.errors import InvalidInput

FACTS = [
    "Remember: my dentist is Dr. Okafor at Riverside Clinic.",
    "Remember: our wedding anniversary is on 14 June.",
    "Remember: my locker number at the gym is 4471.",
    "Remember: I prefer aisle seats on long flights.",
    "Remember: the Wi-Fi router admin page is at 192.168.1.1.",
    "Remember: I take the 7:42 train to work on weekdays.",
]


@pytest.fixture
def filled(engine):
    ids = [engine.write(text, client="claude-code").id for text in FACTS]
    return engine, ids


def test_meaning_and_exact_numbers_are_both_found(filled):
    engine, ids = filled
    assert engine.search("which seat do I like on planes?").hits[0].memory.id == ids[3]
    assert engine.search("4471").hits[0].memory.id == ids[2]
    assert engine.search("Okafor").hits[0].memory.id == ids[0]


def test_every_signal_is_explained(filled):
    engine, _ = filled
    hit = engine.search("gym locker", limit=1).hits[0]
    assert {"vector", "keyword", "entity", "recency", "link", "access", "importance"} <= set(hit.scores)
    assert hit.scores["keyword"] > 0 and hit.scores["vector"] > 0
    assert "scores" in hit.to_dict(explain=True) and "scores" not in hit.to_dict()


def test_vector_and_keyword_modes_differ(filled):
    engine, ids = filled
    keyword_hits = engine.search("4471", mode="keyword").hits
    assert keyword_hits and keyword_hits[0].memory.id == ids[2]
    assert all(h.scores["keyword"] > 0 for h in keyword_hits)
    assert len(engine.search("4471", mode="vector", limit=6).hits) == 6  # vectors always return neighbours


def test_archived_only_with_deep_recall(filled):
    engine, ids = filled
    engine.forget(ids=[ids[2]])
    assert all(h.memory.id != ids[2] for h in engine.search("gym locker number").hits)
    deep = engine.search("gym locker number", deep=True).hits
    assert deep[0].memory.id == ids[2] and deep[0].memory.status == "archived"


def test_superseded_ranks_below_successor(engine, clock):
    old = engine.write("I live in Beijing.", client="a")
    clock.advance(days=1)
    new = engine.write("I moved to Shanghai.", client="a")
    order = [h.memory.id for h in engine.search("where do I live? Beijing", limit=5).hits]
    assert new.id in order and old.id in order
    assert order.index(new.id) < order.index(old.id)


def test_private_memories_stay_with_their_client(engine):
    secret = engine.write("Remember: my therapist appointment is on Thursdays.", client="cursor", scope="private")
    assert engine.search("therapist appointment", client="cursor").hits[0].memory.id == secret.id
    assert all(h.memory.id != secret.id for h in engine.search("therapist appointment", client="vscode").hits)
    assert engine.search("therapist appointment").hits[0].memory.id == secret.id  # the person sees all


def test_time_range_and_type_filters(engine, clock):
    old = engine.write("Remember: I visited Lisbon for the conference.", client="a", occurred_at="2026-01-10T10:00:00Z")
    recent = engine.write("Remember: I visited Porto with my sister.", client="a")
    hits = engine.search("visited", time_range_days=30).hits
    assert [h.memory.id for h in hits] == [recent.id]
    assert old.id in [h.memory.id for h in engine.search("visited", limit=5).hits]
    assert engine.search("visited", type="no_such_type").hits == []


def test_chinese_text_is_found_by_words_and_substrings(engine):
    mid = engine.write("记住：我下个月要去杭州出差，住在西湖边的酒店。", client="a").id
    assert engine.search("杭州").hits[0].memory.id == mid
    assert engine.search("西湖边的酒店", mode="keyword").hits[0].memory.id == mid


def test_searches_are_logged_and_access_counted(filled):
    engine, ids = filled
    engine.search("train to work")
    engine.search("zzzz qqqq", mode="keyword")
    stats = engine.stats()
    assert stats["searches"] == 2 and stats["hit_rate"] == 0.5
    assert engine.get(ids[5]).access_count >= 1


def test_links_spread_to_neighbours(engine):
    a = engine.write("Remember: the spare car key is in the kitchen drawer.", client="a")
    b = engine.write("Remember: the blue folder holds the insurance papers.", client="a")
    engine.link(a.id, b.id, "related")
    hit = next(h for h in engine.search("spare car key", limit=5).hits if h.memory.id == b.id)
    assert hit.scores["link"] > 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": ""}, "query is empty"),
        ({"query": "x", "limit": 0}, "limit must be between"),
        ({"query": "x", "limit": "5"}, "limit must be a whole number"),
        ({"query": "x", "mode": "magic"}, "mode must be one of"),
        ({"query": "x", "since": "not a date"}, "ISO 8601"),
    ],
)
def test_bad_search_input(engine, kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        engine.search(**kwargs)


def test_list_and_count_with_filters(engine, clock):
    from hindsight_desktop.core.records import MemoryFilter

    engine.settings.review_directives = False  # vscode's standing order is stored at once (tests/unit/core/inbox)
    a = engine.write("Remember: the plumber is Kwame, call him for leaks.", client="cursor", type="fact").id
    clock.advance(days=1)
    b = engine.write("Remember: always answer me in Spanish.", client="vscode", scope="private").id
    engine.edit(a, pinned=True)
    assert [m.id for m in engine.list_memories()] == [b, a]  # newest first
    assert engine.count(MemoryFilter(written_by=("cursor",))) == 1
    assert [m.id for m in engine.list_memories(MemoryFilter(pinned=True))] == [a]
    assert engine.count(MemoryFilter(viewer="cursor")) == 1  # vscode's private memory is hidden
    assert engine.list_memories(MemoryFilter(since=clock.now - timedelta(hours=1)))[0].id == b
    assert engine.list_memories(limit=1, offset=1)[0].id == a
    with pytest.raises(InvalidInput, match="status must be among"):
        engine.list_memories(MemoryFilter(statuses=("deleted",)))


def test_search_activity_and_most_recalled(filled, clock):
    engine, ids = filled
    engine.search("train to work")
    engine.search("train to work")
    engine.search("zzzz qqqq", mode="keyword")
    today = clock.now.date().isoformat()
    assert engine.search_activity(7) == [{"day": today, "searches": 3, "found": 2}]
    assert engine.most_recalled(1)[0].id == ids[5]


def test_near_repeats_give_way_to_the_rest_of_the_answer(engine):
    """Three wordings of one fact should not fill the top three when another fact also answers."""
    import dataclasses

    same = [
        "My sister Anna lives in Porto and works there as a nurse.",
        "Anna, my sister, lives in Porto, where she works as a nurse.",
        "My sister Anna works as a nurse and lives in Porto.",
    ]
    ids = [engine.write(text, client="cli", gate=False).id for text in same]
    other = engine.write("Anna's birthday is on 12 March; she loves orchids.", client="cli", gate=False).id

    def ranking() -> list[str]:
        return [h.memory.id for h in engine.search("what do I know about Anna?", limit=4, log=False).hits]

    engine.recall_weights = dataclasses.replace(engine.recall_weights, repeat=0.0)
    plain = ranking()
    assert plain.index(other) == 3  # the check below means something only if repeats win without the penalty
    engine.recall_weights = dataclasses.replace(engine.recall_weights, repeat=0.3)
    hits = engine.search("what do I know about Anna?", limit=4, log=False).hits
    assert [h.memory.id for h in hits].index(other) < 3
    repeats = [h for h in hits if h.scores.get("repeat", 0) > 0]
    assert repeats and all(h.memory.id in ids for h in repeats)
    assert all(a.relevance >= b.relevance for a, b in zip(hits, hits[1:], strict=False))
