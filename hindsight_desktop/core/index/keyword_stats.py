"""BM25 over what one viewer may see.

FTS5's bm25() weighs a term by how many rows of the whole index hold it and scales each row by the
whole index's average length. Other clients' private memories are rows of that index too, so a
client's scores moved when another client privately wrote one of its words, and told it that someone
had. Here a viewer's statistics leave out the rows hidden from it: the index's row count, total length
and each phrase's row count, less those of the hidden rows (asked of FTS5 and its tables at search
time; the rows' lengths come from arrays kept across this process's writes, row_lengths.py, which are
used only while they add up to FTS5's own totals).

When nothing is hidden from the viewer (the person, or a client while no other keeps private
memories) these are FTS5's own statistics and FTS5 ranks in C. Otherwise FTS5's formula is computed with
the viewer's statistics, in the same order of operations: in numpy over each term's posting (postings.py)
when every phrase is one token, else by `visible_bm25`, an auxiliary function called per matching row.
All ways give the same numbers to the last bit (tests/unit/core/recall/test_score_privacy.py and
tests/unit/core/index/test_postings.py check it): which way a search took can never show in its scores.
"""

from __future__ import annotations

import functools
import json
import math
import weakref
from dataclasses import dataclass, field

import apsw
import numpy as np

from hindsight_desktop.core.index import kept_postings, postings, row_lengths
from hindsight_desktop.core.index.kept_postings import KeptPostings
from hindsight_desktop.core.index.least_recent import LeastRecent
from hindsight_desktop.core.index.postings import Posting
from hindsight_desktop.core.index.row_lengths import index_state
from hindsight_desktop.core.store import memories, values

K1, B = 1.2, 0.75  # FTS5's bm25 constants
TABLES = ("fts_words", "fts_trigram")
FUNCTION = "visible_bm25"
ROWS, TOKENS = "fts_row_count", "fts_token_count"
_DOCUMENTS_KEPT = 4096  # phrase counts kept per viewer's statistics
_POSTING_ROWS_KEPT = 400_000  # posting entries kept per viewer's statistics


@dataclass(frozen=True, eq=False)
class Statistics:
    """One keyword index as a viewer sees it."""

    table: str
    rows: int  # rows the viewer may see
    tokens: int  # their total length in tokens
    hidden_rows: np.ndarray = field(repr=False)  # the index's rows hidden from the viewer, sorted
    # Every row's length by rowid, kept across writes (row_lengths.py); None: read per posting from FTS5.
    lengths: np.ndarray | None = field(default=None, compare=False, repr=False)
    # A read connection's postings over every row, carried across writes (kept_postings.py), and the
    # state of the indexes these statistics are of.
    raw: KeptPostings | None = field(default=None, compare=False, repr=False)
    state: bytes = field(default=b"", compare=False, repr=False)
    # Each phrase's count and posting, kept as long as these statistics are (they go when the index changes).
    _documents: dict[str, int] = field(default_factory=dict, init=False, compare=False, repr=False)
    _postings: LeastRecent[str, Posting | None] = field(
        default_factory=lambda: LeastRecent(_POSTING_ROWS_KEPT, lambda p: 1 + (len(p) if p is not None else 0)),
        init=False,
        compare=False,
        repr=False,
    )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Statistics):
            return NotImplemented
        same = (self.table, self.rows, self.tokens) == (other.table, other.rows, other.tokens)
        return same and np.array_equal(self.hidden_rows, other.hidden_rows)

    __hash__ = None  # type: ignore[assignment]  # equal by the hidden rows' values, which are not hashed

    @property
    def own(self) -> bool:
        """Whether these are FTS5's own statistics (nothing in the index is hidden from the viewer)."""
        return not len(self.hidden_rows)

    @functools.cached_property
    def hidden(self) -> str:
        """The hidden rowids as a JSON list, for SQL: made when first asked (a search that scores over
        postings never asks, and a list of many thousand rowids is slow to write)."""
        return json.dumps(self.hidden_rows.tolist())

    def documents(self, db: apsw.Connection, phrase: str) -> int:
        """How many of the viewer's rows match one FTS5 phrase."""
        known = self._documents.get(phrase)
        if known is not None:
            return known
        t = self.table
        n = values.number(db, f"SELECT count(*) FROM {t} WHERE {t} MATCH ?", (phrase,))
        if not self.own:
            n -= values.number(
                db,
                f"SELECT count(*) FROM json_each(?) WHERE value IN (SELECT rowid FROM {t} WHERE {t} MATCH ?)",
                (self.hidden, phrase),
            )
        if len(self._documents) >= _DOCUMENTS_KEPT:
            self._documents.clear()
        self._documents[phrase] = n
        return n

    def idf(self, documents: int) -> float:
        """bm25's IDF over the viewer's rows, floored as FTS5 floors it."""
        idf = math.log((self.rows - documents + 0.5) / (documents + 0.5))
        return idf if idf > 0.0 else 1e-6

    def ranked(self, db: apsw.Connection, phrases: list[str], k: int) -> list[tuple[int, float]]:
        """The `k` best rows the viewer may see that match any of the phrases: (rowid, score, higher is
        better); ties by rowid."""
        if not phrases or self.rows == 0 or self.tokens == 0:  # then no row the viewer may see matches
            return []
        expression = " OR ".join(phrases)
        t = self.table
        if self.own:
            rows = db.execute(
                f"SELECT rowid, bm25({t}) AS s FROM {t} WHERE {t} MATCH ? ORDER BY s, rowid LIMIT ?", (expression, k)
            )
            return [(int(rowid), -float(score)) for rowid, score in rows]
        found = [self._posting(db, p) for p in phrases]
        if all(p is not None for p in found):
            return self._ranked_postings(phrases, [p for p in found if p is not None], k)
        # Every match is scored in Python (about twice FTS5's own cost per row): bounding the scores
        # by FTS5's to score fewer took two more passes of FTS5's, which cost as much as they saved.
        weights = [self.idf(self.documents(db, p)) for p in phrases]
        marks = ", ".join("?" * (1 + len(weights)))
        rows = db.execute(
            f"SELECT rowid, {FUNCTION}({t}, {marks}) AS s FROM {t} WHERE {t} MATCH ? AND {_SEEN} "
            "ORDER BY s, rowid LIMIT ?",
            (self.tokens / self.rows, *weights, expression, self.hidden, k),
        )
        return [(int(rowid), -float(score)) for rowid, score in rows]

    def _posting(self, db: apsw.Connection, phrase: str) -> Posting | None:
        if phrase in self._postings:
            return self._postings.get(phrase)
        if self.raw is not None and self.lengths is not None:
            found = self.raw.get(db, self.table, phrase, self.state, self.lengths)
        else:
            found = postings.read(db, self.table, phrase, self.lengths)
        visible = None if found is None else self._visible(db, found)
        self._postings.put(phrase, visible)
        return visible

    def _visible(self, db: apsw.Connection, posting: Posting) -> Posting:
        """The posting's rows the viewer may see, with their lengths (a kept, compact one's from the array:
        kept with the view's posting, they are read in order when it is scored, not gathered each time)."""
        if len(self.hidden_rows) and len(posting):
            hidden = self._hidden_mask
            shown = np.ones(len(posting), dtype=bool)
            within = int(np.searchsorted(posting.rowids, len(hidden)))  # rowids past the mask are not hidden
            shown[:within] = ~hidden[posting.rowids[:within]]
            lengths = None if posting.lengths is None else posting.lengths[shown]
            posting = Posting(posting.rowids[shown], posting.counts[shown], lengths)
        if posting.lengths is None and self.lengths is not None:
            lengths = postings.narrow(postings.lengths_at(db, self.table, posting.rowids, self.lengths))
            posting = Posting(posting.rowids, posting.counts, lengths)
        return posting

    @functools.cached_property
    def _hidden_mask(self) -> np.ndarray:
        """Whether each rowid up to the last hidden one is hidden: a look-up per posting row, where
        finding each row among the hidden ones was a binary search per row."""
        mask = np.zeros(int(self.hidden_rows[-1]) + 1 if len(self.hidden_rows) else 0, dtype=bool)
        mask[self.hidden_rows] = True
        return mask

    def _ranked_postings(self, phrases: list[str], found: list[Posting], k: int) -> list[tuple[int, float]]:
        """`ranked` over the phrases' postings (the viewer's rows of each), scored by `_visible_bm25`'s
        formula, operation for operation, over the rows that hold any of them."""
        for phrase, posting in zip(phrases, found, strict=True):
            self._documents.setdefault(phrase, len(posting))
        if not sum(len(p) for p in found):
            return []
        avgdl = self.tokens / self.rows
        shares = []
        for posting in found:
            freq = posting.counts.astype(np.float64, copy=False)
            lengths = _lengths(posting).astype(np.float64, copy=False)  # exact: whole numbers `narrow` kept
            norm = K1 * (1 - B + B * lengths / avgdl)
            shares.append(self.idf(len(posting)) * ((freq * (K1 + 1.0)) / (freq + norm)))
        rowids, score = _summed([p.rowids for p in found], shares)
        negative = -1.0 * score
        order = _first_k(negative, rowids, k)
        return [(int(r), -float(s)) for r, s in zip(rowids[order].tolist(), negative[order].tolist(), strict=True)]


# Postings that hold at least this share of the rowids they span are summed in an array over those rowids,
# not through their sorted union: at a million memories a few common words hold hundreds of thousands of
# rows, and placing them in a union cost more than the whole array does (bench/NOTES.md). The share also
# bounds the array: at most 5 slots per posting row.
DENSE_SHARE = 1 / 5


def _summed(rowids: list[np.ndarray], shares: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The rows any posting holds (ascending) and each one's shares summed, posting after posting: a
    posting's rows are distinct and ascending, so each gets its share once, and a row a posting lacks
    gets nothing from it, as the zero frequency it stood for gave nothing. Either way of summing adds
    the same shares in the same order, so the sums are the same to the bit."""
    total = sum(len(r) for r in rowids)
    span = max(int(r[-1]) for r in rowids if len(r)) + 1
    if len(rowids) > 1 and total >= DENSE_SHARE * span:
        score = np.zeros(span)
        held = np.zeros(span, dtype=bool)
        for rows, share in zip(rowids, shares, strict=True):
            score[rows] += share
            held[rows] = True
        found = np.flatnonzero(held)
        return found, score[found]
    union, at = _union(rowids)
    score = np.zeros(len(union))
    start = 0
    for rows, share in zip(rowids, shares, strict=True):
        score[at[start : start + len(rows)]] += share
        start += len(rows)
    return union, score


def _union(rowids: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rowids of ascending postings, ascending, and each posting row's place among them
    (posting after posting). A stable sort merges the postings' ascending runs instead of sorting anew."""
    every = np.concatenate(rowids)
    if len(rowids) == 1:  # already ascending and distinct
        return every, np.arange(len(every))
    order = np.argsort(every, kind="stable")
    ordered = every[order]
    first = np.empty(len(ordered), dtype=bool)  # where each distinct rowid first appears
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    at = np.empty(len(ordered), dtype=np.intp)
    at[order] = np.cumsum(first) - 1
    return ordered[first], at


def _lengths(posting: Posting) -> np.ndarray:
    assert posting.lengths is not None  # `_visible` gives every view's posting its lengths
    return posting.lengths


def _first_k(negative: np.ndarray, rowids: np.ndarray, k: int) -> np.ndarray:
    """The first k places of the order by (negative, rowid): only the rows that can be among them (at or
    under the k-th lowest value, ties included) are sorted."""
    if len(negative) > k > 0:
        within = np.flatnonzero(negative <= np.partition(negative, k - 1)[k - 1])
        return within[np.lexsort((rowids[within], negative[within]))][:k]
    return np.lexsort((rowids, negative))[:k]


# Checked row by row against the hidden list (read once); an IN would be handed to FTS5, which then
# runs the whole query once per listed row.
_SEEN = "rowid NOT IN (SELECT value FROM json_each(?))"


@dataclass(frozen=True)
class View:
    """Both keyword indexes as one viewer sees them: read once per search."""

    words: Statistics
    trigram: Statistics
    hidden: np.ndarray  # rowids of the memories hidden from the viewer, sorted (the vector search skips them)


def view(db: apsw.Connection, viewer: str | None) -> View:
    """The keyword indexes' statistics over what `viewer` may see (None: the person, who sees all).

    Finding the memories hidden from a client reads every private memory, so a connection keeps what it
    found until the keyword indexes change: a memory is added, changed or removed with its index rows in
    one transaction, and FTS5 rewrites each index's structure record whenever a transaction changes the
    index (commits that only count accesses leave it as it is). The connection's own change count
    covers what it writes inside its transaction, before that record is written. Every client that keeps
    no private memory has every private memory hidden, so those clients share one view: a warm-up as one
    of them serves all. After a write of this process the hidden rows are moved forward (`_moved_forward`)."""
    state = (index_state(db), db.total_changes())
    kept = _views.get(db)
    if kept is None or kept.state != state:  # only the current state is worth keeping, and its hidden rows
        before = _before(kept)
        kept = _views[db] = _Kept(state, frozenset(memories.private_owners(db)), before=before)
    seen_as = viewer if viewer is None or viewer in kept.owners else _KEEPS_NO_PRIVATE
    found = kept.views.get(seen_as)
    if found is None:
        hidden = np.zeros(0, dtype=np.int64)
        if viewer is not None:
            moved = _moved_forward(db, viewer, kept)
            hidden = moved if moved is not None else _private_of_others(db, viewer)
        words, trigram = (_statistics(db, table, hidden, state[0]) for table in TABLES)
        found = kept.views[seen_as] = View(words, trigram, hidden)
    return found


def _before(kept: _Kept | None) -> _Before | None:
    return None if kept is None else _Before(kept.state, kept.owners, {k: v.hidden for k, v in kept.views.items()})


def _moved_forward(db: apsw.Connection, viewer: str, kept: _Kept) -> np.ndarray | None:
    """The rows hidden from `viewer` at `kept`'s state, from those hidden at the connection's state before
    it with each memory this process's writes changed in between looked at again, not every private
    memory read again (bench/NOTES.md); None when that cannot be had (no view of the viewer then, or a
    change not known: another process's write, or too many rows)."""
    before, ledger = kept.before, row_lengths.ledger_of(db)
    if before is None or ledger is None:
        return None
    old = before.hidden.get(viewer if viewer in before.owners else _KEEPS_NO_PRIVATE)
    changed = None if old is None else ledger.memories_changed(before.state[0], kept.state[0])
    if old is None or changed is None:
        return None
    if not changed:
        return old
    rows = np.array(sorted(changed), dtype=np.int64)
    at = np.searchsorted(old, rows)
    held = at < len(old)
    held[held] = old[at[held]] == rows[held]
    others = np.delete(old, at[held])
    now = np.array(sorted(memories.hidden_from(db, rows.tolist(), viewer)), dtype=np.int64)
    return np.insert(others, np.searchsorted(others, now), now)


def _private_of_others(db: apsw.Connection, viewer: str) -> np.ndarray:
    """The rowids of other clients' private memories, sorted (one row back, built in C)."""
    row = db.execute(
        "SELECT group_concat(rowid, ','), count(*) FROM memories WHERE scope = 'private' AND client != ?", (viewer,)
    ).fetchone()
    if row is None or row[0] is None:
        return np.zeros(0, dtype=np.int64)
    return np.sort(postings.integers(row[0], row[1]))  # parsed in C, not through JSON


@dataclass
class _Kept:
    """A connection's views at one state of the keyword indexes."""

    state: tuple[bytes, int]  # the indexes' records and the connection's change count
    owners: frozenset[str]  # the clients that keep private memories
    views: dict[object, View] = field(default_factory=dict)  # by viewer (None, an owner, or _KEEPS_NO_PRIVATE)
    before: _Before | None = None  # the hidden rows at the connection's state before (moved forward from)


@dataclass(frozen=True)
class _Before:
    """What a connection's views hid at the state before its current one: each viewer's hidden rows only
    (not the views, whose postings would be kept twice)."""

    state: tuple[bytes, int]
    owners: frozenset[str]
    hidden: dict[object, np.ndarray]  # by the key of `_Kept.views`


_KEEPS_NO_PRIVATE = object()  # the key of the view shared by every client that keeps no private memory
_views: weakref.WeakKeyDictionary[apsw.Connection, _Kept] = weakref.WeakKeyDictionary()


def _statistics(db: apsw.Connection, table: str, hidden: np.ndarray, state: bytes) -> Statistics:
    _register(db)
    # Asked of FTS5 itself, not read from its averages record: that is written only at commit, and a
    # write transaction may search what it has just added.
    row = db.execute(f"SELECT {ROWS}({table}), {TOKENS}({table}) FROM {table} LIMIT 1").fetchone()
    rows, tokens = (int(row[0]), int(row[1])) if row else (0, 0)
    ledger = row_lengths.ledger_of(db)
    # Only a viewer with hidden rows scores over postings; the others' searches are FTS5's own.
    lengths = ledger.lengths(db, table, state, rows, tokens) if ledger is not None and len(hidden) else None
    inside, hidden_tokens = _hidden_rows(db, table, hidden, lengths)
    raw = kept_postings.of(db) if lengths is not None else None
    return Statistics(table, rows - len(inside), tokens - hidden_tokens, inside, lengths, raw, state)


def _hidden_rows(
    db: apsw.Connection, table: str, hidden: np.ndarray, lengths: np.ndarray | None
) -> tuple[np.ndarray, int]:
    """Those of the hidden rowids (sorted) the index holds, and their lengths' sum."""
    if not len(hidden):
        return np.zeros(0, dtype=np.int64), 0
    if lengths is not None:
        found = np.full(len(hidden), np.nan)
        within = hidden < len(lengths)
        found[within] = lengths[hidden[within]]
        held = ~np.isnan(found)
        return hidden[held], int(found[held].sum())
    ids, sizes = postings.row_sizes(db, table, "id IN (SELECT value FROM json_each(?))", (json.dumps(hidden.tolist()),))
    return np.sort(ids), int(sizes.sum())  # only the sum of lengths is kept


def _visible_bm25(api: apsw.FTS5ExtensionApi, *args: apsw.SQLiteValue) -> float:
    """FTS5's bm25 (negative, lower is better) given the average length and each phrase's IDF, operation
    for operation as FTS5 computes it. Called for every match: kept lean."""
    avgdl = float(args[0])  # type: ignore[arg-type]
    norm = K1 * (1 - B + B * api.column_size(-1) / avgdl)
    offsets = api.phrase_column_offsets
    score = 0.0
    for i, weight in enumerate(args[1:]):
        freq = float(len(offsets(i, 0)))  # both indexes have one column
        score += float(weight) * ((freq * (K1 + 1.0)) / (freq + norm))  # type: ignore[arg-type]
    return -1.0 * score


_registered: weakref.WeakSet[apsw.Connection] = weakref.WeakSet()


def _register(db: apsw.Connection) -> None:
    """The auxiliary function on this connection (once; registering is per connection)."""
    if db not in _registered:
        db.register_fts5_function(FUNCTION, _visible_bm25)
        db.register_fts5_function(ROWS, lambda api, *_: api.row_count)
        db.register_fts5_function(TOKENS, lambda api, *_: api.column_total_size(-1))
        _registered.add(db)
