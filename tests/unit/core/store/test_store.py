"""The SQLite file: pragmas, schema version, backups, refusal of a newer schema."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.core.store.database import MIGRATIONS, Store


def test_open_sets_wal_foreign_keys_and_version(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store.schema_version == len(MIGRATIONS)
    assert store.db.execute("SELECT vec_version()").fetchone()[0].startswith("v")
    store.close()


def test_failed_transaction_leaves_nothing(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with pytest.raises(RuntimeError), store.write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
        raise RuntimeError("crash in the middle")
    assert store.db.execute("SELECT count(*) FROM meta").fetchone()[0] == 0
    store.close()


def test_backup_is_a_readable_copy(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
    copy = store.backup(tmp_path / "copy.sqlite3")
    assert connect_existing(copy).execute("SELECT value FROM meta").fetchone()[0] == "v"
    store.close()


def test_migration_backs_up_first_and_keeps_the_backup_only_if_it_fails(tmp_path, monkeypatch):
    path = tmp_path / "m.sqlite3"
    Store(path).close()
    backup = tmp_path / f"m.v{len(MIGRATIONS)}.backup.sqlite3"

    def broken(db):
        assert backup.is_file() and backup.stat().st_mode & 0o777 == 0o600  # copied first, private
        raise RuntimeError("migration bug")

    monkeypatch.setattr("hindsight_desktop.core.store.database.MIGRATIONS", [*MIGRATIONS, broken])
    with pytest.raises(RuntimeError, match="migration bug"):
        Store(path)
    assert backup.is_file()  # a failed migration keeps its backup
    added = []
    monkeypatch.setattr(
        "hindsight_desktop.core.store.database.MIGRATIONS",
        [*MIGRATIONS, lambda db: added.append(db.execute("CREATE TABLE extra (x)"))],
    )
    store = Store(path)
    assert store.schema_version == len(MIGRATIONS) + 1
    assert added
    assert not backup.exists()  # a committed one removes it: a full copy a purge could not reach
    store.close()


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "m.sqlite3"
    Store(path).close()
    raw = connect_existing(path)
    raw.execute("PRAGMA user_version=999")
    raw.close()
    with pytest.raises(HindsightError, match="newer"):
        Store(path)


def test_filtered_timelines_and_fact_lookups_are_read_in_index_order(tmp_path):
    """At 100k memories a sort of every match per page took 130-290 ms; an index walk takes ~1 ms."""
    store = Store(tmp_path / "m.sqlite3")
    for column in ("status", "client"):
        plan = " ".join(
            row[3]
            for row in store.db.execute(
                f"EXPLAIN QUERY PLAN SELECT rowid FROM memories m WHERE m.{column} IN (?) "
                "ORDER BY m.occurred_at DESC, m.rowid DESC LIMIT 50",
                ("x",),
            )
        )
        assert "TEMP B-TREE" not in plan, plan
    plan = " ".join(
        row[3]
        for row in store.db.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM memories m WHERE m.fact_key = ? AND m.status = 'active'", ("k",)
        )
    )
    assert "fact_key=? AND status=?" in plan, plan
    store.close()
