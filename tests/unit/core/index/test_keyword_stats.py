"""A viewer's keyword statistics are kept between searches while the keyword indexes stand still, and
follow every change to them made by any connection."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import numpy as np
import pytest
from support.store import insert_indexed

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.index import keyword, keyword_stats
from hindsight_desktop.core.store.database import Store

WHEN = datetime(2026, 5, 1, tzinfo=UTC)


def _private(db, content: str, client: str) -> int:
    rowid = insert_indexed(db, content, WHEN)
    db.execute("UPDATE memories SET scope = 'private', client = ? WHERE rowid = ?", (client, rowid))
    return rowid


def test_a_commit_that_only_counts_accesses_keeps_the_view(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        shared = insert_indexed(db, "Priya recommended a ramen place in Lisbon.", WHEN)
        _private(db, "Ramen in Lisbon, privately noted.", "other")
    with store.read() as db:
        first = keyword_stats.view(db, "me")
    with store.write() as db:  # what a search's access log writes
        db.execute("UPDATE memories SET access_count = access_count + 1 WHERE rowid = ?", (shared,))
    with store.read() as db:
        assert keyword_stats.view(db, "me") is first
    store.close()


def test_the_view_follows_writes_and_deletes_from_another_connection(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        insert_indexed(db, "Priya recommended a ramen place in Lisbon.", WHEN)
    with store.read() as db:
        before = keyword_stats.view(db, "me")
        assert before.words.own and list(before.hidden) == []
    with store.write() as db:
        hidden = _private(db, "Ramen ramen ramen in Lisbon, privately noted by another client.", "other")
    with store.read() as db:
        after = keyword_stats.view(db, "me")
        assert list(after.hidden) == [hidden] and not after.words.own
        assert (after.words.rows, after.words.tokens) == (before.words.rows, before.words.tokens)
        assert keyword_stats.view(db, None).words.rows == before.words.rows + 1
    with store.write() as db:
        keyword.delete(db, hidden)
        db.execute("DELETE FROM memories WHERE rowid = ?", (hidden,))
    with store.read() as db:
        assert list(keyword_stats.view(db, "me").hidden) == []
        assert keyword_stats.view(db, None).words.rows == before.words.rows
    with store.write() as db:
        mine = insert_indexed(db, "Ramen again, a longer note about Lisbon's best ramen places.", WHEN)
    with store.read() as db:
        last = keyword_stats.view(db, "me")
        assert list(last.hidden) == [] and last.words.own
        assert last.words.rows == before.words.rows + 1 and last.words.tokens > before.words.tokens
        assert keyword.search(db, "ramen", 10, last)[0][0] in {mine, 1}
    store.close()


def test_a_write_inside_the_transaction_is_seen_before_it_commits(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        insert_indexed(db, "Priya recommended a ramen place in Lisbon.", WHEN)
        rows = keyword_stats.view(db, None).words.rows
        insert_indexed(db, "Another ramen place, in Osaka.", WHEN)
        assert keyword_stats.view(db, None).words.rows == rows + 1
    store.close()


def test_phrase_counts_are_kept_with_the_view_and_go_with_it(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        insert_indexed(db, "Priya recommended a ramen place in Lisbon.", WHEN)
        _private(db, "Ramen in Lisbon, privately noted.", "other")
    with store.read() as db:
        seen = keyword_stats.view(db, "me")
        assert seen.words.documents(db, keyword.quote("ramen")) == 1  # the other client's row left out
        assert keyword_stats.view(db, None).words.documents(db, keyword.quote("ramen")) == 2
    with store.write() as db:
        insert_indexed(db, "Ramen in Osaka.", WHEN)
    with store.read() as db:
        assert keyword_stats.view(db, "me").words.documents(db, keyword.quote("ramen")) == 2
    store.close()


def test_the_first_k_are_the_full_sorts_first_k_ties_included():
    """keyword_stats._first_k sorts only the rows that can place: the same rows as sorting all by
    (score, rowid), with many rows tied at the cut (scores from few distinct values)."""
    rng = np.random.default_rng(4)
    for n in (0, 1, 5, 300, 5000):
        rowids = np.sort(rng.choice(10 * n + 10, size=n, replace=False)).astype(np.int64)
        for values in (rng.normal(size=n), rng.integers(0, 4, size=n).astype(np.float64)):
            negative = -1.0 * values
            for k in (0, 1, 3, 10, 100, n, n + 7):
                expected = np.lexsort((rowids, negative))[:k]
                assert keyword_stats._first_k(negative, rowids, k).tolist() == expected.tolist()


def test_clients_that_keep_no_private_memory_share_one_view_and_owners_have_their_own(tmp_path):
    store = Store(tmp_path / "m.sqlite3")
    with store.write() as db:
        insert_indexed(db, "Priya recommended a ramen place in Lisbon.", WHEN)
        cursor_note = _private(db, "Ramen ramen in Lisbon, cursor's private note.", "cursor")
        zed_note = _private(db, "Lisbon ramen, zed's private note, a longer one than the other.", "zed")
    with store.read() as db:
        a, b = keyword_stats.view(db, "claude"), keyword_stats.view(db, "vscode")
        assert a is b and list(a.hidden) == sorted([cursor_note, zed_note])
        cursor, zed = keyword_stats.view(db, "cursor"), keyword_stats.view(db, "zed")
        assert list(cursor.hidden) == [zed_note] and list(zed.hidden) == [cursor_note]
        assert cursor is not zed and cursor is not a
        shared = keyword.search(db, "ramen Lisbon", 10, a)
        for viewer in ("claude", "cursor", "zed"):  # each the same as a view computed for it alone
            seen = keyword_stats.view(db, viewer)
            keyword_stats._views.pop(db, None)
            alone = keyword_stats.view(db, viewer)
            assert (alone.words, alone.trigram, list(alone.hidden)) == (seen.words, seen.trigram, list(seen.hidden))
            assert keyword.search(db, "ramen Lisbon", 10, alone) == keyword.search(db, "ramen Lisbon", 10, seen)
        assert keyword.search(db, "ramen Lisbon", 10, keyword_stats.view(db, "vscode")) == shared
    store.close()


def test_a_change_of_who_sees_a_memory_reaches_every_viewer_s_statistics(tmp_path, embedder):
    # A change of scope alone touches no indexed word; the view is kept until the index changes.
    with MemoryEngine(tmp_path, embedder=embedder) as engine:
        engine.write("Priya recommended a ramen place in Lisbon.", client="claude", explicit=True)
        note = engine.write("Ramen ramen in Lisbon, noted by cursor.", client="cursor", explicit=True)
        engine.search("ramen Lisbon", client="claude")
        with engine.store.read() as db:
            before = keyword_stats.view(db, "claude")
        engine.edit(note.id, scope="private")
        with engine.store.read() as db:
            after = keyword_stats.view(db, "claude")
            assert (after.words.rows, len(after.hidden)) == (before.words.rows - 1, 1)
        engine.edit(note.id, scope="shared")
        with engine.store.read() as db:
            assert keyword_stats.view(db, "claude").words == before.words
        assert [h.memory.id for h in engine.search("ramen Lisbon", client="cursor").hits][:1] == [note.id]


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_hidden_rows_moved_forward_across_own_writes_are_those_read_anew(tmp_path, monkeypatch, seed):
    """After each write of this process, a viewer's hidden rows are the last ones with the changed memories
    looked at again; whatever the change (new, made private or shared, another owner, forgotten, a change
    of scope that waits for a later index change), they are the rows a full read finds."""
    store = Store(tmp_path / "m.sqlite3", encrypt=False)
    other = Store(tmp_path / "m.sqlite3", encrypt=False)  # another process
    rng = random.Random(seed)
    read_anew: list[str] = []
    private_of_others = keyword_stats._private_of_others
    monkeypatch.setattr(
        keyword_stats, "_private_of_others", lambda db, v: read_anew.append(v) or private_of_others(db, v)
    )
    owners, rowids, asked, waiting = ["me", "other", "third"], [], 0, False
    try:
        for step in range(120):
            writer = other if step % 9 == 8 else store
            with writer.write() as db:
                kind = rng.choice(["add", "private", "scope", "owner", "forget", "unindexed", "access"])
                rowid = rng.choice(rowids) if rowids else 0
                if kind in ("add", "private") or not rowids:
                    kind = kind if rowids else "add"
                    rowids.append(insert_indexed(db, f"ramen in Lisbon, note {step}", WHEN))
                    if kind == "private":
                        db.execute(
                            "UPDATE memories SET scope = 'private', client = ? WHERE rowid = ?",
                            (rng.choice(owners), rowids[-1]),
                        )
                elif kind == "forget":
                    rowids.remove(rowid)
                    keyword.delete(db, rowid)
                    db.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
                elif kind == "access":  # no change to the indexes: the views stay
                    db.execute("UPDATE memories SET access_count = access_count + 1 WHERE rowid = ?", (rowid,))
                else:  # a change of scope or owner, re-indexed as edits are, or (unindexed) left for a later one
                    scope = rng.choice(["private", "shared"])
                    db.execute(
                        "UPDATE memories SET scope = ?, client = ? WHERE rowid = ?", (scope, rng.choice(owners), rowid)
                    )
                    if kind != "unindexed":
                        (text,) = db.execute("SELECT content FROM memories WHERE rowid = ?", (rowid,)).fetchone()
                        keyword.delete(db, rowid)
                        keyword.add(db, rowid, text, [], WHEN)
            # A change of scope with no change to the indexes: every view stays the one before until they
            # change (as views always have: keyword_stats.view), then it is seen.
            waiting = kind == "unindexed" or (waiting and kind == "access")
            with store.read() as db:
                for viewer in [*owners, "nobody"]:
                    asked += 1
                    got = keyword_stats.view(db, viewer).hidden
                    want = private_of_others(db, viewer)
                    if not waiting:
                        assert got.tolist() == want.tolist(), (step, kind, viewer)
    finally:
        other.close()
        store.close()
    assert len(read_anew) < asked / 4  # most were moved forward, not read anew
