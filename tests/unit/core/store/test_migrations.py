"""A memory file of every earlier schema version opens with today's code and loses nothing.

The files in tests/fixtures/schemas/ were written by the release that introduced each version
(make_fixtures.py says how); each holds the same few English and Chinese memories, links, events,
searches, a registered model with vectors and, where the version has them, clients and runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw
import pytest
from support.paths import FIXTURES as TEST_FIXTURES

from hindsight_desktop.config import DB_FILE
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.core.store import schema
from hindsight_desktop.core.store.database import Store

SCHEMAS = TEST_FIXTURES / "schemas"
NEWEST = len(schema.MIGRATIONS)
VERSIONS = list(range(1, NEWEST + 1))
# Tables whose rows the test compares, and the first version that has each.
TABLES = {
    "memories": 1,
    "relations": 1,
    "events": 1,
    "searches": 1,
    "entity_index": 1,
    "models": 1,
    "vector_changes": 2,
    "mcp_clients": 3,
    "maintenance_runs": 4,
    "model_switch": 4,
    "uses": 7,
}
LISBON, BEIJING, LIGHT_ROAST, DARK_ROAST, CAT = (f"mem_0195a000000{n}a1b2c3d4" for n in (1, 2, 3, 4, 5))


def _connect(path: Path) -> apsw.Connection:
    return connect_existing(path)  # the fixture plain, the upgraded file encrypted


def _columns(db: apsw.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def _rows(db: apsw.Connection, table: str, columns: list[str]) -> list[tuple]:
    return sorted(db.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall(), key=repr)


def _snapshot(db: apsw.Connection, version: int, columns: dict[str, list[str]] | None = None) -> dict:
    """Every compared table's rows (in the given columns: a newer schema has more), the meta keys,
    and each model's vectors as stored bytes."""
    out: dict = {}
    for table, since in TABLES.items():
        if version >= since:
            out[table] = _rows(db, table, columns[table] if columns else _columns(db, table))
    out["meta"] = _rows(db, "meta", ["key", "value"])
    for (num,) in db.execute("SELECT num FROM models").fetchall():
        out[f"vec_{num}"] = db.execute(f"SELECT rowid, embedding FROM vec_{num} ORDER BY rowid").fetchall()
    return out


def _dump(path: Path) -> list:
    """All stored rows of every ordinary table, the FTS and vec0 shadow tables included."""
    db = _connect(path)
    try:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name"
            )
        ]
        return [(t, _rows(db, t, ["*"])) for t in tables] + [db.execute("PRAGMA user_version").fetchone()]
    finally:
        db.close()


def _copy(version: int, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / DB_FILE
    shutil.copyfile(SCHEMAS / f"v{version}.sqlite3", target)
    return target


def test_every_schema_version_has_a_fixture():
    assert sorted(p.name for p in SCHEMAS.glob("v*.sqlite3")) == sorted(f"v{v}.sqlite3" for v in VERSIONS)
    assert all(callable(m) and m.__doc__ for m in schema.MIGRATIONS)


@pytest.mark.parametrize("version", VERSIONS)
def test_store_upgrades_each_version_without_loss(tmp_path, version):
    path = _copy(version, tmp_path)
    raw = _connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == version
    columns = {t: _columns(raw, t) for t, since in TABLES.items() if version >= since}
    before = _snapshot(raw, version)
    raw.close()
    assert len(before["memories"]) == 7 and len(before["relations"]) == 3 and len(before["vec_1"]) == 6

    store = Store(path)
    assert store.schema_version == NEWEST
    with store.read() as db:
        after = _snapshot(db, version, columns)
        if version < 4:  # v4 records the model in use and adds columns that start at their defaults
            assert _rows(db, "memories", ["stability", "reviewed_at"]) == [(1.0, None)] * 7
            assert after["meta"] == sorted([*before["meta"], ("model.active", "1")], key=repr)
            after["meta"] = before["meta"]
        assert after == before
        if version >= 3:
            assert {r[0] for r in before["mcp_clients"]} == {"claude-desktop", "old-tool"}
        by_rowid = {mid: rowid for rowid, mid in db.execute("SELECT rowid, id FROM memories")}
        for query, memory_id in (
            ("Lisbon flight", LISBON),
            ("TP1234", LISBON),
            ("dark roast", DARK_ROAST),
            ("北京", BEIJING),
            ("自行车", BEIJING),
            ("猫", CAT),
        ):  # a single character: indexed only since v6's re-index
            assert by_rowid[memory_id] in [rowid for rowid, _ in keyword.search(db, query, 5)], query
    store.close()
    assert list(tmp_path.glob("*.backup*")) == []  # the migration's copy is gone once it committed

    upgraded = _dump(path)
    Store(path).close()  # reopening an up-to-date file changes nothing and copies nothing
    assert _dump(path) == upgraded
    assert list(tmp_path.glob("*.backup*")) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_engine_opens_each_version_and_finds_its_memories(tmp_path, version, embedder, clock):
    from hindsight_desktop.core.engine import MemoryEngine

    path = _copy(version, tmp_path / "data")
    raw = _connect(path)
    contents = dict(raw.execute("SELECT id, content FROM memories").fetchall())
    raw.close()
    # The fixture's model exists on no machine: the engine keeps its vectors and switches to its own.
    with MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock) as engine:
        assert {mid: engine.get(mid).content for mid in contents} == contents
        assert engine.get(LIGHT_ROAST).superseded_by == DARK_ROAST
        assert engine.get(CAT).scope == "private" and engine.get(CAT).pinned
        assert {(lk.source_id, lk.type) for lk in engine.links(LIGHT_ROAST)} == {(DARK_ROAST, "supersedes")}
        assert {e.kind for e in engine.events(LIGHT_ROAST)} == {"write", "supersede"}
        for query, memory_id in (("When is Alice's flight to Lisbon?", LISBON), ("北京 自行车", BEIJING), ("猫", CAT)):
            assert memory_id in [h.memory.id for h in engine.search(query, limit=3).hits], query
        status = engine.model_status()
        assert status["switching"] and status["active"]["model_id"] == "fixture-model:0123456789ab"
        engine.reembed()
        status = engine.model_status()
        assert not status["switching"] and status["active"]["model_id"] == embedder.model_id
        assert engine.search("Which city is Alice flying to?", limit=1, mode="vector").hits[0].memory.id == LISBON


def test_a_newer_schema_is_refused_and_left_untouched(tmp_path):
    path = _copy(NEWEST, tmp_path)
    raw = connect_existing(path)
    raw.execute(f"PRAGMA user_version={NEWEST + 1}")
    raw.close()
    before = path.read_bytes()
    with pytest.raises(HindsightError, match="newer Hindsight Desktop"):
        Store(path)
    assert path.read_bytes() == before
    assert list(tmp_path.glob("*.backup*")) == []
