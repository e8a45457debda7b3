"""A purge leaves no copy: not in the event log, run reports, merged or consolidated relatives, the
indexes, the WAL, migration backups, nor this process's caches. The file check reads the raw bytes of
every file in the data folder for the purged text and for the purged vectors' bytes."""

from __future__ import annotations

import json
from pathlib import Path

import apsw
import numpy as np
import pytest
import sqlite_vec

from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.core.model import switching
from hindsight_desktop.core.store.database import MIGRATIONS, Store, utcnow

MARK = "Zorblaxquint"
MARK_CN = "翡翠蜻蜓湖"
PLACE = f"I live in {MARK} now. The lake there is called {MARK_CN}."
NEAR = f"I live in {MARK} now. Our lake there is called {MARK_CN}."
GROUP = [
    f"I work for {MARK}.",
    f"I work for {MARK} since last spring, mostly from home.",
    f"I work for {MARK} and my sister does too.",
]  # one fact on three days: consolidated


@pytest.fixture
def engine(tmp_path: Path, embedder, clock):
    """On a plain file: the raw-byte checks here test the purge itself (zeroed pages, an emptied WAL),
    which the file's encryption would hide (tests/e2e/test_encryption.py checks the encrypted file)."""
    from hindsight_desktop.config import Settings
    from hindsight_desktop.core.engine import MemoryEngine

    eng = MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock, settings=Settings(encrypt_memory_file=False))
    yield eng
    eng.close()


def _raw(folder: Path) -> bytes:
    """Every file under the data folder (database, WAL, SHM, backups, anything else), concatenated."""
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _windows(blob: bytes, size: int = 16) -> list[bytes]:
    """Slices of a vector's bytes: a vector can straddle two pages, so no single search finds it whole."""
    return [blob[i : i + size] for i in range(0, len(blob) - size + 1, 64)]


def _stored_vectors(engine, rowids: list[int]) -> dict[int, bytes]:
    out = {}
    for index in switching.indexes(engine.parts.vectors):
        for rowid in rowids:
            row = engine.store.db.execute(f"SELECT embedding FROM {index.table} WHERE rowid = ?", (rowid,)).fetchone()
            if row is not None:
                out[rowid] = row[0]
    return out


def _rowid(engine, memory_id: str) -> int:
    return engine.store.db.execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()[0]


def _make_copies(engine, clock) -> dict[str, str]:
    """A memory and every kind of copy the product used to make of it, in one maintenance run."""
    ids = {"lisbon": engine.write("I live in Lisbon.").id}
    clock.advance(days=1)
    ids["place"] = engine.write("Remember: the plumber comes on Tuesday.", layer="semantic").id
    ids["near"] = engine.write("Remember: the plumber comes on Tuesday at nine.", layer="semantic").id
    engine.edit(ids["place"], content=PLACE)  # edits skip the write path's contradiction check, so
    engine.edit(ids["near"], content=NEAR)  # maintenance supersedes Lisbon (it logged the values)
    for n, text in enumerate(GROUP):
        ids[f"group{n}"] = engine.write(text, layer="episodic", explicit=True).id
        clock.advance(days=1)
    report = engine.run_maintenance()
    assert report["contradictions"] >= 1 and engine.get(ids["lisbon"]).status == "superseded"
    assert engine.get(ids["near"]).superseded_by == ids["place"]  # merged into the place
    group = {ids[f"group{n}"] for n in range(len(GROUP))}
    ids["semantic"] = next(c["semantic"] for c in report["consolidations"] if set(c["evidence"]) & group)
    assert engine.get(ids["semantic"]).content in GROUP  # a verbatim copy of one statement
    engine.search("where is my home by the dragonfly lake?")  # the caches now hold the vectors
    engine.search("who is my employer?")
    return ids


def test_a_purge_leaves_no_copy_in_any_file_or_cache(engine, clock):
    ids = _make_copies(engine, clock)
    purged = [ids["place"], ids["group0"], ids["group1"], ids["group2"]]
    copies = {ids["near"], ids["semantic"]}
    rowids = [_rowid(engine, i) for i in [*purged, *copies]]
    vectors = _stored_vectors(engine, rowids)
    assert len(vectors) == 6
    folder = engine.store.path.parent
    before = _raw(folder)
    assert MARK.lower().encode() in before.lower()  # the checks below can see what they look for
    assert all([w for w in _windows(blob) if w in before] for blob in vectors.values())
    assert [k for k in _embed_cache_keys(engine.parts.embed) if MARK in k]
    assert all(all(r in index.cache for r in rowids) for index in switching.indexes(engine.parts.vectors))
    codes = [
        np.rint(v * (127.0 / np.abs(v).max())).astype(np.int8).tobytes()
        for v in (np.frombuffer(blob, dtype=np.float32) for blob in vectors.values())
    ]
    assert all([w for w in _windows(code) if w in before] for code in codes)  # written beside each vector

    receipt = engine.forget(ids=purged, purge=True)

    assert set(receipt.forgotten) == set(purged) | copies and receipt.mode == "purge"
    assert receipt.removed["memories"] == 6 and receipt.removed["copies"] == 2
    assert receipt.removed["vectors"] == 6 and receipt.removed["fts"] == 12
    assert receipt.removed["event_details"] >= 1  # Lisbon's supersede event named the place
    assert receipt.removed["run_reports"] >= 1  # the runs that merged and consolidated them
    assert receipt.wal_cleared is True
    raw = _raw(folder).lower()
    assert MARK.lower().encode() not in raw
    assert MARK_CN.encode("utf-8") not in raw and "翡翠".encode() not in raw
    for rowid, blob in vectors.items():
        assert not [w for w in _windows(blob) if w in raw], f"vector of rowid {rowid} left in the file"
    # Nothing the rows kept names them either.
    db = engine.store.db
    for memory_id in (*purged, *copies):
        assert (
            db.execute(
                "SELECT count(*) FROM events WHERE instr(detail, ?) > 0 OR memory_id = ? AND kind != 'purge'",
                (memory_id, memory_id),
            ).fetchone()[0]
            == 0
        )
        assert (
            db.execute("SELECT count(*) FROM maintenance_runs WHERE instr(report, ?) > 0", (memory_id,)).fetchone()[0]
            == 0
        )
    # The older statement the place had superseded stays, and is current again (nothing else replaces it).
    lisbon = engine.get(ids["lisbon"])
    assert lisbon.status == "active" and lisbon.superseded_by is None and receipt.removed["reactivated"] >= 1
    # This process's caches forgot them at once, and the search codes derived from them left the file.
    for index in switching.indexes(engine.parts.vectors):
        assert not [r for r in rowids if r in index.cache]
        assert not [code for code in codes if code in index.cache._codes.tobytes()]
    after = _raw(folder)
    for code in codes:
        assert not [w for w in _windows(code) if w in after], "a vector's search codes left in the file"
    cached = _embed_cache_keys(engine.parts.embed)
    assert not [k for k in cached if MARK in k]


def _embed_cache_keys(embed) -> list[str]:
    keys, stack = [], [embed]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        keys.extend(getattr(item, "_items", {}) or {})
        stack.extend(getattr(item, name, None) for name in ("_embed", "new", "old"))
    return [" ".join(k) if isinstance(k, tuple) else k for k in keys]  # a text, or a (kind, text) pair


def test_events_and_run_reports_store_no_memory_text(engine, clock):
    ids = _make_copies(engine, clock)
    db = engine.store.db
    texts = [PLACE, NEAR, *GROUP, "Remember: the plumber comes on Tuesday."]
    details = " ".join(d for (d,) in db.execute("SELECT detail FROM events")).lower()
    reports = " ".join(r for (r,) in db.execute("SELECT report FROM maintenance_runs"))
    for text in texts:
        assert text not in details and text not in reports
    assert "zorblaxquint" not in details and MARK not in reports and "plumber" not in details
    edit = [e for e in engine.events(ids["place"]) if e.kind == "edit"][0]
    assert edit.detail["content"] == {"chars": len(PLACE), "previous_chars": len(texts[-1])}


def test_purging_a_statement_a_fact_copies_takes_the_copy_and_frees_the_others(engine, clock):
    ids = []
    for text in GROUP:
        ids.append(engine.write(text, layer="episodic", explicit=True).id)
        clock.advance(days=1)
    semantic = engine.run_maintenance()["consolidations"][0]["semantic"]
    copied = next(i for i in ids if engine.get(i).content == engine.get(semantic).content)
    receipt = engine.forget(ids=[copied], purge=True)
    assert set(receipt.forgotten) == {copied, semantic} and receipt.removed["reactivated"] == 2
    others = [i for i in ids if i != copied]
    assert all((engine.get(i).status, engine.get(i).superseded_by) == ("active", None) for i in others)
    assert {h.memory.id for h in engine.search("who do I work for?", limit=5).hits} >= set(others)


def test_purging_a_merged_away_duplicate_takes_what_the_survivor_borrowed(engine):
    from hindsight_desktop.core.maintenance.merge import absorb
    from hindsight_desktop.core.maintenance.passes import RunContext
    from hindsight_desktop.core.maintenance.policy import MaintenancePolicy

    survivor = engine.write("Remember that I drink oat milk in my coffee.", gate=False).id
    absorbed = engine.write(
        "Remember that I drink oat milk in my coffee (Quokka).", gate=False, metadata={"room": "Quokka Lane kitchen"}
    ).id
    # Merged as maintenance does (whether two texts are duplicates is the model's call, tested elsewhere).
    ctx = RunContext(engine.parts, "desktop", engine.clock(), MaintenancePolicy())
    with engine.store.write() as db:
        absorb(db, ctx, _rowid(engine, survivor), _rowid(engine, absorbed), 0.99)
    before = engine.get(survivor)
    assert before.metadata == {"room": "Quokka Lane kitchen"} and "Quokka" in [e.text for e in before.entities]
    receipt = engine.forget(ids=[absorbed], purge=True)
    assert receipt.forgotten == [absorbed] and receipt.removed["rederived"] == 1
    kept = engine.get(survivor)
    assert kept.metadata == {} and "Quokka" not in json.dumps([e.text for e in kept.entities])
    assert engine.store.db.execute("SELECT count(*) FROM entity_index WHERE value LIKE '%quokka%'").fetchone()[0] == 0
    assert b"Quokka" not in _raw(engine.store.path.parent)


def test_a_reader_that_keeps_the_wal_busy_is_reported_in_the_receipt(engine):
    mid = engine.write(f"Remember: the shed is painted {MARK} green.").id
    reader = connect_existing(engine.store.path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM memories").fetchall()  # holds a snapshot: the WAL cannot be reset
    receipt = engine.forget(ids=[mid], purge=True)
    assert receipt.forgotten == [mid] and receipt.wal_cleared is False
    reader.execute("COMMIT")
    reader.close()
    assert engine.store.checkpoint() is True
    assert MARK.lower().encode() not in _raw(engine.store.path.parent).lower()


@pytest.mark.parametrize("native", [True, False], ids=["sqlite-vec clears", "zeroed first"])
def test_deleted_vectors_leave_no_bytes_in_the_file(tmp_path: Path, monkeypatch, native: bool):
    """Old sqlite-vec releases only cleared a deleted row's validity bit. The installed one must clear
    the bytes itself (checked here), and the zero-first path used for older ones must too."""
    from hindsight_desktop.core.store import vectors as vector_module
    from hindsight_desktop.core.store.vectors import VectorIndex, register_model

    store = Store(tmp_path / "memory.sqlite3", encrypt=False)
    assert vector_module._native_delete_clears(store.db)  # the installed release is a clearing one
    monkeypatch.setattr(vector_module, "_delete_clears", native)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((40, 384)).astype(np.float32)
    with store.write() as db:
        num = register_model(db, "test-model", 384, utcnow())
        index = VectorIndex(num, 384)
        for i, v in enumerate(vectors, 1):
            index.add(db, i, v)
    assert store.checkpoint()
    assert all(w in _raw(tmp_path) for w in _windows(vectors[9].tobytes())[:4])
    with store.write() as db:
        assert index.delete(db, 10) == 1
        index.add(db, 11, vectors[0])  # a replaced vector goes too
    assert store.checkpoint()
    raw = _raw(tmp_path)
    for gone in (vectors[9], vectors[10]):
        assert not [w for w in _windows(gone.tobytes()) if w in raw]
    assert [w for w in _windows(vectors[12].tobytes()) if w in raw]  # the others are still there
    store.close()


def test_migration_backups_are_removed_once_the_migration_committed(tmp_path: Path):
    path = tmp_path / "memory.sqlite3"
    old = apsw.Connection(str(path))
    old.enable_load_extension(True)
    old.load_extension(sqlite_vec.loadable_path())
    for version, migrate in enumerate(MIGRATIONS[:-1]):
        migrate(old)
        old.execute(f"PRAGMA user_version={version + 1}")
    old.close()
    stale = tmp_path / "memory.v1.backup.sqlite3"  # left by a version that kept its backups
    stale.write_bytes(b"SQLite format 3\0" + MARK.encode())
    store = Store(path, encrypt=False)
    assert store.schema_version == len(MIGRATIONS)
    assert sorted(p.name for p in tmp_path.iterdir() if "backup" in p.name) == []
    store.close()
