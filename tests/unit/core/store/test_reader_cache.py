"""Read connections keep READER_CACHE_KIB of pages; the write connection keeps SQLite's default."""

from __future__ import annotations

from hindsight_desktop.core.store.database import READER_CACHE_KIB, Store


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
