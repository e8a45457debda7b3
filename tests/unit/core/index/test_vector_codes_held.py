"""The search cache's int8 codes, held in memory or read from the file per search, give the same answers;
a background load of them changes no answer; a v10 file's block codes move to rows unchanged."""

from __future__ import annotations

import contextlib
import shutil
import threading

import numpy as np
import pytest
from support.paths import FIXTURES

from hindsight_desktop.core.index import vector_cache, vector_codes
from hindsight_desktop.core.index.vector_cache import EXACT_BELOW
from hindsight_desktop.core.store.database import Store, utcnow
from hindsight_desktop.core.store.vectors import VectorIndex, register_model


def _clustered(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(200, dim))
    data = centres[rng.integers(0, 200, n)] + 0.6 * rng.normal(size=(n, dim))
    return (data / np.linalg.norm(data, axis=1, keepdims=True)).astype(np.float32)


def _answers(store: Store, index: VectorIndex, queries: np.ndarray, hidden: np.ndarray) -> list:
    with store.read() as db:
        out = []
        for q in queries:
            out.append(index.nearest(db, q, 10))
            out.append(index.nearest(db, q, 10, hidden))
        rowids, matrix = index.matrix(db, [5, 3, 3, 10_000, 7, 1])
        out.append((rowids, matrix.tobytes()))
    return out


def test_codes_read_from_the_file_rank_exactly_as_held_codes(tmp_path):
    """One store, two caches: one holds the codes, one reads each search's candidates' codes from the
    file; before and after deletes, a replaced vector and new ones, every answer is the same to the bit."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 32, EXACT_BELOW + 300  # past EXACT_BELOW: the Hamming pass picks the candidates
    data = _clustered(n + 20, dim, seed=21)
    with store.write() as db:
        num = register_model(db, "test-model", dim, utcnow())
        held = VectorIndex(num, dim)
        for rowid in range(1, n + 1):
            held.add(db, rowid, data[rowid - 1])
    reading = VectorIndex(num, dim)
    reading.cache.hold_up_to = 0
    queries, hidden = data[n : n + 8], np.arange(1, 400, 3, dtype=np.int64)
    assert _answers(store, held, queries, hidden) == _answers(store, reading, queries, hidden)
    assert held.cache.held and not reading.cache.held
    with store.write() as db:
        for rowid in range(2, 300, 7):
            held.delete(db, rowid)
        held.add(db, 5, -data[0])  # replaced
        for rowid in range(n + 1, n + 13):
            held.add(db, rowid, data[rowid - 1])
    assert _answers(store, held, queries, hidden) == _answers(store, reading, queries, hidden)
    assert not reading.cache.held and len(reading.cache) == len(held.cache)
    store.close()


def test_a_background_load_holds_the_codes_after_a_change_it_saw_first(tmp_path, monkeypatch):
    """A fresh cache with a reader answers from the file at once and holds the codes when the background
    load is done; a vector written after the cache's first search but before the load's snapshot (so the
    load sees it and the cache not yet) is applied first, and every answer stays that of a held cache."""
    monkeypatch.setattr(vector_cache, "LOAD_NOW_UP_TO", 0)
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 32, EXACT_BELOW + 100
    data = _clustered(n + 10, dim, seed=8)
    with store.write() as db:
        num = register_model(db, "test-model", dim, utcnow())
        writer = VectorIndex(num, dim)
        for rowid in range(1, n + 1):
            writer.add(db, rowid, data[rowid - 1])
    release = threading.Event()

    @contextlib.contextmanager
    def reader():
        release.wait(60)
        with store.write() as db:
            writer.add(db, n + 1, data[n])  # a change before the load's snapshot
        with store.read() as db:
            yield db

    loading = VectorIndex(num, dim, reader)
    queries, hidden = data[n : n + 6], np.arange(1, 200, 2, dtype=np.int64)
    with store.read() as db:
        first = loading.nearest(db, queries[1], 10)
    assert not loading.cache.held and len(loading.cache) == n  # bits only, codes on their way
    release.set()
    for _ in range(600):
        if loading.cache.held:
            break
        threading.Event().wait(0.05)
    assert loading.cache.held and len(loading.cache) == n + 1
    fresh = VectorIndex(num, dim)
    with store.read() as db:
        assert first == [hit for hit in fresh.nearest(db, queries[1], 11) if hit[0] != n + 1][:10]
        assert loading.nearest(db, data[n], 1)[0][0] == n + 1
    assert _answers(store, loading, queries, hidden) == _answers(store, fresh, queries, hidden)
    store.close()


def test_version_10_block_codes_move_to_rows_unchanged(tmp_path):
    """The v10 fixture's codes, after the migration: one row per vector, the codes of its stored vector."""
    path = tmp_path / "memory.sqlite3"
    shutil.copyfile(FIXTURES / "schemas" / "v10.sqlite3", path)
    store = Store(path)
    with store.read() as db:
        assert db.execute("SELECT 1 FROM sqlite_schema WHERE name = 'vector_block_codes'").fetchone() is None
        for num, dim in db.execute("SELECT num, dim FROM models").fetchall():
            stored = db.execute(f"SELECT rowid, embedding FROM vec_{num} ORDER BY rowid").fetchall()
            found, codes, scale = vector_codes.all_codes(db, num, dim)
            assert found.tolist() == [r for r, _ in stored] and len(stored) > 0
            matrix = np.stack([np.frombuffer(b, dtype=np.float32) for _, b in stored])
            want_codes, want_scale = vector_codes.int8_codes(matrix)
            assert np.array_equal(codes, want_codes) and np.array_equal(scale, want_scale)
    store.close()


def test_two_models_codes_stay_apart_and_a_dropped_model_takes_only_its_own(tmp_path):
    """Code rows of two models share one table by key: the same rowid in each keeps its own codes, a
    model's full read and its drop see only its rows, and a rowid past the key's span is refused by name."""
    store = Store(tmp_path / "v.sqlite3")
    dim = 16
    data = _clustered(60, dim, seed=3)
    with store.write() as db:
        first = VectorIndex(register_model(db, "model-a", dim, utcnow()), dim)
        second = VectorIndex(register_model(db, "model-b", dim, utcnow()), dim)
        for rowid in range(1, 31):
            first.add(db, rowid, data[rowid])
            second.add(db, rowid, data[rowid + 29])
    with store.read() as db:
        for index, offset in ((first, 0), (second, 29)):
            found, codes, _ = vector_codes.all_codes(db, index.num, dim)
            assert found.tolist() == list(range(1, 31))
            assert np.array_equal(codes, vector_codes.int8_codes(data[1 + offset : 31 + offset])[0])
    with store.write() as db:
        vector_codes.drop_model(db, first.num)
    with store.read() as db:
        assert len(vector_codes.all_codes(db, first.num, dim)[0]) == 0
        assert vector_codes.all_codes(db, second.num, dim)[0].tolist() == list(range(1, 31))
    with pytest.raises(ValueError, match="rowid"):
        vector_codes.key(second.num, vector_codes.ROWID_SPAN)
    store.close()


@pytest.mark.parametrize("split", [False, True], ids=["one thread", "halves on two threads"])
def test_the_hamming_pass_counts_every_row_across_chunks(tmp_path, monkeypatch, split):
    """Counted in chunks (the last one short), and in a large cache its second half on another thread,
    each row's distance is the popcount of its bits against the query's, as one pass over all rows gives it."""
    monkeypatch.setattr(vector_cache, "HAMMING_CHUNK", 1000)
    monkeypatch.setattr(vector_cache, "SPLIT_FROM", 0 if split else 10**9)
    monkeypatch.setattr(vector_cache.os, "cpu_count", lambda: 2)
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 100, 4321  # two words a vector, the second part-filled
    data = _clustered(n + 1, dim, seed=13)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for rowid in range(1, n + 1):
            index.add(db, rowid, data[rowid - 1])
    with store.read() as db:
        index.cache.refresh(db)
    cache, words = index.cache, vector_codes.words_of(dim)
    query = vector_codes.sign_bits(data[n : n + 1], words)[0]
    every = vector_codes.sign_bits(data[:n], words)
    want = np.bitwise_count(every ^ query).sum(axis=1)
    got = cache._hamming(query, len(cache))
    assert np.array_equal(got, want[cache._rowids[: len(cache)] - 1])
    store.close()


def test_every_row_within_the_cut_off_distance_goes_on_to_rescoring(tmp_path, monkeypatch):
    """The coarse pass keeps exactly the rows at or under the keep-th smallest distance among the visible
    rows, every row tied at it included, and never a hidden one."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 64, EXACT_BELOW + 3000  # one word a vector: many rows tie at each distance
    data = _clustered(n + 5, dim, seed=21)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for rowid in range(1, n + 1):
            index.add(db, rowid, data[rowid - 1])
    cache, words = index.cache, vector_codes.words_of(dim)
    asked: list[np.ndarray] = []
    codes_at = vector_cache.VectorCache._codes_at
    monkeypatch.setattr(
        vector_cache.VectorCache, "_codes_at", lambda self, db, rows: (asked.append(rows), codes_at(self, db, rows))[1]
    )
    hidden = np.arange(2, n + 1, 9, dtype=np.int64)
    with store.read() as db:
        for q, shut in [(data[n], None), (data[n + 1], hidden), (data[n + 2], None)]:
            asked.clear()
            index.nearest(db, q, 10, shut)
            query = vector_codes.sign_bits(q[None, :], words)[0]
            every = np.bitwise_count(vector_codes.sign_bits(data[:n], words) ^ query).sum(axis=1)
            visible = np.ones(n, dtype=bool) if shut is None else ~np.isin(np.arange(1, n + 1), shut)
            keep = min(int(visible.sum()), max(vector_cache.MIN_RESCORE, 10 * vector_cache.RESCORE_FACTOR))
            cutoff = np.sort(every[visible])[keep - 1]
            want = np.flatnonzero(visible & (every <= cutoff)) + 1
            got = np.sort(cache._rowids[asked[0]])
            assert np.array_equal(got, want)
            assert len(want) > keep  # ties at the cut-off were kept, not cut to `keep`
    store.close()
