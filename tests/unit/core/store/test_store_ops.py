"""The storage layer's named operations (store/relations, memories, entities, visibility) on a real
SQLite file: each is the one place its rule is written, so each is pinned here."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

import apsw
import pytest

from hindsight_desktop.app.transfer import FORMATS as DIALOG_FILTERS
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.portable.export_formats import WRITERS
from hindsight_desktop.core.records import EXPORT_FORMATS, Entity, MemoryFilter
from hindsight_desktop.core.store import entities, relations
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.memories import (
    field_row,
    reactivate,
    select,
    stored_fact,
    supersede,
)
from hindsight_desktop.core.store.visibility import privacy_group, visible_to
from hindsight_desktop.core.text.extract import fact_key

T0, T1 = "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z"


@pytest.fixture
def db(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as conn:
        for mid, client, scope in (
            ("a", "claude", "shared"),
            ("b", "claude", "private"),
            ("c", "cursor", "private"),
            ("d", "cursor", "shared"),
        ):
            conn.execute(
                "INSERT INTO memories (id, content, layer, type, importance, client, scope, created_at, occurred_at, "
                "updated_at, content_hash) VALUES (?, ?, 'episodic', 'note', 0.5, ?, ?, ?, ?, ?, ?)",
                (mid, f"memory {mid}", client, scope, T0, T0, T0, mid),
            )
    with store.write() as conn:
        yield conn
    store.close()


class _Status(NamedTuple):
    id: str
    status: str
    superseded_by: str | None
    updated_at: str


def _status(db: apsw.Connection, memory_id: str) -> _Status:
    return select(db, _Status, "id = ?", (memory_id,))[0]


def test_link_keeps_or_replaces_an_existing_link(db):
    assert relations.link(db, "a", "b", "similar", 0.8, T0) == 1
    assert relations.link(db, "a", "b", "similar", 0.3, T1) == 0  # kept as it was
    assert [(x.strength, x.created_at.day) for x in relations.links_of(db, "a")] == [(0.8, 1)]
    relations.link(db, "a", "b", "similar", 0.3, T1, replace=True)
    assert [(x.strength, x.created_at.day) for x in relations.links_of(db, "b")] == [(0.3, 2)]


def test_copy_links_gives_both_directions_to_the_new_memory_but_no_self_link(db):
    relations.link_many(
        db, [("b", "c", "similar", 0.9, T0), ("d", "b", "shares_entity", 0.5, T0), ("a", "b", "same_session", 1.0, T0)]
    )
    relations.copy_links(db, "a", "b")
    got = {(x.source_id, x.target_id, x.type) for x in relations.links_of(db, "a")}
    assert got == {("a", "c", "similar"), ("d", "a", "shares_entity"), ("a", "b", "same_session")}
    assert relations.count(db) == 5  # the originals stay
    assert relations.unlink_all(db, "b") == 3
    assert relations.count(db) == 2


def test_evidence_links(db):
    assert relations.evidence_for(db, "b") is None and not relations.has_evidence(db, "a")
    relations.link(db, "a", "b", "derived_from", 1.0, T0)
    rowid_a = db.execute("SELECT rowid FROM memories WHERE id = 'a'").fetchone()[0]
    assert relations.evidence_for(db, "b") == rowid_a and relations.has_evidence(db, "a")
    supersede(db, "a", "d", T1)  # a semantic memory no longer active holds no evidence
    assert relations.evidence_for(db, "b") is None


def test_supersede_then_reactivate(db):
    supersede(db, "b", "a", T1)
    assert _status(db, "b") == ("b", "superseded", "a", T1)
    reactivate(db, "b", T0)
    assert _status(db, "b") == ("b", "active", None, T0)


def test_visible_to_hides_other_clients_private_memories_only(db):
    def seen(viewer: str | None) -> set[str]:
        where, args = visible_to(viewer, "")
        return {row.id for row in select(db, _Status, where, args)}

    assert seen(None) == {"a", "b", "c", "d"}  # the person at the desktop
    assert seen("claude") == {"a", "b", "d"}
    assert seen("cursor") == {"a", "c", "d"}
    where, args = MemoryFilter(viewer="claude").sql()  # the timeline's and export's filter: the same rule
    assert {r[0] for r in db.execute(f"SELECT m.id FROM memories m WHERE {where}", args)} == seen("claude")


def test_privacy_group_puts_shared_memories_together_and_private_ones_per_client(db):
    groups = dict(db.execute(f"SELECT id, {privacy_group()} FROM memories"))
    assert groups == {"a": "shared", "d": "shared", "b": "private:claude", "c": "private:cursor"}


def test_field_row_reads_columns_by_name(db):
    class Row(NamedTuple):
        rowid: int
        id: str
        importance: float
        entities: str

    row = field_row(db, Row, 1)
    assert row is not None and (row.id, row.importance, row.entities) == ("a", 0.5, "[]")
    assert field_row(db, Row, 999) is None


def test_stored_fact_is_the_form_contradictions_compare():
    assert stored_fact(fact_key("I live in Beijing")) == ("user|residence", "beijing")
    assert stored_fact(None) == (None, None)


def test_entity_index_rows_follow_the_memory(db):
    entities.index(db, 1, [Entity("person", "Ana", "ana")], datetime(2026, 1, 1, tzinfo=UTC))
    entities.copy_index(db, 2, 1)
    rows = sorted(db.execute("SELECT memory_rowid, kind, value FROM entity_index"))
    assert rows == [(1, "date", "2026-01-01"), (1, "person", "ana"), (2, "date", "2026-01-01"), (2, "person", "ana")]
    assert entities.unindex(db, 1) == 2
    assert [e.kind for e in entities.undated([Entity("date", "x", "x"), Entity("code", "y", "y")])] == ["code"]
    assert set(entities.LINKING) | set(entities.EXACT) | set(entities.MUST_AGREE) <= set(entities.KINDS)


def test_fts_quoting_makes_user_syntax_literal(db):
    keyword.add(db, 1, 'the "NEAR" AND OR * plan', [], datetime(2026, 1, 1, tzinfo=UTC))
    for terms in (['"near"', "plan"], ["and", "or"]):
        expr = keyword.match_expression(terms, "AND")
        assert db.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (expr,)).fetchall() == [(1,)]
    assert (
        db.execute(
            "SELECT rowid FROM fts_words WHERE fts_words MATCH ?",
            (keyword.match_expression(["plan", "absent"], "AND"),),
        ).fetchall()
        == []
    )


def test_export_formats_are_listed_once():
    assert list(WRITERS) == list(EXPORT_FORMATS)
    assert DIALOG_FILTERS == {
        "json": "JSON (*.json)",
        "jsonl": "JSON Lines (*.jsonl)",
        "md": "Markdown (*.md)",
        "csv": "CSV (*.csv)",
    }
