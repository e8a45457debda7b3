"""The vector index: the in-process cache agrees with exact search and sees other processes' changes."""

from __future__ import annotations

import sys

import numpy as np

from hindsight_desktop.core.clients import ClientBook
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.index import keyword_stats, vector_codes
from hindsight_desktop.core.index.vector_cache import EXACT_BELOW
from hindsight_desktop.core.store.database import Store, utcnow
from hindsight_desktop.core.store.vectors import VectorIndex, register_model
from hindsight_desktop.core.text import segment


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


def test_warm_up_loads_the_text_tools_a_first_question_needs(tmp_path, embedder, monkeypatch):
    """The English word lists, and Chinese segmentation where memories hold Chinese, are loaded by the
    warm-up, not by a served process's first question naming someone or in Chinese (either cost that
    question ten times a search). An English-only store does not pay for the segmenter's dictionary."""
    for folder, text, chinese in (
        ("en", "Remember: the spare key is under the blue pot.", False),
        ("zh", "记住：备用钥匙在蓝色花盆下面。", True),
    ):
        with MemoryEngine(tmp_path / folder, embedder=embedder) as first:
            first.write(text, explicit=True)
        monkeypatch.setattr(segment, "_tokenizer", None)
        monkeypatch.delitem(sys.modules, "hindsight_desktop.core.text.en_words", raising=False)
        with MemoryEngine(tmp_path / folder, embedder=embedder) as engine:
            engine.warm_up()
            assert segment.loaded() is chinese, folder
            assert "hindsight_desktop.core.text.en_words" in sys.modules


def test_warm_up_reads_every_viewer_s_keyword_statistics(tmp_path, embedder):
    with MemoryEngine(tmp_path, embedder=embedder) as first:
        first.write("The spare key is under the blue pot.", client="cursor", scope="private", explicit=True)
        first.write("Lena's flight is LH 1234.", client="claude", explicit=True)
    with MemoryEngine(tmp_path, embedder=embedder) as engine:
        engine.warm_up()
        with engine.store.read() as db:  # the pool's most recently used connection: the warm-up's
            kept = keyword_stats._views[db]
            assert set(kept.views) == {None, "cursor", keyword_stats._KEEPS_NO_PRIVATE}
            assert keyword_stats.view(db, "claude") is kept.views[keyword_stats._KEEPS_NO_PRIVATE]
        assert engine.stats()["searches"] == 0
        assert "warm-up-0" not in ClientBook.of(engine).writers()  # no search or name recorded


def test_hidden_rows_change_nothing_the_asker_gets(tmp_path):
    """Rows hidden from the asker are left out before the coarse cut: the answer over a cache holding
    extra hidden rows near the query is the answer over a cache without them, on both paths."""
    rng = np.random.default_rng(7)
    dim = 64
    query = rng.standard_normal(dim).astype(np.float32)
    query /= np.linalg.norm(query)

    def rows(first: int, count: int, near: bool) -> list[tuple[int, np.ndarray]]:
        base = rng.standard_normal((count, dim)).astype(np.float32) + (3 * query if near else 0)
        base /= np.linalg.norm(base, axis=1, keepdims=True)
        return [(first + i, base[i]) for i in range(count)]

    for visible in (EXACT_BELOW - 50, EXACT_BELOW * 2):
        mine = rows(1, visible, near=False)
        theirs = rows(10**6, 600, near=True)  # closer to the query than anything visible
        answers = []
        for name, kept in (("alone", mine), ("crowded", mine[: visible // 2] + theirs + mine[visible // 2 :])):
            store = Store(tmp_path / f"{name}{visible}.sqlite3")
            with store.write() as db:
                index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
                for rowid, vector in kept:
                    index.add(db, rowid, vector)
            hidden = np.array(sorted(r for r, _ in theirs), dtype=np.int64) if name == "crowded" else None
            with store.read() as db:
                answers.append(index.nearest(db, query, 20, hidden))
            store.close()
        assert answers[1] == answers[0]
        assert not {r for r, _ in answers[1]} & {r for r, _ in theirs}


def _stored(db, table: str) -> dict[int, np.ndarray]:
    return {int(r): np.frombuffer(b, dtype=np.float32) for r, b in db.execute(f"SELECT rowid, embedding FROM {table}")}


def _codes_of(db, index: VectorIndex, rowids: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sign bits, codes, scales) the blocks and code rows hold for those rowids (ascending), in their order."""
    held = {}
    for found, bits in vector_codes.bit_blocks(db, index.num, index.dim):
        held.update({r: bits[i] for i, r in enumerate(found.tolist())})
    found, codes, scale = vector_codes.all_codes(db, index.num, index.dim)
    assert found.tolist() == rowids
    return np.stack([held[r] for r in rowids]), codes, scale


def test_the_codes_written_with_each_vector_are_the_vectors_codes(tmp_path):
    """Every vector's stored sign bits and int8 codes are those its float32 values give, after gaps,
    deletes and a replaced vector; deleted vectors leave no codes; the migration's fill from sqlite-vec's
    chunks (and from the table row by row) writes the same blocks."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 16, 2500  # three of sqlite-vec's chunks of 1024, the last part-filled
    data = _clustered(n, dim, seed=11)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i * 3, vector)  # rowids with gaps, across blocks
        for rowid in range(3, 3 * n, 21):
            index.delete(db, rowid)
        index.add(db, 9, data[0] * -1)  # a replaced vector
    with store.read() as db:
        expected = _stored(db, index.table)
        rowids = sorted(expected)
        found = np.concatenate([block[0] for block in vector_codes.bit_blocks(db, index.num, dim)])
        assert found.tolist() == rowids and vector_codes.count(db, index.num) == len(rowids)
        matrix = np.stack([expected[r] for r in rowids])
        bits, codes, scale = _codes_of(db, index, rowids)
        want_codes, want_scale = vector_codes.int8_codes(matrix)
        assert np.array_equal(bits, vector_codes.sign_bits(matrix, vector_codes.words_of(dim)))
        assert np.array_equal(codes, want_codes) and np.array_equal(scale, want_scale)
        assert vector_codes.one(db, index.num, dim, 24) is None and vector_codes.one(db, index.num, dim, 45) is None
        replaced = vector_codes.one(db, index.num, dim, 9)
        assert replaced is not None and np.array_equal(replaced[1][0], want_codes[rowids.index(9)])
        block_bits = db.execute("SELECT bits FROM vector_bits WHERE block = 0").fetchone()[0]
        words = vector_codes.words_of(dim) * 8
        assert not block_bits[24 * words : 25 * words].strip(b"\0")  # a deleted vector's slot is zeroed
        gone = vector_codes.key(index.num, 24)
        assert db.execute("SELECT 1 FROM vector_row_codes WHERE id = ?", (gone,)).fetchone() is None
        picked = np.array([9, 27, 24, 3 * n + 3], dtype=np.int64)  # a replaced vector, a kept, a deleted, none
        some = vector_codes.codes_of(db, index.num, dim, np.sort(picked))
        assert some[0].tolist() == [9, 27] and np.array_equal(some[1], want_codes[[rowids.index(9), rowids.index(27)]])
        written = (bits, codes, scale)
        assert vector_codes._stored_chunks(db, index.table, dim) is not None  # this sqlite-vec's layout is known
    for reader in ("chunks", "rows"):
        with store.write() as db:
            vector_codes.drop_model(db, index.num)
            if reader == "rows":
                original = vector_codes._stored_chunks
                vector_codes._stored_chunks = lambda *_: None
            try:
                assert vector_codes.backfill_model(db, index.num, dim, index.table) == len(rowids)
            finally:
                if reader == "rows":
                    vector_codes._stored_chunks = original
        with store.read() as db:
            again = _codes_of(db, index, rowids)
            assert all(np.array_equal(a, b) for a, b in zip(again, written, strict=True)), reader
    store.close()


def test_the_cache_ranks_by_the_codes_as_an_exact_int8_scan_does(tmp_path):
    """Under EXACT_BELOW every row is rescored: the cache's answer is the int8 scan's, best first."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 32, 900
    data = _clustered(n, dim, seed=5)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i, vector)
    codes, scale = vector_codes.int8_codes(data)
    for q in data[:5]:
        sims = (codes.astype(np.float32) @ q.astype(np.float32)) * scale
        with store.read() as db:
            got = index.nearest(db, q, 10)
        assert [r for r, _ in got] == [int(i) + 1 for i in np.argsort(-sims, kind="stable")[:10]]
        assert np.allclose([s for _, s in got], np.sort(sims)[::-1][:10], rtol=0, atol=1e-6)
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


def test_a_fresh_cache_holds_every_blocks_codes_full_or_not_and_grows_past_them(tmp_path):
    """A full block (every slot valid) is read without the copy a part-filled one needs: both give the
    cache the codes int8_codes gives the stored vectors; a vector added past the last block after the
    load is found too (the rowid map sized at the load grows)."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 16, 2 * vector_codes.BLOCK + 5  # rowids 1..2053: block 0 misses rowid 0, block 1 is full
    data = _clustered(n + 1, dim, seed=5)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for rowid in range(1, n + 1):
            index.add(db, rowid, data[rowid - 1])
    with store.read() as db:
        rowids = list(range(1, n + 1))
        found, matrix = index.matrix(db, rowids)
        codes, scale = vector_codes.int8_codes(np.stack(data[:n]))
        assert found == rowids and np.array_equal(matrix, codes.astype(np.float32) * scale[:, None])
    late = 5 * vector_codes.BLOCK + 7
    with store.write() as db:
        index.add(db, late, data[n])
    with store.read() as db:
        assert index.nearest(db, data[n], 1)[0][0] == late
    store.close()


def test_matrix_keeps_the_asked_order_and_skips_rowids_without_a_vector(tmp_path):
    """Asked out of order, with repeats, a removed vector, rowids never given one (in a gap, past the
    highest, negative): the rows that have a vector, in the order asked, each its own codes."""
    store = Store(tmp_path / "m.sqlite3")
    dim = 16
    data = _clustered(40, dim, seed=9)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for rowid in [*range(1, 21), *range(30, 40)]:  # 21..29: a gap
            index.add(db, rowid, data[rowid])
        index.delete(db, 7)
    with store.read() as db:
        asked = [33, 5, 7, 25, 5, -3, 10_000, 1, 39, 0]
        found, matrix = index.matrix(db, asked)
        assert found == [33, 5, 5, 1, 39]
        codes, scale = vector_codes.int8_codes(np.stack([data[r] for r in found]))
        assert np.array_equal(matrix, codes.astype(np.float32) * scale[:, None])
        empty_found, empty = index.matrix(db, [])
        assert empty_found == [] and empty.shape == (0, dim)
    store.close()


def test_each_viewer_s_hidden_rows_are_found_and_kept_while_viewers_take_turns(tmp_path):
    """The rows hidden from a viewer are exactly those whose rowid it may not see, after rows were
    removed (the last row moved into each hole) and with hidden rowids the cache lacks; clients asking
    in turn reuse their masks until a row changes, and no hidden row is ever answered."""
    store = Store(tmp_path / "v.sqlite3")
    dim, n = 32, EXACT_BELOW + 600
    data = _clustered(n, dim)
    with store.write() as db:
        index = VectorIndex(register_model(db, "test-model", dim, utcnow()), dim)
        for i, vector in enumerate(data, 1):
            index.add(db, i, vector)
        for rowid in range(5, n, 97):
            index.delete(db, rowid)
    cache = index.cache
    viewers = [
        np.array([*range(2, n, 7), n + 50, 10**7], dtype=np.int64),  # with rowids the cache does not hold
        np.arange(1, n // 2, 3, dtype=np.int64),
    ]

    def check(hidden: np.ndarray) -> None:
        with store.read() as db:
            found = index.nearest(db, data[0], 30, hidden)
        assert found and not {r for r, _ in found} & set(hidden.tolist())
        shown, unseen = cache._shown_rows(hidden)
        expected = ~np.isin(cache._rowids[: cache._size], hidden)
        assert np.array_equal(shown, expected) and np.array_equal(unseen, np.flatnonzero(~expected))

    for hidden in [*viewers, *viewers]:
        check(hidden)
    kept = [cache._shown.get(id(h)) for h in viewers]
    assert all(k is not None and k[0] is h for k, h in zip(kept, viewers, strict=True))
    check(viewers[0])
    assert cache._shown.get(id(viewers[0]))[2] is kept[0][2]  # reused, not computed again
    with store.write() as db:
        index.delete(db, 3)
    check(viewers[0])  # a row moved: the mask is computed anew
    assert cache._shown.get(id(viewers[0]))[2] is not kept[0][2]
    store.close()
