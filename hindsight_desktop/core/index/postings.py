"""One term's rows in a keyword index, read from FTS5's own index, for scoring BM25 in numpy.

A viewer with hidden memories cannot use FTS5's bm25() (its statistics count every row), and an FTS5
auxiliary function in Python costs a call per matching row. Instead a one-token phrase's rows, its number
of occurrences in each and each row's length are read from an fts5vocab 'instance' table and the index's
%_docsize table in one query, and kept (keyword_stats keeps them until the index changes). A phrase the
table's tokenizer cuts into several tokens (a trigram run) has no such list: its searches go the other way.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

import apsw
import numpy as np

_TOKENIZE = re.compile(r"tokenize\s*=\s*'([^']*)'", re.IGNORECASE)


@dataclass(frozen=True)
class Posting:
    """The rows that hold one token: sorted rowids, with the token's count and the row's length in each."""

    rowids: np.ndarray  # int64, ascending
    counts: np.ndarray  # float64
    lengths: np.ndarray  # float64, the row's length in tokens

    def __len__(self) -> int:
        return len(self.rowids)


def read(db: apsw.Connection, table: str, phrase: str) -> Posting | None:
    """The posting of an FTS5 string (`keyword.quote`'s form) in `table`, or None when the table's
    tokenizer does not make it exactly one token or the connection has no instance table
    (`create_instance_tables`)."""
    token = _one_token(db, table, _unquote(phrase))
    if token is None or not _has_instance_tables(db):
        return None
    if table not in TABLES:
        raise ValueError(f"{table} is not a keyword index")
    rows = db.execute(
        f"SELECT i.doc, count(*), d.sz FROM temp.{table}_instances AS i JOIN {table}_docsize AS d ON d.id = i.doc "
        "WHERE i.term = ? GROUP BY i.doc ORDER BY i.doc",
        (token,),
    ).fetchall()
    rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    counts = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
    lengths = np.fromiter((_first_varint(bytes(r[2])) for r in rows), dtype=np.float64, count=len(rows))  # type: ignore[arg-type]
    return Posting(rowids, counts, lengths)


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

_tokenizers: weakref.WeakKeyDictionary[apsw.Connection, dict[str, apsw.FTS5Tokenizer]] = weakref.WeakKeyDictionary()
TABLES = ("fts_words", "fts_trigram")


def create_instance_tables(db: apsw.Connection) -> None:
    """Each keyword index's fts5vocab 'instance' table (one row per token occurrence), as a temporary table
    of the connection: made when it opens, before a reader is made read-only (a temporary table is nothing
    in the file, but a read-only connection cannot make one)."""
    for table in TABLES:
        db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_instances USING fts5vocab(main, {table}, instance)"
        )


def _one_token(db: apsw.Connection, table: str, text: str) -> str | None:
    """The one token FTS5 makes of `text` in a query on `table`, or None (none, several, or synonyms)."""
    known = _tokenizers.setdefault(db, {})
    if table not in known:
        row = db.execute("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)).fetchone()
        found = _TOKENIZE.search(str(row[0])) if row is not None else None
        name, *args = (found.group(1) if found else "unicode61").split()
        known[table] = db.fts5_tokenizer(name, args)
    tokens = list(known[table](text.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None, include_offsets=False))
    if len(tokens) != 1 or not isinstance(tokens[0], tuple) or len(tokens[0]) != 1:  # none, several, or synonyms
        return None
    return str(tokens[0][0])


def _has_instance_tables(db: apsw.Connection) -> bool:
    row = db.execute("SELECT 1 FROM temp.sqlite_schema WHERE name = ?", (f"{TABLES[0]}_instances",)).fetchone()
    return row is not None
