"""The vector index: the in-process cache agrees with exact search and sees other processes' changes."""

from __future__ import annotations

import numpy as np

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.index.vector_cache import EXACT_BELOW
from hindsight_desktop.core.store.database import Store, utcnow
from hindsight_desktop.core.store.vectors import VectorIndex, register_model


def _clustered(n: int, dim: int, seed: int = 3) -> np.ndarray:
    """Vectors around a few hundred centres, like sentence embeddings of related texts."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(300, dim))
    data = centres[rng.integers(0, 300, n)] + 0.6 * rng.normal(size=(n, dim))
    return (data / np.linalg.norm(data, axis=1, keepdims=True)).astype(np.float32)


def test_coarse_pass_finds_the_true_neighbours(tmp_path):
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 384, EXACT_BELOW * 2
    data = _clustered(n, dim)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i, vector)
    rng = np.random.default_rng(5)
    queries = data[rng.integers(0, n, 30)] + 0.05 * rng.normal(size=(30, dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    overlap = []
    with store.read() as db:
        for q in queries:
            exact = set((np.argsort(-(data @ q))[:10] + 1).tolist())
            found = {rowid for rowid, _ in index.nearest(db, q, 10)}
            overlap.append(len(exact & found) / 10)
            best_rowid, best_sim = index.nearest(db, q, 1)[0]
            assert abs(best_sim - float(data[best_rowid - 1] @ q)) < 1e-2  # exact rescoring, int8 error only
    assert np.mean(overlap) >= 0.95
    store.close()


def test_coarse_pass_after_deletions(tmp_path):
    """Deleting moves the last vector into the hole; the bits, codes and rowids must move together."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 384, EXACT_BELOW * 2
    data = _clustered(n, dim, seed=8)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i, vector)
    with store.read() as db:
        index.nearest(db, data[0], 1)  # load the cache before the deletions, so they are replayed
    gone = set(range(1, n + 1, 7))
    with store.write() as db:
        for rowid in gone:
            index.delete(db, rowid)
    alive = np.array(sorted(set(range(1, n + 1)) - gone))
    rng = np.random.default_rng(9)
    overlap = []
    with store.read() as db:
        for rowid in rng.choice(alive, 30):
            q = data[rowid - 1]
            exact = set(alive[np.argsort(-(data[alive - 1] @ q))[:10]].tolist())
            found = index.nearest(db, q, 10)
            assert found[0] == (int(rowid), found[0][1]) and found[0][1] > 0.99  # itself, still at its place
            assert not {r for r, _ in found} & gone
            overlap.append(len(exact & {r for r, _ in found}) / 10)
    assert len(index.cache) == len(alive)
    assert np.mean(overlap) >= 0.95
    store.close()


def test_second_engine_sees_writes_edits_and_purges(tmp_path, embedder):
    first = MemoryEngine(tmp_path / "d", embedder=embedder)
    second = MemoryEngine(tmp_path / "d", embedder=embedder)  # its own connection and cache, like another process
    assert second.search("anything at all", mode="vector").hits == []
    mid = first.write("Remember: the canoe is stored in Aunt Mei's garage.").id
    assert second.search("where is the canoe?").hits[0].memory.id == mid
    first.edit(mid, content="Remember: the canoe now lives at the rowing club.")
    hit = second.search("rowing club canoe").hits[0]
    assert hit.memory.id == mid and hit.scores["vector"] > 0.5
    first.forget(ids=[mid], purge=True)
    assert second.search("canoe", mode="vector", deep=True).hits == []
    first.close()
    second.close()


def test_warm_up_loads_the_search_cache_without_logging_a_search(tmp_path, embedder):
    with MemoryEngine(tmp_path, embedder=embedder) as first:
        for text in ("Remember: the spare key is under the blue pot.", "Remember: Lena's flight is LH 1234."):
            first.write(text)
    with MemoryEngine(tmp_path, embedder=embedder) as engine:
        assert len(engine.parts.vectors.cache) == 0  # a new process reads vectors only when needed
        engine.warm_up_in_background().join(timeout=60)
        assert len(engine.parts.vectors.cache) == 2
        assert engine.stats()["searches"] == 0  # not a search anyone made: the hit rate stays honest


def test_hidden_rows_change_nothing_the_asker_gets():
    """Rows hidden from the asker are left out before the coarse cut: the answer over a cache holding
    extra hidden rows near the query is the answer over a cache without them, on both paths."""
    from hindsight_desktop.core.index.vector_cache import VectorCache

    rng = np.random.default_rng(7)
    dim = 64
    query = rng.standard_normal(dim).astype(np.float32)
    query /= np.linalg.norm(query)

    def rows(first: int, count: int, near: bool) -> list[tuple[int, bytes]]:
        base = rng.standard_normal((count, dim)).astype(np.float32) + (3 * query if near else 0)
        base /= np.linalg.norm(base, axis=1, keepdims=True)
        return [(first + i, base[i].tobytes()) for i in range(count)]

    for visible in (EXACT_BELOW - 50, EXACT_BELOW * 2):
        mine = rows(1, visible, near=False)
        theirs = rows(10**6, 600, near=True)  # closer to the query than anything visible
        alone, crowded = VectorCache("t", 1, dim), VectorCache("t", 1, dim)
        alone._extend(mine)
        crowded._extend(mine[: visible // 2] + theirs + mine[visible // 2 :])
        hidden = np.array(sorted(r for r, _ in theirs), dtype=np.int64)
        assert crowded.nearest(query, 20, hidden) == alone.nearest(query, 20)
        assert not {r for r, _ in crowded.nearest(query, 20, hidden)} & set(hidden.tolist())


def test_first_load_reads_the_stored_chunks_as_the_table_holds_them(tmp_path):
    """The first fill reads sqlite-vec's chunks directly: the same rowids and codes as reading the vec0
    table row by row, deleted rows (cleared validity bits) and a part-filled last chunk included."""
    from hindsight_desktop.core.index.vector_cache import VectorCache, _stored_chunks

    store = Store(tmp_path / "v.sqlite3")
    dim, n = 16, 2500  # three chunks of sqlite-vec's 1024, the last part-filled
    data = _clustered(n, dim, seed=11)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i * 3, vector)  # rowids with gaps
        for rowid in range(3, 3 * n, 21):
            index.delete(db, rowid)
        index.add(db, 9, data[0] * -1)  # a replaced vector
    with store.read() as db:
        assert _stored_chunks(db, index.table, dim) is not None  # this sqlite-vec's layout is the one known
        by_chunks, by_rows = VectorCache(index.table, index.num, dim), VectorCache(index.table, index.num, dim)
        by_chunks.refresh(db)
        by_rows._allocate(n)
        by_rows._load_rows(db)
        expected = {
            int(r): np.frombuffer(b, dtype=np.float32)
            for r, b in db.execute(f"SELECT rowid, embedding FROM {index.table}")
        }
    assert len(by_chunks) == len(by_rows) == len(expected)
    assert np.array_equal(by_chunks._rowids[: len(expected)], by_rows._rowids[: len(expected)])  # the same order
    for cache in (by_chunks, by_rows):
        found, rows = cache.matrix(sorted(expected))
        assert found == sorted(expected)
        assert np.allclose(rows, np.stack([expected[r] for r in found]), atol=0.02)
    chunks_found, chunk_rows = by_chunks.matrix(sorted(expected))
    _, row_rows = by_rows.matrix(sorted(expected))
    assert np.array_equal(chunk_rows, row_rows)  # bit for bit: the same codes, so the same ranking
    q = data[5]
    assert by_chunks.nearest(q, 10) == by_rows.nearest(q, 10)
    store.close()


def test_first_load_falls_back_to_the_table_when_the_chunks_disagree(tmp_path):
    """Chunks that do not account for every row (another sqlite-vec's layout) are not trusted."""
    from hindsight_desktop.core.index.vector_cache import VectorCache, _stored_chunks

    store = Store(tmp_path / "v.sqlite3")
    dim = 8
    data = _clustered(50, dim, seed=2)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i, vector)
        db.execute(f"INSERT INTO {index.table}_rowids (rowid, id, chunk_id, chunk_offset) VALUES (999, NULL, 1, 0)")
    with store.read() as db:
        assert _stored_chunks(db, index.table, dim) is None
        cache = VectorCache(index.table, index.num, dim)
        cache.refresh(db)
        assert len(cache) == len(list(db.execute(f"SELECT rowid FROM {index.table}")))  # what vec0 itself reads
    store.close()


def test_a_kept_visibility_mask_follows_every_change_to_the_rows(tmp_path):
    """The mask of rows a viewer may see is reused between searches only while the rows stand: an added,
    removed or moved vector makes it again, so a hidden row never shows and a shown one never hides."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 32, EXACT_BELOW + 200
    data = _clustered(n, dim, seed=4)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i, vector)
    hidden = np.array([1, 2, 3], dtype=np.int64)
    with store.read() as db:
        assert {r for r, _ in index.nearest(db, data[0], 5, hidden)}.isdisjoint({1, 2, 3})
    with store.write() as db:
        index.delete(db, 10)  # the last row moves into its place
        index.add(db, n + 1, data[0])  # the nearest to data[0], shown
        index.add(db, n + 2, data[0])  # as near, hidden below
    hidden = np.array([1, 2, 3, n + 2], dtype=np.int64)
    with store.read() as db:
        first = index.nearest(db, data[0], 5, hidden)
        again = index.nearest(db, data[0], 5, hidden)
    found = [r for r, _ in first]
    assert first == again and n + 1 in found and not set(found) & {1, 2, 3, 10, n + 2}
    store.close()
