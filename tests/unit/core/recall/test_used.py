"""The used share: a client's report that its reply relied on recalled memories is counted per client,
weighs more in a memory's access count than being returned, and ids the client may not see change
nothing."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.recall.access_stats import USED_WEIGHT


def _fill(engine: MemoryEngine) -> dict[str, str]:
    return {
        "key": engine.write("The spare bike key hangs behind the pantry door.", client="alpha", gate=False).id,
        "boiler": engine.write("The boiler service code is 4471.", client="alpha", gate=False).id,
        "secret": engine.write(
            "Beta's private note: the safe code is 9182.", client="beta", scope="private", gate=False
        ).id,
    }


def _uses(engine: MemoryEngine) -> list[tuple]:
    engine._access.flush()
    with engine.store.read() as db:
        return list(db.execute("SELECT client, used FROM uses ORDER BY id"))


def _returned(engine: MemoryEngine, query: str, client: str) -> int:
    """How many memories the search returned as found (a filler kept only to fill the list is not)."""
    hits = engine.search(query, limit=2, client=client).hits
    return sum(h.evidenced for h in hits)


def test_used_share_is_counted_per_client(engine: MemoryEngine):
    ids = _fill(engine)
    alpha = _returned(engine, "where is the bike key?", "alpha")
    gamma = _returned(engine, "what is the boiler service code?", "gamma")
    assert alpha and gamma
    engine.record_used([ids["key"]], client="alpha")
    stats = engine.stats()
    assert stats["used"] == round(1 / (alpha + gamma), 4)  # gamma's returned memories count, unused
    assert stats["used_by_client"] == {"alpha": round(1 / alpha, 4), "gamma": 0.0}


def test_the_persons_own_searches_are_not_in_the_share(engine: MemoryEngine):
    ids = _fill(engine)
    engine.search("bike key")  # the person, in the app
    assert engine.stats()["used"] is None and engine.stats()["used_by_client"] == {}
    engine.search("bike key", limit=1, client="alpha")
    engine.record_used([ids["key"]], client="alpha")
    assert engine.stats()["used"] == 1.0


def test_a_use_weighs_more_than_a_return(engine: MemoryEngine):
    ids = _fill(engine)
    for query in ("where is the bike key?", "what is the boiler service code?"):
        engine.search(query, limit=1, client="alpha")
    assert engine.get(ids["key"]).access_count == engine.get(ids["boiler"]).access_count == 1
    engine.record_used([ids["key"], ids["key"]], client="alpha")  # a repeat in one report counts once
    assert engine.get(ids["key"]).access_count == 1 + USED_WEIGHT
    assert engine.get(ids["boiler"]).access_count == 1
    assert _uses(engine) == [("alpha", 1)]


def test_the_share_never_passes_one(engine: MemoryEngine):
    ids = _fill(engine)
    engine.search("bike key", limit=1, client="alpha")
    for _ in range(3):
        engine.record_used([ids["key"]], client="alpha")
    assert engine.stats()["used_by_client"]["alpha"] == 1.0


def test_an_invisible_or_unknown_id_changes_nothing(engine: MemoryEngine):
    ids = _fill(engine)
    engine.search("safe code", limit=3, client="alpha")
    before = engine.get(ids["secret"]).access_count
    stats_before = engine.stats()
    engine.record_used([ids["secret"]], client="alpha")  # beta's private memory
    engine.record_used(["mem_0000000000000000000"], client="alpha")  # no such memory
    assert engine.get(ids["secret"]).access_count == before
    assert _uses(engine) == []
    assert engine.stats() == stats_before
    # Its writer may report it: the same id counts for beta.
    engine.record_used([ids["secret"]], client="beta")
    assert engine.get(ids["secret"]).access_count == before + USED_WEIGHT
    assert _uses(engine) == [("beta", 1)]


def test_a_mixed_report_counts_only_what_the_client_sees(engine: MemoryEngine):
    ids = _fill(engine)
    engine.record_used([ids["secret"], ids["boiler"], "mem_nothing"], client="alpha")
    assert _uses(engine) == [("alpha", 1)]
    assert engine.get(ids["boiler"]).access_count == USED_WEIGHT


@pytest.mark.parametrize(
    ("used", "problem"),
    [
        (42, "used must be text or a list of text, not int"),
        ([1, 2], "used must hold text of at most 100 characters each"),
        (["m" * 101], "used must hold text of at most 100 characters each"),
        ([f"mem_{n}" for n in range(101)], "used has 101 items; the limit is 100 per call"),
    ],
)
def test_a_malformed_report_is_refused_by_name(engine: MemoryEngine, used, problem):
    with pytest.raises(InvalidInput) as refused:
        engine.record_used(used, client="alpha")
    assert str(refused.value) == problem
    assert _uses(engine) == []
