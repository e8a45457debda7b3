"""The storage layer's queries for maintenance, forget and purge, on a real SQLite file without a model:
the SQL strength order agrees with the policy's own formula, the index coverage checks find what is
missing and what is orphaned, and a purge's event rewrite reaches every event that names an id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hindsight_desktop.core.index import coverage, keyword
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy
from hindsight_desktop.core.store import events, upkeep
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.timeutil import from_db, to_db

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "m.db")


def _row(memory_id: str, **fields: Any) -> dict[str, Any]:
    at = to_db(NOW - timedelta(days=fields.pop("age_days", 0)))
    row = {
        "id": memory_id,
        "content": f"text of {memory_id}",
        "layer": "episodic",
        "type": "fact",
        "importance": 0.5,
        "client": "a",
        "scope": "shared",
        "created_at": at,
        "occurred_at": at,
        "updated_at": at,
        "content_hash": memory_id,
    }
    row.update(fields)
    return row


def test_weakest_follows_the_policys_strength(store: Store) -> None:
    policy = MaintenancePolicy(half_life_days=20)
    shapes = [  # importance, layer, stability, days since last use
        (0.9, "episodic", 1.0, 200),
        (0.3, "semantic", 1.0, 10),
        (0.6, "procedural", 4.0, 90),
        (0.5, "episodic", 2.0, 40),
        (0.2, "episodic", 1.0, 0),
        (0.8, "semantic", 1.0, 300),
    ]
    with store.write() as db:
        for i, (importance, layer, stability, idle) in enumerate(shapes):
            upkeep.insert_row(db, _row(f"m{i}", importance=importance, layer=layer, stability=stability, age_days=idle))
        upkeep.insert_row(db, _row("pinned", importance=0.0, pinned=1))
        upkeep.insert_row(db, _row("other", importance=0.0, client="b"))
        found = [t.id for t in upkeep.weakest(db, "a", to_db(NOW), 10, policy.half_life_days, policy.layer_factors)]
    expected = sorted(
        range(len(shapes)), key=lambda i: policy.strength(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3])
    )
    assert found == [f"m{i}" for i in expected]  # pinned and other clients' memories never weakest


def test_coverage_finds_missing_and_orphan_rows(store: Store) -> None:
    with store.write() as db:
        indexed = upkeep.insert_row(db, _row("indexed"))
        missing = upkeep.insert_row(db, _row("missing"))
        working = upkeep.insert_row(db, _row("working", layer="working"))
        for rowid in (indexed, working):
            keyword.add(db, rowid, "some words", [], NOW)
        gaps = coverage.gaps(db, coverage.KEYWORD_TABLE)
        unindexed = coverage.unindexed(db, None)
        orphans = coverage.orphans(db, coverage.KEYWORD_TABLE)
        long_term = coverage.is_long_term(db, indexed), coverage.is_long_term(db, working)
    assert gaps == coverage.Gaps(rows=2, missing=1, orphans=1)
    assert [(u.rowid, u.content) for u in unindexed] == [(missing, "text of missing")]
    assert orphans == [working] and long_term == (True, False)


def test_event_rewrite_reaches_every_event_naming_an_id(store: Store) -> None:
    ids = {f"gone{i}" for i in range(1200)}  # more than one statement's parameters
    with store.write() as db:
        events.log_event(db, to_db(NOW), "merge", None, "a", {"absorbed": "gone1199"})
        events.log_event(db, to_db(NOW), "merge", None, "a", {"absorbed": "kept"})
        found = events.naming(db, ids)
        assert len(found) == 1
        ((event_id, _),) = found.items()
        events.set_detail(db, event_id, {"absorbed": "(purged)"})
        details = [(e.detail, from_db(e.at)) for e in events.every(db)]
    assert details == [('{"absorbed": "(purged)"}', NOW), ('{"absorbed": "kept"}', NOW)]
