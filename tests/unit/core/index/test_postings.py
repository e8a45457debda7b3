"""BM25 for a viewer with hidden memories, scored in numpy over each term's posting, gives exactly what the
auxiliary function scoring each match gives: the same rows in the same order with the same scores to the
last bit, in English and Chinese, after edits and deletes that leave FTS5 tombstones and several segments."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import numpy as np
import pytest
from support.store import insert_indexed

from hindsight_desktop.core.index import keyword, keyword_stats, postings
from hindsight_desktop.core.store.database import Store

WHEN = datetime(2026, 5, 1, tzinfo=UTC)
ENGLISH = [
    "Priya's flight KX4821 to Lisbon leaves on Friday at 7am.",
    "Priya recommended a ramen place in Lisbon near the river, running late again.",
    "The dentist in Lisbon charges 80 euros for a cleaning; Priya runs there.",
    "My sister moved to Toronto for a job at a jazz label.",
    "I prefer green tea over coffee in the morning, coffee coffee.",
    "Café au lait in the morning with Priya, naïve as ever.",
]
CHINESE = [
    "朵朵的钢琴老师姓吴，每周三晚上上课。",
    "我们五月去杭州玩了三天，住在西湖边。",
    "女儿朵朵对花生过敏，钢琴课也停了。",
    "北京大学的老师来杭州开会。",
]
QUESTIONS = [
    "When does Priya's flight to Lisbon leave?",
    "ramen running Lisbon",
    "coffee or green tea in the morning?",
    "cafe naive Priya",
    "jazz sister Toronto",
    "朵朵的钢琴老师姓什么？",
    "我们去杭州玩了几天？",
    "女儿对什么过敏？",
    "北京大学老师",
    "nothing matches this zyxw",
]


@pytest.fixture
def store(tmp_path):
    rng = random.Random(5)
    store = Store(tmp_path / "m.sqlite3")
    texts = ENGLISH + CHINESE
    for batch in range(6):  # separate transactions: several FTS5 segments
        with store.write() as db:
            for i in range(40):
                text = rng.choice(texts) + f" note {batch}-{i}" + (" Lisbon" * rng.randrange(3))
                rowid = insert_indexed(db, text, WHEN)
                if rng.random() < 0.3:
                    client = rng.choice(["other", "me"])
                    db.execute("UPDATE memories SET scope = 'private', client = ? WHERE rowid = ?", (client, rowid))
    with store.write() as db:  # deletes and re-indexes leave tombstones over older segments
        rows = [r for (r,) in db.execute("SELECT rowid FROM memories ORDER BY rowid")]
        for rowid in rows[::7]:
            keyword.delete(db, rowid)
            db.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
        for rowid in rows[3::11]:
            keyword.delete(db, rowid)
            keyword.add(db, rowid, "Lisbon coffee again, 杭州的老师 " + "Priya " * (rowid % 4), [], WHEN)
    yield store
    store.close()


def _both_ways(db, monkeypatch, search):
    """(numpy over postings, the auxiliary function) results of one search on fresh statistics."""
    keyword_stats._views.pop(db, None)
    fast = search(keyword_stats.view(db, "me"))
    keyword_stats._views.pop(db, None)
    with monkeypatch.context() as m:
        m.setattr(postings, "read", lambda *_: None)
        slow = search(keyword_stats.view(db, "me"))
    return fast, slow


@pytest.mark.parametrize("dense", [0.0, 1e9], ids=["summed in an array over the span", "summed over the union"])
def test_numpy_scores_equal_the_auxiliary_function_to_the_bit(store, monkeypatch, dense):
    monkeypatch.setattr(keyword_stats, "DENSE_SHARE", dense)
    with store.read() as db:
        assert not keyword_stats.view(db, "me").words.own  # someone else's private rows are hidden
        for question in [*QUESTIONS, "Lisbon", "Priya"]:  # and one term alone: its posting is the union
            for k in (3, 50):
                fast, slow = _both_ways(db, monkeypatch, lambda seen, q=question, k=k: keyword.search(db, q, k, seen))
                assert fast == slow, question
        words = ["coffee", "老师", "杭州", "Lisbon"]
        fast, slow = _both_ways(db, monkeypatch, lambda seen: keyword.search_words(db, words, 20, seen))
        assert fast == slow and fast
        assert any(keyword.search(db, q, 10, keyword_stats.view(db, "me")) for q in QUESTIONS)
        # The numpy way was the one taken: every phrase of these searches had a posting.
        assert [p for _, p in keyword_stats.view(db, "me").words._postings.items() if p is not None]


def test_the_phrase_counts_agree_with_fts5(store):
    with store.read() as db:
        seen = keyword_stats.view(db, "me")
        terms = keyword.query_terms("Priya flight Lisbon coffee 朵朵 钢琴老师 杭州")
        seen.words.ranked(db, [keyword.quote(t) for t in terms], 10)  # fills the counts from the postings
        from_postings = {t: seen.words._documents[keyword.quote(t)] for t in terms}
        keyword_stats._views.pop(db, None)
        fresh = keyword_stats.view(db, "me")
        assert from_postings == {t: fresh.words.documents(db, keyword.quote(t)) for t in terms}


def test_a_phrase_of_several_tokens_has_no_posting(store):
    with store.read() as db:
        assert postings.read(db, "fts_trigram", keyword.quote("钢琴老师")) is None  # two trigrams
        assert postings.read(db, "fts_words", keyword.quote("green tea")) is None
        one = postings.read(db, "fts_words", keyword.quote("Running"))  # porter: "run", as FTS5 stems it
        assert one is not None and len(one) > 0
        assert set(one.rowids.tolist()) == set(keyword.matching(db, keyword.quote("runs")))


def test_each_posting_is_every_row_of_its_token_with_its_count_and_length(store):
    """Against FTS5's tables read row by row: each word of the memories, repeats in one row counted."""
    texts = ENGLISH + CHINESE + ["Lisbon coffee again, 杭州的老师 Priya note"]
    words = sorted({t for text in texts for t in keyword.query_terms(text)})
    with store.read() as db:
        lengths = {
            int(i): postings._first_varint(bytes(sz)) for i, sz in db.execute("SELECT id, sz FROM fts_words_docsize")
        }
        repeated = 0
        for word in words:
            token = postings._one_token(db, "fts_words", word)
            found = postings.read(db, "fts_words", keyword.quote(word))
            if token is None:
                assert found is None, word
                continue
            counts: dict[int, int] = {}
            for (doc,) in db.execute("SELECT doc FROM temp.fts_words_instances WHERE term = ?", (token,)):
                counts[int(doc)] = counts.get(int(doc), 0) + 1
            expected = sorted(counts)
            assert found is not None and len(expected) > 0, word
            assert found.rowids.dtype == np.int64 and found.rowids.tolist() == expected, word
            assert found.counts.tolist() == [float(counts[r]) for r in expected], word
            assert found.lengths.tolist() == [float(lengths[r]) for r in expected], word
            repeated += any(n > 1 for n in counts.values())
        assert len(words) > 20 and repeated  # some word occurs more than once in a row ("coffee coffee")


def test_row_lengths_decode_as_sqlite_writes_them():
    """%_docsize lengths of one, two and three bytes, decoded together, are the numbers written."""
    numbers = [0, 1, 127, 128, 300, 16383, 16384, 20000, 2_000_000]

    def varint(n: int) -> bytes:
        groups = [n & 0x7F]
        while n := n >> 7:
            groups.append(0x80 | (n & 0x7F))
        return bytes(reversed(groups))

    data = b"".join(varint(n) for n in numbers)
    assert postings.varints(data, len(numbers)).tolist() == numbers
    assert [postings._first_varint(varint(n)) for n in numbers] == numbers


def test_a_long_memory_scores_the_same_both_ways(tmp_path, monkeypatch):
    store = Store(tmp_path / "long.sqlite3")
    with store.write() as db:
        long = insert_indexed(db, "Lisbon coffee " + " ".join(f"word{i}" for i in range(400)), WHEN)
        insert_indexed(db, "coffee in Lisbon, short", WHEN)
        hidden = insert_indexed(db, "coffee coffee, someone else's", WHEN)
        db.execute("UPDATE memories SET scope = 'private', client = 'other' WHERE rowid = ?", (hidden,))
    with store.read() as db:
        fast, slow = _both_ways(db, monkeypatch, lambda seen: keyword.search(db, "Lisbon coffee", 10, seen))
        assert fast == slow and long in dict(fast) and hidden not in dict(fast)
    store.close()


def test_a_compact_posting_holds_the_same_numbers():
    """Narrower types only where every number fits them; a rowid or a count past them keeps its type."""
    small = postings.Posting(np.array([1, 5, 9]), np.array([1.0, 2.0, 65535.0]), np.array([3.0, 4.0, 5.0]))
    found = postings.compact(small)
    assert (found.rowids.dtype, found.counts.dtype, found.lengths) == (np.int32, np.uint16, None)
    assert found.rowids.tolist() == [1, 5, 9] and found.counts.tolist() == [1, 2, 65535]
    large = postings.Posting(np.array([1, 2**31]), np.array([1.0, 65536.0]), np.array([3.0, 4.0]))
    found = postings.compact(large)
    assert found.rowids.tolist() == [1, 2**31] and found.counts.tolist() == [1.0, 65536.0]


def test_a_row_the_kept_lengths_lack_is_read_from_the_index(store):
    """A compact posting's lengths come from the array, and from %_docsize for a row it has none for."""
    with store.read() as db:
        rowids = np.array([r for (r,) in db.execute("SELECT id FROM fts_words_docsize ORDER BY id")], dtype=np.int32)
        want = postings.lengths_of(db, "fts_words", rowids)
        whole = np.full(int(rowids[-1]) + 1, np.nan)
        whole[rowids] = want
        assert postings.lengths_at(db, "fts_words", rowids, whole).tolist() == want.tolist()
        holed = whole[: int(rowids[-1])].copy()  # the last row beyond it
        holed[rowids[0]] = np.nan
        assert postings.lengths_at(db, "fts_words", rowids, holed).tolist() == want.tolist()
        assert np.isnan(holed[rowids[0]])  # the kept array is left as it was


def test_lengths_are_narrowed_only_where_each_is_held_exactly():
    lengths = np.array([0.0, 3.0, 2.0**24 - 1])
    narrowed = postings.narrow(lengths)
    assert narrowed.dtype == np.float32 and narrowed.astype(np.float64).tolist() == lengths.tolist()
    long = np.array([3.0, 2.0**24 + 1])  # float32 would round it
    assert postings.narrow(long).dtype == np.float64 and postings.narrow(long).tolist() == long.tolist()


def test_both_ways_of_summing_postings_give_the_same_rows_and_sums():
    """Sparse and dense postings over a wide span: the array over the span and the sorted union agree
    to the bit, for one posting, several, and some empty."""
    rng = np.random.default_rng(8)
    for sizes in ([5], [300, 40, 0], [2000, 1500, 700, 3], [0, 9]):
        rowids = [np.sort(rng.choice(5000, size, replace=False)).astype(np.int64) for size in sizes]
        shares = [rng.random(size) * 7 for size in sizes]
        if not sum(sizes):
            continue
        dense = _summed_with(rowids, shares, share=0.0)
        union = _summed_with(rowids, shares, share=1e9)
        assert np.array_equal(dense[0], union[0]) and np.array_equal(dense[1], union[1])
        assert dense[0].tolist() == sorted(set(np.concatenate(rowids).tolist()))


def _summed_with(rowids, shares, share):
    saved = keyword_stats.DENSE_SHARE
    keyword_stats.DENSE_SHARE = share
    try:
        return keyword_stats._summed(rowids, shares)
    finally:
        keyword_stats.DENSE_SHARE = saved


def test_the_union_of_postings_is_numpys_unique_with_its_inverse():
    rng = np.random.default_rng(9)
    for sizes in ([7], [400, 400], [1000, 3, 250], [0, 60]):
        rowids = [np.sort(rng.choice(3000, size, replace=False)).astype(np.int64) for size in sizes]
        union, at = keyword_stats._union(rowids)
        want, inverse = np.unique(np.concatenate(rowids), return_inverse=True)
        assert np.array_equal(union, want) and np.array_equal(at, inverse)
