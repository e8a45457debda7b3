"""One term's rows in a keyword index, read from FTS5's own index, for scoring BM25 in numpy.

A viewer with hidden memories cannot use FTS5's bm25() (its statistics count every row), and an FTS5
auxiliary function in Python costs a call per matching row. Instead a one-token phrase's rows, its number
of occurrences in each and each row's length are read from an fts5vocab 'instance' table and the index's
%_docsize table in one query, and kept (keyword_stats keeps them until the index changes). A phrase the
table's tokenizer cuts into several tokens (a trigram run) has no such list: its searches go the other way.
"""

from __future__ import annotations

import json
import re
import weakref
from dataclasses import dataclass

import apsw
import numpy as np

_TOKENIZE = re.compile(r"tokenize\s*=\s*'([^']*)'", re.IGNORECASE)


@dataclass(frozen=True)
class Posting:
    """The rows that hold one token: sorted rowids, with the token's count and the row's length in each."""

    rowids: np.ndarray  # int64, ascending (int32 in a `compact` one)
    counts: np.ndarray  # float64 (uint16 in a `compact` one)
    lengths: np.ndarray | None  # the row's length in tokens, whole numbers (float32 or 64); None in a `compact` one

    def __len__(self) -> int:
        return len(self.rowids)


def compact(posting: Posting) -> Posting:
    """The posting without its lengths and in the narrowest types that hold its numbers exactly: what a
    read connection keeps, over many rows, beside the kept array its lengths are taken from (`lengths_at`)."""
    rowids, counts = posting.rowids, posting.counts
    if rowids.dtype != np.int32 and (not len(rowids) or rowids[-1] <= np.iinfo(np.int32).max):
        rowids = rowids.astype(np.int32)
    if counts.dtype != np.uint16 and (not len(counts) or counts.max() <= np.iinfo(np.uint16).max):
        counts = counts.astype(np.uint16)
    return Posting(rowids, counts, None)


def lengths_at(db: apsw.Connection, table: str, rowids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The lengths of `rowids` (ascending) from `lengths`, every row's by rowid; a row the array has no
    length for is read from the index's %_docsize table, as a posting read without the array reads it."""
    if not len(rowids) or rowids[-1] < len(lengths):
        found = lengths[rowids]
    else:
        found = np.full(len(rowids), np.nan)
        within = np.searchsorted(rowids, len(lengths))  # the rowids the array reaches
        found[:within] = lengths[rowids[:within]]
    missing = np.isnan(found)
    if missing.any():
        found[missing] = lengths_of(db, table, rowids[missing])
    return found


def narrow(lengths: np.ndarray) -> np.ndarray:
    """Row lengths as float32 where every one is a whole number it holds exactly (all but a row of
    millions of tokens), else as they are: a view keeps them with its postings, as float64 again to score."""
    if lengths.dtype == np.float64 and (not len(lengths) or lengths.max() < 2**24):
        return lengths.astype(np.float32)
    return lengths


def read(db: apsw.Connection, table: str, phrase: str, lengths: np.ndarray | None = None) -> Posting | None:
    """The posting of an FTS5 string (`keyword.quote`'s form) in `table`, or None when the table's
    tokenizer does not make it exactly one token or the connection has no instance table
    (`create_instance_tables`). `lengths`: every row's length by rowid (row_lengths.py), to take them
    from rather than from a seek of %_docsize per occurrence."""
    token = _one_token(db, table, _unquote(phrase))
    if token is None or not _has_instance_tables(db):
        return None
    if table not in TABLES:
        raise ValueError(f"{table} is not a keyword index")
    if lengths is not None:
        found = _counted(db, table, token, lengths)
        if found is not None:
            return found
    # One row back, built in C: a common term holds tens of thousands of rows, too many to step through here.
    # One row per occurrence, as the instance table gives them: grouping them per row in SQL (a temporary
    # B-tree for the GROUP BY and one per ordered group_concat) cost three times the read itself
    # (bench/NOTES.md), so the rows and their counts are found in numpy. CROSS JOIN keeps the instance
    # table outside, the row lengths looked up per occurrence.
    row = db.execute(
        "SELECT group_concat(i.doc, ','), group_concat(hex(d.sz), ''), count(*) "
        f"FROM temp.{table}_instances AS i CROSS JOIN {table}_docsize AS d ON d.id = i.doc WHERE i.term = ?",
        (token,),
    ).fetchone()
    if row is None or not row[2]:
        return _EMPTY
    docs, sizes, total = row
    assert isinstance(docs, str) and isinstance(sizes, str) and isinstance(total, int)
    occurrences = integers(docs, total)
    rowids, first, counts = np.unique(occurrences, return_index=True, return_counts=True)
    return Posting(rowids, counts.astype(np.float64), varints(bytes.fromhex(sizes), total)[first])


def _counted(db: apsw.Connection, table: str, token: str, lengths: np.ndarray) -> Posting | None:
    """The posting with its rows' lengths taken from `lengths`; None if a row has none there (then the
    array is not of this snapshot, and the lengths are read as before)."""
    row = db.execute(
        f"SELECT group_concat(doc, ','), count(*) FROM temp.{table}_instances WHERE term = ?", (token,)
    ).fetchone()
    if row is None or not row[1]:
        return _EMPTY
    docs, total = row
    assert isinstance(docs, str) and isinstance(total, int)
    rowids, counts = np.unique(integers(docs, total), return_counts=True)
    if rowids[-1] >= len(lengths):
        return None
    found = lengths[rowids]
    if np.isnan(found).any():
        return None
    return Posting(rowids, counts.astype(np.float64), found)


_EMPTY = Posting(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))


def lengths_of(db: apsw.Connection, table: str, rowids: np.ndarray) -> np.ndarray:
    """Each row's length in tokens from the index's %_docsize table, in the order asked; NaN for a rowid
    the index does not hold."""
    found = np.full(len(rowids), np.nan)
    if not len(rowids):
        return found
    held, lengths = row_sizes(db, table, "id IN (SELECT value FROM json_each(?))", (json.dumps(rowids.tolist()),))
    if not len(held):
        return found
    order = np.argsort(held)
    held, lengths = held[order], lengths[order]
    at, there = places_in(held, rowids)
    found[there] = lengths[at[there]]
    return found


def places_in(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `wanted` is in the ascending, non-empty `keys`, and whether it is there at all."""
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return at, keys[at] == wanted


def row_sizes(db: apsw.Connection, table: str, where: str, args: tuple[object, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The rowids and lengths of the rows of the index's %_docsize table that `where` picks, as SQLite
    gives them: one row back, built in C, the lengths decoded together (`varints`), not row by row."""
    if table not in TABLES:
        raise ValueError(f"{table} is not a keyword index")
    row = db.execute(
        f"SELECT group_concat(id, ','), group_concat(hex(sz), ''), count(*) FROM {table}_docsize WHERE {where}", args
    ).fetchone()
    if row is None or not row[2]:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    ids, sizes, count = row
    assert isinstance(ids, str) and isinstance(sizes, str) and isinstance(count, int)
    return integers(ids, count), varints(bytes.fromhex(sizes), count)


def integers(listed: str, count: int) -> np.ndarray:
    """`count` whole numbers listed with commas between them (SQLite's group_concat of rowids), parsed in C:
    a JSON parse of a common term's rows built a Python int per row first."""
    found = np.fromstring(listed, dtype=np.int64, sep=",")
    if len(found) != count:
        raise ValueError(f"expected {count} rowids in the keyword index's list, read {len(found)}")
    return found


def varints(data: bytes, count: int) -> np.ndarray:
    """`count` SQLite variable-length integers back to back (each %_docsize record of a one-column index
    is one), decoded at once: every byte but a number's last has its high bit set."""
    raw = np.frombuffer(data, dtype=np.uint8)
    last = raw < 0x80
    if int(last.sum()) != count or len(raw) > count * 8:  # not one short varint per row: decode one by one
        values, i = [], 0
        while i < len(data):
            start = i
            while data[i] >= 0x80 and i - start < 8:
                i += 1
            values.append(_first_varint(data[start : i + 1]))
            i += 1
        return np.array(values, dtype=np.float64)
    number = np.concatenate([[0], np.cumsum(last)[:-1]])  # which number each byte belongs to
    ends = np.flatnonzero(last)
    shift = 7 * (ends[number] - np.arange(len(raw)))
    return np.bincount(number, weights=(raw & 0x7F).astype(np.float64) * np.exp2(shift), minlength=count)


def _unquote(phrase: str) -> str:
    if len(phrase) >= 2 and phrase[0] == phrase[-1] == '"':
        return phrase[1:-1].replace('""', '"')
    return phrase


def _first_varint(blob: bytes) -> int:
    """The first of SQLite's variable-length integers in a %_docsize record (the one column's length)."""
    value = 0
    for n, byte in enumerate(blob[:9]):
        if n == 8:  # the ninth byte carries eight bits
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            break
    return value


# ---- per connection: the table's tokenizer and its fts5vocab table ------------------------------------

# Each connection's tokenizer name and arguments per table. Not the tokenizer itself: it holds its
# connection, and as a value here it would keep its own key, and all kept for that connection, alive.
_tokenizers: weakref.WeakKeyDictionary[apsw.Connection, dict[str, tuple[str, tuple[str, ...]]]] = (
    weakref.WeakKeyDictionary()
)
TABLES = ("fts_words", "fts_trigram")


def create_instance_tables(db: apsw.Connection) -> None:
    """Each keyword index's fts5vocab 'instance' table (one row per token occurrence), as a temporary table
    of the connection: made when it opens, before a reader is made read-only (a temporary table is nothing
    in the file, but a read-only connection cannot make one)."""
    for table in TABLES:
        db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_instances USING fts5vocab(main, {table}, instance)"
        )


def tokenizer_spec(db: apsw.Connection, table: str) -> tuple[str, tuple[str, ...]]:
    """The tokenizer `table` names in its schema, and its arguments."""
    known = _tokenizers.setdefault(db, {})
    if table not in known:
        row = db.execute("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)).fetchone()
        found = _TOKENIZE.search(str(row[0])) if row is not None else None
        name, *args = (found.group(1) if found else "unicode61").split()
        known[table] = (name, tuple(args))
    return known[table]


def _tokenizer(db: apsw.Connection, table: str) -> apsw.FTS5Tokenizer:
    name, args = tokenizer_spec(db, table)
    return db.fts5_tokenizer(name, list(args))


def _one_token(db: apsw.Connection, table: str, text: str) -> str | None:
    """The one token FTS5 makes of `text` in a query on `table`, or None (none, several, or synonyms)."""
    tokens = list(_tokenizer(db, table)(text.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None, include_offsets=False))
    if len(tokens) != 1 or not isinstance(tokens[0], tuple) or len(tokens[0]) != 1:  # none, several, or synonyms
        return None
    return str(tokens[0][0])


def query_token(db: apsw.Connection, table: str, phrase: str) -> str | None:
    """The one token of an FTS5 string (`keyword.quote`'s form) in a query on `table`, or None."""
    return _one_token(db, table, _unquote(phrase))


def document_tokens(db: apsw.Connection, table: str, text: str) -> list[tuple[str, ...]]:
    """The tokens FTS5 indexes `text` as in a row of `table`, position by position (each position's
    token with any it makes at the same place)."""
    tokenizer = _tokenizer(db, table)
    found = tokenizer(text.encode("utf-8"), apsw.FTS5_TOKENIZE_DOCUMENT, None, include_offsets=False)
    return [(t,) if isinstance(t, str) else tuple(str(part) for part in t) for t in found]


def _has_instance_tables(db: apsw.Connection) -> bool:
    row = db.execute("SELECT 1 FROM temp.sqlite_schema WHERE name = ?", (f"{TABLES[0]}_instances",)).fetchone()
    return row is not None
