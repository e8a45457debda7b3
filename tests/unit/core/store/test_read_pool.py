"""Reads through connections of their own: they go on beside a write transaction and beside each other."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import apsw
import pytest

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.store.database import Store

WAIT = 60  # seconds: only a guard against hanging when something is broken; never a measured time


def _meta(db: apsw.Connection) -> dict[str, str]:
    return dict(db.execute("SELECT key, value FROM meta").fetchall())


def test_a_read_goes_on_while_another_thread_holds_a_write_transaction(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('committed', '1')")
    writing, read_done = threading.Event(), threading.Event()
    seen: list[dict[str, str]] = []
    waited: list[bool] = []

    def writer() -> None:
        with store.write() as db:
            db.execute("INSERT INTO meta (key, value) VALUES ('uncommitted', '1')")
            writing.set()
            # The transaction stays open until the other thread's read has finished: with one shared
            # connection that read would wait for this transaction, and this wait would run out.
            waited.append(read_done.wait(WAIT))

    thread = threading.Thread(target=writer)
    thread.start()
    assert writing.wait(WAIT)
    with store.read() as db:
        seen.append(_meta(db))
    read_done.set()
    thread.join(WAIT)
    assert waited == [True]
    assert seen == [{"committed": "1"}]  # the committed state, not the other thread's open transaction
    with store.read() as db:
        assert _meta(db) == {"committed": "1", "uncommitted": "1"}
    store.close()


def test_a_read_inside_a_write_sees_what_that_write_did(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('mine', 'yes')")
        with store.read() as inner:
            assert inner is store.db
            assert _meta(inner) == {"mine": "yes"}
    store.close()


def test_a_nested_read_shares_the_snapshot_of_the_outer_one(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.read() as outer:
        assert _meta(outer) == {}
        with store.write() as db:  # commits while the read is open
            db.execute("INSERT INTO meta (key, value) VALUES ('later', '1')")
        with store.read() as inner:
            assert inner is outer and _meta(inner) == {}
    with store.read() as db:
        assert _meta(db) == {"later": "1"}
    store.close()


def test_reads_run_side_by_side_but_never_more_than_the_pool_holds(tmp_path):
    store = Store(tmp_path / "m.sqlite3", readers=2)
    pair = threading.Barrier(2, timeout=WAIT)  # each read waits for a second one to be inside too
    inside, most = [0], [0]
    count = threading.Lock()

    def read(_: int) -> int:
        with store.read() as db:
            with count:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            pair.wait()
            value = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            with count:
                inside[0] -= 1
        return value

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(read, range(6)))
    assert len(set(results)) == 1
    assert most[0] == 2 and store.readers.opened == 2
    store.close()


def test_a_connection_coming_back_goes_to_the_reader_that_waited_longest(tmp_path):
    # Without a line, a thread that reads in a tight loop takes the connection back at once, and one
    # that reads now and then (a writer checking the pause) can wait indefinitely.
    store = Store(tmp_path / "m.sqlite3", readers=1)
    held, release = threading.Event(), threading.Event()
    order: list[str] = []

    def holder() -> None:
        with store.read():
            held.set()
            release.wait(WAIT)

    def reader(name: str) -> None:
        with store.read():
            order.append(name)

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    assert held.wait(WAIT)
    for queued, name in enumerate(("first", "second", "third"), 1):
        threads.append(threading.Thread(target=reader, args=(name,)))
        threads[-1].start()
        while store.readers.waiting < queued and threads[-1].is_alive():  # in line before the next one starts
            threading.Event().wait(0.001)
    release.set()
    for thread in threads:
        thread.join(WAIT)
    assert order == ["first", "second", "third"] and store.readers.opened == 1
    store.close()


def test_a_reader_refuses_to_write(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.read() as db, pytest.raises(apsw.ReadOnlyError):
        db.execute("INSERT INTO meta (key, value) VALUES ('x', '1')")
    with store.read() as db:  # the connection went back to the pool usable, and nothing was written
        assert _meta(db) == {}
    store.close()


def test_idle_readers_let_a_checkpoint_empty_the_wal(tmp_path):
    path = tmp_path / "m.sqlite3"
    store = Store(path)
    opened = threading.Barrier(3, timeout=WAIT)

    def read() -> None:
        with store.read() as db:
            db.execute("SELECT count(*) FROM meta").fetchone()
            opened.wait()  # three readers open at once: three pooled connections

    threads = [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert store.readers.opened == 3
    with store.write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('x', ?)", ("y" * 10_000,))
    assert path.with_name(path.name + "-wal").stat().st_size > 0
    assert store.checkpoint(attempts=1)
    assert path.with_name(path.name + "-wal").stat().st_size == 0
    store.close()


def test_reads_after_close_are_refused(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.read() as db:
        db.execute("SELECT 1").fetchone()
    store.close()
    assert store.readers.opened == 0
    with pytest.raises(HindsightError, match="closed"), store.read():
        pass


def test_searches_from_many_threads_find_what_one_thread_finds(engine):
    texts = [
        f"Remember: {who} lives in {city} and plays the {thing}."
        for who, city, thing in (
            ("Amara", "Lisbon", "cello"),
            ("Bruno", "Osaka", "violin"),
            ("Chen", "Nairobi", "tango"),
            ("Dana", "Porto", "chess"),
            ("Elif", "Bergen", "tennis"),
            ("Farid", "Quito", "piano"),
        )
    ]
    for text in texts:
        engine.write(text, gate=False)
    queries = ["who plays the cello?", "Osaka", "Where does Chen live?", "chess in Porto", "tennis", "piano player"]

    def run(query: str) -> list[tuple[str, float]]:
        # Unlogged: a logged search counts as a use, which would move later rankings a little.
        return [(h.memory.id, h.relevance) for h in engine.search(query, limit=3, log=False).hits]

    serial = [run(q) for q in queries]
    start = threading.Barrier(len(queries) * 2, timeout=WAIT)

    def together(query: str) -> list[tuple[str, float]]:
        start.wait()
        return run(query)

    with ThreadPoolExecutor(len(queries) * 2) as pool:
        parallel = list(pool.map(together, queries * 2))
    assert parallel == serial * 2
    assert all(hits for hits in serial)
