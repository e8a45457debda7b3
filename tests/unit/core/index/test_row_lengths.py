"""The row lengths kept across writes give exactly what reading them from FTS5 gives: after every kind of
change (a new memory, a forgotten one, new words for one, a change of who sees it, a rolled-back write,
another connection's write), each viewer's statistics and keyword results equal those of a connection
that reads every length and posting from FTS5, and own writes are followed by reading only what
changed."""

from __future__ import annotations

import random
import threading
import time
from datetime import UTC, datetime

import numpy as np
import pytest
from support.store import insert_indexed

from hindsight_desktop.core.index import kept_postings, keyword, keyword_stats, postings, row_lengths
from hindsight_desktop.core.store.connections import open_connection
from hindsight_desktop.core.store.database import Store

WHEN = datetime(2026, 5, 1, tzinfo=UTC)
WORDS = ["ramen", "Lisbon", "coffee", "tea", "dentist", "Priya", "flight", "garden", "朵朵", "钢琴", "杭州", "老师"]
QUESTIONS = ["ramen in Lisbon", "coffee or tea", "Priya's dentist", "flight Lisbon Priya", "朵朵的钢琴老师", "杭州"]
VIEWERS = [None, "me", "other", "nobody"]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randrange(1, 12))) + f" n{rng.randrange(10**6)}"


def _reference(path, key):
    """A connection of no store: its statistics read every length from FTS5, as before the ledger."""
    db = open_connection(path, key)
    postings.create_instance_tables(db)
    return db


def _same_everywhere(store: Store) -> None:
    plain = _reference(store.path, store.key)
    try:
        with store.read() as db:
            assert row_lengths.ledger_of(db) is store.row_lengths
            plain.execute("BEGIN")
            for viewer in VIEWERS:
                kept, fresh = keyword_stats.view(db, viewer), keyword_stats.view(plain, viewer)
                # The lengths serve the viewers with hidden rows (the others' searches are FTS5's own).
                assert (kept.words.lengths is not None) == bool(len(kept.hidden)) and fresh.words.lengths is None
                for got, want in ((kept.words, fresh.words), (kept.trigram, fresh.trigram)):
                    assert (got.rows, got.tokens, got.hidden) == (want.rows, want.tokens, want.hidden)
                for question in QUESTIONS:
                    assert keyword.search(db, question, 20, kept) == keyword.search(plain, question, 20, fresh)
            plain.execute("COMMIT")
    finally:
        plain.close()


def _write(store: Store, rng: random.Random, rowids: list[int]) -> None:
    """One random change through the store's writer."""
    with store.write() as db:
        kind = rng.choice(["add", "add", "forget", "reindex", "scope"] if rowids else ["add"])
        if kind == "add":
            rowid = insert_indexed(db, _text(rng), WHEN)
            if rng.random() < 0.3:
                db.execute(
                    "UPDATE memories SET scope = 'private', client = ? WHERE rowid = ?",
                    (rng.choice(["me", "other"]), rowid),
                )
            rowids.append(rowid)
        elif kind == "forget":
            rowid = rowids.pop(rng.randrange(len(rowids)))
            keyword.delete(db, rowid)
            db.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
        elif kind == "reindex":  # new words for the same rowid, of another length
            rowid = rng.choice(rowids)
            keyword.delete(db, rowid)
            keyword.add(db, rowid, _text(rng), [], WHEN)
        else:  # a change of scope re-indexes the words (write/edit.py)
            rowid = rng.choice(rowids)
            (text,) = db.execute("SELECT content FROM memories WHERE rowid = ?", (rowid,)).fetchone()
            scope = rng.choice(["private", "shared"])
            db.execute("UPDATE memories SET scope = ?, client = 'other' WHERE rowid = ?", (scope, rowid))
            keyword.delete(db, rowid)
            keyword.add(db, rowid, text, [], WHEN)


def _filled(tmp_path, seed: int, writes: int) -> Store:
    """A store after `writes` random changes, the rowids it holds in `store.rowids`."""
    store = Store(tmp_path / "m.sqlite3", encrypt=False)
    rng = random.Random(seed)
    rowids: list[int] = []
    for _ in range(writes):
        _write(store, rng, rowids)
    store.rowids = rowids  # type: ignore[attr-defined]
    return store


@pytest.fixture
def store(tmp_path):
    store = _filled(tmp_path, 3, 30)
    with store.read() as db:
        store.row_lengths.load(db)  # as a served process's warm-up does
    yield store
    store.close()


# The changed rows' texts tokenized, or (their texts not noted) the rows sought in FTS5 one by one, or as a list.
@pytest.mark.parametrize("way", ["texts", "one by one", "as a list"])
def test_own_writes_are_followed_by_reading_only_the_changed_rows(store, monkeypatch, way):
    if way != "texts":
        monkeypatch.setattr(row_lengths, "note_text", lambda *_: None)
    monkeypatch.setattr(kept_postings, "_ONE_BY_ONE", 0 if way == "as a list" else 16)
    sought: list[str] = []
    matches = kept_postings._matches
    monkeypatch.setattr(
        kept_postings, "_matches", lambda db, t, phrase, rows: sought.append(phrase) or matches(db, t, phrase, rows)
    )
    rng = random.Random(8)
    full_reads: list[str] = []
    read_all = row_lengths._read_all
    monkeypatch.setattr(row_lengths, "_read_all", lambda db, table: full_reads.append(table) or read_all(db, table))
    _same_everywhere(store)
    assert full_reads == []  # read by the warm-up's load
    posting_reads: list[str] = []
    read = postings.read
    monkeypatch.setattr(
        postings,
        "read",
        lambda db, table, phrase, lengths=None: (
            posting_reads.append(phrase) if row_lengths.ledger_of(db) else None,
            read(db, table, phrase, lengths),
        )[1],
    )
    for i in range(40):
        _write(store, rng, store.rowids)
        if i % 3:  # and sometimes two writes between searches
            _same_everywhere(store)
    assert full_reads == []  # every write after that was patched in
    assert posting_reads == []  # and so was every posting asked again
    assert bool(sought) == (way != "texts")  # from the texts the writes put in, FTS5 not asked


def test_a_write_of_another_connection_is_read_in_full_and_still_equal(store, monkeypatch):
    rng = random.Random(9)
    _same_everywhere(store)
    other = Store(store.path, encrypt=False)
    full_reads: list[str] = []
    read_all = row_lengths._read_all
    monkeypatch.setattr(row_lengths, "_read_all", lambda db, table: full_reads.append(table) or read_all(db, table))
    try:
        for _ in range(6):
            _write(other, rng, store.rowids)  # another process's write: never patched in
            _same_everywhere(store)
            _write(store, rng, store.rowids)
            _same_everywhere(store)
    finally:
        other.close()
    assert full_reads  # the foreign writes were read in full


def test_a_rolled_back_write_changes_nothing_kept(store):
    _same_everywhere(store)
    with pytest.raises(RuntimeError), store.write() as db:
        insert_indexed(db, "ramen ramen ramen Lisbon tea", WHEN)
        keyword.delete(db, store.rowids[0])
        raise RuntimeError("the write fails")
    _same_everywhere(store)
    _write(store, random.Random(1), store.rowids)
    _same_everywhere(store)


def test_a_text_that_is_not_what_the_index_holds_is_not_used(store, monkeypatch):
    """The texts are checked against FTS5's length of each row: one noted but never committed (a write
    that failed at COMMIT, after its statements), or noted wrong, sends the search to FTS5."""
    _same_everywhere(store)
    sought: list[str] = []
    matches = kept_postings._matches
    monkeypatch.setattr(
        kept_postings, "_matches", lambda db, t, phrase, rows: sought.append(phrase) or matches(db, t, phrase, rows)
    )
    note = row_lengths.note_text
    # Each row noted as holding one more word than was indexed: the wrong length.
    monkeypatch.setattr(row_lengths, "note_text", lambda db, t, r, text: note(db, t, r, text and text + " ramen"))
    _write(store, random.Random(2), store.rowids)
    _same_everywhere(store)
    assert sought  # FTS5 was asked, and the postings are still those a full read gives


@pytest.mark.parametrize(
    "text",
    [
        "Café CAFÉ cafe caffè: naïve résumé, the runner's running runs",  # diacritics, stems, apostrophes
        "ramen ramen RAMEN Ramen-ramen ramen's",  # one word many times
        "朵朵的钢琴老师在杭州，老师说朵朵弹得好",  # Chinese words, characters and pairs
        "Lisbon flight KX4821 on 2026-05-01, Priya & co. — ramen 🍜 tea",  # codes, dates, symbols
    ],
)
def test_a_text_is_counted_as_fts5_counts_it(store, monkeypatch, text):
    """For any text: the postings brought up to date from the text a write put in equal FTS5's own."""
    sought: list[str] = []
    matches = kept_postings._matches
    monkeypatch.setattr(
        kept_postings, "_matches", lambda db, t, phrase, rows: sought.append(phrase) or matches(db, t, phrase, rows)
    )
    asked = [keyword.quote(t) for t in [*keyword.query_terms(text), text[:3], "ramen", "朵朵"]]
    for when in ("before", "after"):
        if when == "after":
            with store.write() as db:
                store.rowids.append(insert_indexed(db, text, WHEN))
        with store.read() as db:
            state, kept = row_lengths.index_state(db), kept_postings.of(db)
            assert kept is not None
            for table in postings.TABLES:
                lengths = store.row_lengths.lengths(db, table, state, *_totals(db, table))
                assert lengths is not None
                for phrase in asked:
                    if postings.query_token(db, table, phrase) is None:
                        continue
                    got = kept.get(db, table, phrase, state, lengths)  # before: kept; after: brought up to date
                    want = postings.read(db, table, phrase, lengths)
                    assert got is not None and want is not None
                    assert (got.rowids.tolist(), got.counts.tolist()) == (want.rowids.tolist(), want.counts.tolist())
    assert sought == []
    _same_everywhere(store)


def _totals(db, table: str) -> tuple[int, int]:
    keyword_stats._register(db)  # FTS5's row count and token total, as a viewer's statistics read them
    row = db.execute(f"SELECT {keyword_stats.ROWS}({table}), {keyword_stats.TOKENS}({table}) FROM {table} LIMIT 1")
    rows, tokens = row.fetchone()
    return int(rows), int(tokens)


def test_an_array_whose_totals_differ_from_fts5_is_not_used(store):
    _same_everywhere(store)
    with store.read() as db:
        table = postings.TABLES[0]
        state = row_lengths.index_state(db)
        kept = store.row_lengths._kept[table]
        wrong = kept.lengths.copy()
        wrong[np.flatnonzero(~np.isnan(wrong))[0]] += 1  # a length the ledger missed
        store.row_lengths._kept[table] = row_lengths._Kept(state, wrong, kept.rows, kept.tokens + 1)
        seen = keyword_stats.view(db, "me")  # the view of this state is kept: ask for a fresh one
        keyword_stats._views.pop(db, None)
        seen = keyword_stats.view(db, "me")
        assert seen.words.lengths is not None and np.array_equal(seen.words.lengths, kept.lengths, equal_nan=True)
    _same_everywhere(store)


def test_a_process_that_did_not_ask_for_the_lengths_reads_them_per_posting(tmp_path):
    store = _filled(tmp_path, 4, 20)
    with store.write() as db:
        private = insert_indexed(db, "ramen Lisbon, private", WHEN)
        db.execute("UPDATE memories SET scope = 'private', client = 'other' WHERE rowid = ?", (private,))
    with store.read() as db:
        seen = keyword_stats.view(db, "me")
        assert len(seen.hidden) and seen.words.lengths is None  # no full read for a command's one search
        asked = keyword.search(db, "ramen Lisbon", 10, seen)
        store.row_lengths.load(db)
        keyword_stats._views.pop(db, None)
        loaded = keyword_stats.view(db, "me")
        assert loaded.words.lengths is not None and keyword.search(db, "ramen Lisbon", 10, loaded) == asked
    store.close()


def test_a_full_read_by_ranges_of_rowids_reads_every_row(store, monkeypatch):
    with store.read() as db:
        for table in postings.TABLES:
            whole = row_lengths._read_all(db, table)
            monkeypatch.setattr(row_lengths, "_READ_RANGE", 7)
            ranged = row_lengths._read_all(db, table)
            monkeypatch.undo()
            assert np.array_equal(whole.lengths, ranged.lengths, equal_nan=True) and whole.rows == len(store.rowids)
            assert (whole.rows, whole.tokens) == (ranged.rows, ranged.tokens)


def test_kept_postings_hold_no_lengths_and_a_count_past_their_type_stays_exact(store):
    """What a read connection keeps is compact (the lengths are the array's; its views keep theirs as
    float32), and a row brought in later whose count does not fit the kept type is still counted exactly."""
    _same_everywhere(store)
    with store.read() as db:
        kept = [p for _, (_, p) in kept_postings.of(db).kept() if p is not None]
        viewed = [p for _, p in keyword_stats.view(db, "me").words._postings.items() if p is not None]
        assert kept and all(p.lengths is None and p.counts.dtype == np.uint16 for p in kept)
        assert viewed and all(p.lengths is not None and p.lengths.dtype == np.float32 for p in viewed)
    with store.write() as db:
        many = insert_indexed(db, "ramen " * 70_000 + "Lisbon", WHEN)
    _same_everywhere(store)  # the kept postings brought up to date, not read again
    with store.read() as db:
        (_, ramen), *_ = [v for (t, q), v in kept_postings.of(db).kept() if t == "fts_words" and "ramen" in q]
        assert ramen is not None and ramen.counts[np.searchsorted(ramen.rowids, many)] == 70_000


def test_read_connections_share_the_kept_postings(store, monkeypatch):
    """A posting one read connection read is not read again by another connection of the same store."""
    full_reads: list[str] = []
    read = postings.read
    monkeypatch.setattr(
        postings, "read", lambda db, table, phrase, *a: (full_reads.append(phrase), read(db, table, phrase, *a))[1]
    )
    with store.read() as first:
        found = keyword.search(first, "ramen Lisbon", 20, keyword_stats.view(first, "me"))
        asked = len(full_reads)
        assert asked
        second_results: list = []

        def search_elsewhere() -> None:
            with store.read() as second:
                assert second is not first
                second_results.append(keyword.search(second, "ramen Lisbon", 20, keyword_stats.view(second, "me")))

        worker = threading.Thread(target=search_elsewhere)
        worker.start()
        worker.join()
        assert len(full_reads) == asked and second_results == [found]


def test_a_closed_store_s_kept_postings_are_let_go(tmp_path):
    """The postings are kept per store: once the store is closed and gone, nothing keeps them, its ledger
    or its connections alive (a tokenizer kept per connection used to keep its connection)."""
    import gc
    import weakref

    store = _filled(tmp_path, 3, 30)
    with store.read() as db:
        store.row_lengths.load(db)
        keyword.search(db, "ramen Lisbon", 20, keyword_stats.view(db, "me"))
        kept = weakref.ref(kept_postings.of(db))
        reader = weakref.ref(db)
    ledger = weakref.ref(store.row_lengths)
    assert kept() is not None and kept().kept()
    store.close()
    del store, db
    gc.collect()
    assert kept() is None and ledger() is None and reader() is None


def test_searches_on_several_threads_share_the_postings_and_agree(store):
    """Four threads search at once through their own read connections, sharing one set of kept postings,
    while the writer changes the index: every search equals a full read at the same snapshot."""
    rng = random.Random(17)
    failures: list[str] = []
    compared: list[int] = []
    stop = threading.Event()

    def search_repeatedly(viewer: str) -> None:
        plain = _reference(store.path, store.key)
        try:
            while not stop.is_set():
                with store.read() as db:
                    # The reference reads the same snapshot: a read transaction started while db's is open
                    # could see a later commit, so compare only when no commit came in between.
                    before = row_lengths.index_state(db)
                    plain.execute("BEGIN")
                    try:
                        if row_lengths.index_state(plain) != before:
                            continue
                        for question in QUESTIONS:
                            got = keyword.search(db, question, 20, keyword_stats.view(db, viewer))
                            want = keyword.search(plain, question, 20, keyword_stats.view(plain, viewer))
                            compared.append(1)
                            if got != want:
                                failures.append(f"{viewer}: {question}")
                    finally:
                        plain.execute("COMMIT")
        finally:
            plain.close()

    workers = [threading.Thread(target=search_repeatedly, args=(v,)) for v in ("me", "other", "nobody", "me")]
    for worker in workers:
        worker.start()
    try:
        for _ in range(25):
            _write(store, rng, store.rowids)
            time.sleep(0.02)  # searches at several states, and some brought forward from the last
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    assert not failures, failures[:5]
    assert len(compared) > 100
    _same_everywhere(store)


def test_the_texts_kept_are_bounded_and_the_oldest_go_first(store, monkeypatch):
    monkeypatch.setattr(row_lengths, "_TEXT_CHARS", 400)
    rng = random.Random(4)
    _same_everywhere(store)
    for _ in range(30):
        _write(store, rng, store.rowids)
    chain = store.row_lengths._chain
    kept = [sum(len(t) for texts in step.texts.values() for t in texts.values() if t) for step in chain]
    assert sum(kept) <= 400 and kept[-1] > 0  # the newest commit's texts are kept
    assert any(sum(map(len, step.rows.values())) and not step.texts for step in chain)
    _same_everywhere(store)  # postings kept from before the let-go texts: brought up to date through FTS5
