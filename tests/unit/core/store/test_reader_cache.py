"""Read connections keep READER_CACHE_KIB of pages; the write connection keeps SQLite's default."""

from __future__ import annotations

import apsw
import pytest

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.store.database import READER_CACHE_KIB, SCAN_CACHE_KIB, Store


def test_each_reader_keeps_the_larger_page_cache(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    try:
        with store.read() as db:
            assert db.execute("PRAGMA cache_size").fetchone() == (-READER_CACHE_KIB,)
            assert db.execute("PRAGMA query_only").fetchone() == (1,)  # still read-only
        with store.write() as db:
            assert db.execute("PRAGMA cache_size").fetchone() != (-READER_CACHE_KIB,)
    finally:
        store.close()


def test_a_read_apart_is_a_snapshot_of_its_own_with_a_small_cache_and_leaves_nothing_open(tmp_path):
    """A background scan's read: its own read-only connection with SCAN_CACHE_KIB of pages, a snapshot
    that a later commit does not move, no pool connection taken or kept, and refused once the store closed."""
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('k', 'before')")
    with store.read_apart() as db:
        assert db.execute("PRAGMA cache_size").fetchone() == (-SCAN_CACHE_KIB,)
        assert db.execute("PRAGMA query_only").fetchone() == (1,)
        assert db.execute("SELECT value FROM meta WHERE key = 'k'").fetchone() == ("before",)  # the snapshot
        with store.write() as writer:
            writer.execute("UPDATE meta SET value = 'after' WHERE key = 'k'")
        assert db.execute("SELECT value FROM meta WHERE key = 'k'").fetchone() == ("before",)
    assert store.readers.opened == 0
    with pytest.raises(apsw.ConnectionClosedError):
        db.execute("SELECT 1")
    store.close()
    with pytest.raises(HindsightError, match="closed"), store.read_apart():
        pass
