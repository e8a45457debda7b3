"""Each phrase's posting over every row of an index, kept across this process's own writes.

A term's posting (postings.py) is read from FTS5's instance table, a scan of every occurrence: most of a
keyword search right after a write, when every kept posting used to be dropped. Every read connection of
the store shares these postings (before each viewer's hidden rows are left out), each kept with the state
of the indexes it is of, up to a bound on the rows kept, the least recently asked going first. At a later
state, if the ledger (row_lengths.py) knows which rows changed in between, a posting asked again is the
old one less those rows, plus those of them that hold the phrase now. Those are found from the texts this
process's writes put in the rows, tokenized with the index's own tokenizer (each row's token count checked
against FTS5's length for it); without known texts, by one FTS5 match limited to those rowids, its counts
from the phrase's offsets (a seek into each of the phrase's segments, the slower way).
The result is the posting a full read gives (tests/unit/core/index/test_row_lengths.py). Each is kept
`postings.compact`, its rows' lengths left to the kept array (row_lengths.py) they are scored with.
"""

from __future__ import annotations

import json
import math
import threading
import weakref

import apsw
import numpy as np

from hindsight_desktop.core.index import postings, row_lengths
from hindsight_desktop.core.index.least_recent import LeastRecent
from hindsight_desktop.core.index.postings import Posting
from hindsight_desktop.core.index.row_lengths import Ledger

# Posting entries kept for the whole store (6 bytes each, `postings.compact`): a million-memory store's
# common words hold 30k-120k rows each, and the postings of a few dozen questions fit.
ROWS_KEPT = 4_000_000
_COUNT = "phrase_count"
_UNKNOWN = object()  # not yet asked at this state (None: the phrase has no posting, several tokens)


class KeptPostings:
    """The store's postings, each with the state of the indexes it is of, shared by its read connections."""

    def __init__(self, ledger: Ledger) -> None:
        # Weakly: these are kept by the ledger's own key in `_kept`, which must not keep its store's
        # ledger (and these postings) alive after the store is closed.
        self._ledger = weakref.ref(ledger)
        self._lock = threading.Lock()  # the map only: reading a posting runs on the asking connection
        self._found: LeastRecent[tuple[str, str], tuple[bytes, Posting | None]] = LeastRecent(
            ROWS_KEPT, lambda entry: 1 + (len(entry[1]) if entry[1] is not None else 0)
        )

    def get(self, db: apsw.Connection, table: str, phrase: str, state: bytes, lengths: np.ndarray) -> Posting | None:
        """The phrase's posting over every row of `table` at `state` (db's snapshot), compact (its rows'
        lengths are those of `lengths`, every row's at `state`), None when it is no one token."""
        key = (table, phrase)
        with self._lock:
            entry = self._found.get(key)
        new: Posting | None | object = _UNKNOWN
        if entry is not None:
            at, old = entry
            if at == state:
                return old
            if old is None:
                new = None  # what the tokenizer makes of a phrase does not change with the rows
            else:
                ledger = self._ledger()
                changed = ledger.changes(at, state) if ledger is not None else None
                if changed is not None:
                    texts = ledger.texts(at, state, table) if ledger is not None and changed[table] else None
                    new = _brought_up_to_date(db, table, phrase, old, changed[table], texts, lengths)
        if new is _UNKNOWN:
            read = postings.read(db, table, phrase, lengths)
            new = None if read is None else postings.compact(read)
        with self._lock:
            self._found.put(key, (state, new))  # type: ignore[arg-type]
        return new  # type: ignore[return-value]

    def kept(self) -> list[tuple[tuple[str, str], tuple[bytes, Posting | None]]]:
        """What is kept: ((table, phrase), (state, posting)), least recently asked first."""
        with self._lock:
            return self._found.items()


_kept: weakref.WeakKeyDictionary[Ledger, KeptPostings] = weakref.WeakKeyDictionary()
_kept_lock = threading.Lock()


def of(db: apsw.Connection) -> KeptPostings | None:
    """The kept postings of a read connection's store (None for the writer, whose uncommitted changes no
    state shows)."""
    ledger = row_lengths.ledger_of(db)
    if ledger is None:
        return None
    with _kept_lock:
        found = _kept.get(ledger)
        if found is None:
            found = _kept[ledger] = KeptPostings(ledger)
    return found


def _brought_up_to_date(
    db: apsw.Connection,
    table: str,
    phrase: str,
    old: Posting,
    changed: frozenset[int],
    texts: dict[int, str | None] | None,
    lengths: np.ndarray,
) -> Posting:
    """`old` (compact) with the `changed` rows as the index holds them now (their `texts`, when known)."""
    if not changed:
        return old
    rows = np.array(sorted(changed), dtype=np.int64)
    kept = ~postings.places_in(rows, old.rowids)[1]
    matched = _counted(db, table, phrase, texts, lengths) if texts is not None else None
    if matched is None:
        matched = _matches(db, table, phrase, rows)
    if not matched and kept.all():
        return old  # no changed row holds the phrase, before or now
    new_rows = np.array([r for r, _ in matched], dtype=np.int64)
    # In the widest types: a new row or count may not fit the compact ones of the old rows.
    rowids, counts = old.rowids[kept].astype(np.int64), old.counts[kept].astype(np.int64)
    places = np.searchsorted(rowids, new_rows)  # the changed rows are not among those kept
    return postings.compact(
        Posting(
            np.insert(rowids, places, new_rows),
            np.insert(counts, places, np.array([c for _, c in matched], dtype=np.int64)),
            None,
        )
    )


def _counted(
    db: apsw.Connection, table: str, phrase: str, texts: dict[int, str | None], lengths: np.ndarray
) -> list[tuple[int, int]] | None:
    """Those of the changed rows whose text holds the phrase's token, with its count in each, ascending;
    None when a text disagrees with the row FTS5 holds (its length, or its absence): then FTS5 is asked."""
    token = postings.query_token(db, table, phrase)
    if token is None:
        return None
    found = []
    for rowid in sorted(texts):
        text = texts[rowid]
        held = float(lengths[rowid]) if rowid < len(lengths) else math.nan
        if text is None:
            if not math.isnan(held):
                return None
            continue
        counts, size = _token_counts(db, table, text)
        if size != held:
            return None
        if counts.get(token):
            found.append((rowid, counts[token]))
    return found


_TOKENIZED_KEPT = 256  # texts tokenized, kept for the other phrases of the same searches
_tokenized: LeastRecent[tuple[tuple[str, tuple[str, ...]], str], tuple[dict[str, int], int]] = LeastRecent(
    _TOKENIZED_KEPT
)
_tokenized_lock = threading.Lock()


def _token_counts(db: apsw.Connection, table: str, text: str) -> tuple[dict[str, int], int]:
    """How many positions of `text` hold each token, as the index's tokenizer makes them, and how many
    positions it has (FTS5's length of the row)."""
    key = (postings.tokenizer_spec(db, table), text)
    with _tokenized_lock:
        known = _tokenized.get(key)
    if known is not None:
        return known
    positions = postings.document_tokens(db, table, text)
    counts: dict[str, int] = {}
    for tokens in positions:
        for token in set(tokens):
            counts[token] = counts.get(token, 0) + 1
    with _tokenized_lock:
        _tokenized.put(key, (counts, len(positions)))
    return counts, len(positions)


_ONE_BY_ONE = 16  # changed rows up to which each is one seek of the phrase's rows (rowid = ?)


def _matches(db: apsw.Connection, table: str, phrase: str, rows: np.ndarray) -> list[tuple[int, int]]:
    """Those of `rows` (ascending) that hold the phrase, with its count in each, ascending."""
    _register(db)
    sql = f"SELECT rowid, {_COUNT}({table}) FROM {table} WHERE {table} MATCH ? AND "
    if len(rows) <= _ONE_BY_ONE:
        return [(int(r), int(c)) for row in rows.tolist() for r, c in db.execute(sql + "rowid = ?", (phrase, row))]
    found = db.execute(sql + "rowid IN (SELECT value FROM json_each(?))", (phrase, json.dumps(rows.tolist())))
    return [(int(r), int(c)) for r, c in found]


_registered: weakref.WeakSet[apsw.Connection] = weakref.WeakSet()


def _register(db: apsw.Connection) -> None:
    """The phrase's occurrences in a matching row (both indexes have one column), once per connection."""
    if db not in _registered:
        db.register_fts5_function(_COUNT, lambda api, *_: len(api.phrase_column_offsets(0, 0)))
        _registered.add(db)
