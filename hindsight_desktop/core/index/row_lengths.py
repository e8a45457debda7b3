"""Every row's length in each keyword index, kept in memory across this process's own writes.

BM25 needs the length of every row a term is in, and a viewer's statistics the lengths of the rows
hidden from it. Read from FTS5's %_docsize table, a seek per row, that is most of what a common term's
posting costs and most of a viewer's statistics (bench/NOTES.md), and both were read again after every
write. Here each index's lengths are read once into an array by rowid and moved forward with this
process's writes:

- the writer connection's update hook sees FTS5 write its %_docsize rows, so the rowids each write
  touched are known; after each commit they are recorded against the state of the indexes the commit
  left (`index_state`, the records FTS5 rewrites whenever an index changes);
- a read connection whose snapshot is at a recorded state reads again only the lengths of the rows
  changed since the kept array's state.

Each recorded commit also keeps what this process's writes put in the changed rows (`note_text`; a kept
posting is brought up to date from them, kept_postings.py) and the memories rows it changed (a viewer's
hidden rows are moved forward by them, keyword_stats.py).

Anything else means a full read: another connection's commit (seen through PRAGMA data_version, which
moves with every commit but the connection's own), a state that was never recorded, or an array whose
row count or token total differs from FTS5's own (checked on every use). Only a process that asked for
the arrays (`Ledger.load`, a served process's warm-up) reads them in full; the others read lengths per
posting as before.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, replace

import apsw
import numpy as np

from hindsight_desktop.core.index import postings

TABLES = postings.TABLES
_DOCSIZE = {f"{table}_docsize": table for table in TABLES}
_CHAIN = 512  # recorded states kept; an array older than the oldest is read again in full
# A patch reads each changed row's length (a seek each); past this share of the rows a full read is cheaper.
_PATCH_SHARE = 0.25
_READ_RANGE = 65_536  # rowids a full read takes at a time
# A commit that changes at most this many index rows keeps their texts with its state (`texts`): a larger
# one (an import) keeps none. The recorded commits hold at most _TEXT_CHARS characters of texts in all, the
# oldest commits' let go first (a posting kept from before them is brought up to date through FTS5).
_TEXTS_UP_TO = 64
_TEXT_CHARS = 1_000_000
# Rows of the memories table changed between recorded states (a keyword statistics view moves its hidden
# rows forward by them, keyword_stats.py); past this many (access counts pile up between index changes)
# they are not known, and a view is computed again in full.
_MEMORIES_UP_TO = 4096

# FTS5's own records in an index's %_data table: the averages (row count, token totals) and the
# structure (its segments and a write counter), rewritten whenever a transaction changes the index.
_AVERAGES_ID, _STRUCTURE_ID = 1, 10


def index_state(db: apsw.Connection) -> bytes:
    """Both keyword indexes' averages and structure records, as one value that changes with either index."""
    state = b""
    for table in TABLES:
        for _, block in db.execute(
            f"SELECT id, block FROM {table}_data WHERE id IN (?, ?) ORDER BY id", (_AVERAGES_ID, _STRUCTURE_ID)
        ):
            state += len(block).to_bytes(4, "little") + bytes(block)
    return state


@dataclass(frozen=True)
class _Kept:
    state: bytes  # the indexes' state the lengths are of
    # float32 by rowid, NaN for a rowid the index does not hold: half the memory, and half the copy each
    # write makes, of float64; it holds every length below 2^24 tokens exactly, and a length it would round
    # makes `tokens` differ from FTS5's total, so the array is not used.
    lengths: np.ndarray
    rows: int  # rowids with a length
    tokens: float  # their lengths' sum, taken in float64 (exact: whole numbers far below 2^53)


@dataclass(frozen=True)
class _Step:
    """One recorded commit of this process's writer: the state of the indexes it left, and what changed
    since the step before."""

    state: bytes
    rows: dict[str, frozenset[int]]  # per index, its rows changed
    texts: dict[str, dict[int, str | None]]  # per index, what some of those rows hold now (None: taken out)
    memories: frozenset[int] | None  # the memories table's rows changed (None: not known)


class Ledger:
    """What this process's writer changed in the keyword indexes, and the arrays kept from it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, set[int]] = {table: set() for table in TABLES}
        # What this transaction's writes put in each changed row (None: the row was taken out), as
        # `note_text` was told; a changed row missing here has no known text.
        self._texts: dict[str, dict[int, str | None]] = {table: {} for table in TABLES}
        self._memories: set[int] | None = set()  # None: more than _MEMORIES_UP_TO since the last step
        # The recorded states of this run of the writer's own commits, oldest first.
        self._chain: list[_Step] = []
        self._data_version: int | None = None
        self._kept: dict[str, _Kept] = {}
        # Whether a full read is worth it: a whole index's lengths cost more than one search's postings
        # (bench/NOTES.md), so only a process that serves many searches asks for them (`load`).
        self._wanted = False

    def load(self, db: apsw.Connection) -> None:
        """Read every index's lengths now (a served process's warm-up), and again in full whenever they
        cannot be moved forward."""
        self._wanted = True
        state = index_state(db)
        for table in TABLES:
            found = _read_all(db, table)
            with self._lock:
                self._kept[table] = _Kept(state, found.lengths, found.rows, found.tokens)

    def watch(self, writer: apsw.Connection) -> None:
        """Follow the writer connection's changes from now on."""
        writer.set_update_hook(self._changed)
        _writers[writer] = self
        with self._lock:
            self._data_version = _data_version(writer)
            self._chain = [_Step(index_state(writer), {}, {}, frozenset())]

    def began(self) -> None:
        """A write transaction began: texts noted before it belong to none that committed (a rollback)."""
        with self._lock:
            self._texts = {table: {} for table in TABLES}

    def _changed(self, _op: int, database: str, table: str, rowid: int) -> None:
        if database != "main":
            return
        index = _DOCSIZE.get(table)
        if index is not None:
            self._pending[index].add(rowid)
        elif table == "memories" and self._memories is not None:
            self._memories.add(rowid)
            if len(self._memories) > _MEMORIES_UP_TO:
                self._memories = None

    def committed(self, writer: apsw.Connection) -> None:
        """Record the state the writer's commit left (called right after it, in the writer's lock). A state
        read after another connection's commit starts a new run: its changes were not seen."""
        if self._data_version is None:
            return  # not watching yet (the schema's migrations at open)
        state = index_state(writer)
        version = _data_version(writer)  # after the state: a commit in between shows here
        with self._lock:
            if self._chain and state == self._chain[-1].state and version == self._data_version:
                return  # the indexes did not change (the rowids stay pending: a superset is harmless)
            pending, self._pending = self._pending, {table: set() for table in TABLES}
            texts, self._texts = self._texts, {table: {} for table in TABLES}
            memories, self._memories = self._memories, set()
            if version != self._data_version or not self._chain:
                self._chain = [_Step(state, {}, {}, frozenset())]
                self._data_version = version
                # A view at this state of the indexes may have been made before some of these memories
                # changed (a change of scope leaves the indexes as they are): the next step names them too.
                self._memories = memories
                return
            if sum(len(rows) for rows in pending.values()) > _TEXTS_UP_TO:
                texts = {}
            changed = {table: frozenset(rows) for table, rows in pending.items()}
            known = {table: {r: t for r, t in texts.get(table, {}).items() if r in changed[table]} for table in TABLES}
            self._chain.append(_Step(state, changed, known, None if memories is None else frozenset(memories)))
            del self._chain[:-_CHAIN]
            self._bound_texts()

    def _bound_texts(self) -> None:
        """Let go of the oldest commits' texts past _TEXT_CHARS characters in all (the lock held)."""
        sizes = [sum(len(t) for texts in step.texts.values() for t in texts.values() if t) for step in self._chain]
        total = sum(sizes)
        for i, size in enumerate(sizes):
            if total <= _TEXT_CHARS:
                return
            if size:
                self._chain[i] = replace(self._chain[i], texts={})
                total -= size

    def forget(self) -> None:
        """Start over: no recorded state, so every kept array is read again in full when next used."""
        with self._lock:
            self._chain = []

    def lengths(self, db: apsw.Connection, table: str, state: bytes, rows: int, tokens: int) -> np.ndarray | None:
        """Every row's length in `table` as `db`'s snapshot holds them (at `state`, with FTS5's `rows` and
        `tokens` totals), by rowid; None when they cannot be had consistently."""
        with self._lock:
            kept = self._kept.get(table)
        if kept is not None and kept.state == state and (kept.rows, kept.tokens) == (rows, tokens):
            return kept.lengths
        between = None if kept is None else self.changes(kept.state, state)
        changed = None if between is None else between[table]
        found = None
        if kept is not None and changed is not None and len(changed) <= _PATCH_SHARE * max(kept.rows, 1):
            found = _patched(db, table, kept, changed)
        if found is None or (found.rows, found.tokens) != (rows, tokens):
            if not self._wanted:
                return None  # a process that did not ask for them (a command's one search) reads per posting
            found = _read_all(db, table)
        if (found.rows, found.tokens) != (rows, tokens):
            return None  # not this snapshot's (a write of this connection's own, not yet committed)
        kept_now = _Kept(state, found.lengths, found.rows, found.tokens)
        with self._lock:
            self._kept[table] = kept_now
        return kept_now.lengths

    def changes(self, older: bytes, newer: bytes) -> dict[str, frozenset[int]] | None:
        """The rowids of each index changed from state `older` to `newer`, None when that is not known."""
        with self._lock:
            steps = self._steps(older, newer)
            if steps is None:
                return None
            changed: dict[str, set[int]] = {table: set() for table in TABLES}
            for step in steps:
                for table, rowids in step.rows.items():
                    changed[table].update(rowids)
        return {table: frozenset(rowids) for table, rowids in changed.items()}

    def memories_changed(self, older: bytes, newer: bytes) -> frozenset[int] | None:
        """The memories table's rows this process's writer changed from state `older` to `newer` (a
        superset), None when that is not known (another process wrote between, or too many rows)."""
        with self._lock:
            steps = self._steps(older, newer)
            if steps is None:
                return None
            changed: set[int] = set()
            for step in steps:
                if step.memories is None:
                    return None
                changed.update(step.memories)
        return frozenset(changed)

    def texts(self, older: bytes, newer: bytes, table: str) -> dict[int, str | None] | None:
        """What each row of `table` changed from state `older` to `newer` holds at `newer` (None: taken
        out), as this process's writes put it; None when a changed row's text is not known."""
        with self._lock:
            steps = self._steps(older, newer)
            if steps is None:
                return None
            held: dict[int, str | None] = {}
            for step in steps:
                texts = step.texts.get(table, {})
                for rowid in step.rows.get(table, ()):
                    if rowid not in texts:
                        return None
                    held[rowid] = texts[rowid]
        return held

    def _steps(self, older: bytes, newer: bytes) -> list[_Step] | None:
        """The recorded commits after state `older` up to `newer`, in order (the lock held)."""
        states = [step.state for step in self._chain]
        if older not in states or newer not in states:
            return None
        first, last = states.index(older), states.index(newer)
        return None if first > last else self._chain[first + 1 : last + 1]


def note_text(db: apsw.Connection, table: str, rowid: int, text: str | None) -> None:
    """A write through `db` put `text` in the index's row (None: took the row out). Kept with the commit
    when `db` is a store's watched writer, so a search can bring a kept posting up to date by tokenizing
    the changed rows' texts (kept_postings.py); a no-op on any other connection."""
    ledger = _writers.get(db)
    if ledger is not None:
        with ledger._lock:
            ledger._texts[table][rowid] = text


def _data_version(db: apsw.Connection) -> int:
    row = db.execute("PRAGMA data_version").fetchone()
    assert row is not None  # a pragma that always answers
    return int(row[0])


@dataclass(frozen=True)
class _Found:
    lengths: np.ndarray
    rows: int
    tokens: float


def _found(lengths: np.ndarray) -> _Found:
    held = ~np.isnan(lengths)
    return _Found(lengths, int(held.sum()), float(lengths[held].sum(dtype=np.float64)))


def _read_all(db: apsw.Connection, table: str) -> _Found:
    """Every row's length, a range of rowids at a time: each range one row built in C and decoded at once
    (postings.varints), so that a million rows never become a million Python numbers at once."""
    row = db.execute(f"SELECT max(id) FROM {table}_docsize").fetchone()
    top = int(row[0]) if row is not None and row[0] is not None else 0
    lengths = np.full(top + 1, np.nan, dtype=np.float32)
    for low in range(0, top + 1, _READ_RANGE):
        ids, sizes = postings.row_sizes(db, table, "id BETWEEN ? AND ?", (low, low + _READ_RANGE - 1))
        lengths[ids] = sizes
    return _found(lengths)


def _patched(db: apsw.Connection, table: str, kept: _Kept, changed: frozenset[int]) -> _Found:
    """The kept lengths with the changed rows read again (a copy: other readers may hold the old one)."""
    if not changed:
        return _Found(kept.lengths, kept.rows, kept.tokens)
    rowids = np.array(sorted(changed), dtype=np.int64)
    grown = int(rowids[-1]) + 1 - len(kept.lengths)
    if grown > 0:
        lengths = np.concatenate([kept.lengths, np.full(grown, np.nan, dtype=kept.lengths.dtype)])
    else:
        lengths = kept.lengths.copy()
    before = lengths[rowids].astype(np.float64)
    after = postings.lengths_of(db, table, rowids)
    lengths[rowids] = after
    was, now = ~np.isnan(before), ~np.isnan(after)
    rows = kept.rows - int(was.sum()) + int(now.sum())
    tokens = kept.tokens - float(before[was].sum()) + float(after[now].sum())
    return _Found(lengths, rows, tokens)


_ledgers: weakref.WeakKeyDictionary[apsw.Connection, Ledger] = weakref.WeakKeyDictionary()
_writers: weakref.WeakKeyDictionary[apsw.Connection, Ledger] = weakref.WeakKeyDictionary()


def attach(reader: apsw.Connection, ledger: Ledger) -> None:
    """Let a read connection's searches use the ledger's arrays."""
    _ledgers[reader] = ledger


def ledger_of(db: apsw.Connection) -> Ledger | None:
    """The ledger of a read connection (None for the writer and connections of no store)."""
    return _ledgers.get(db)
