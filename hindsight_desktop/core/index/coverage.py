"""Whether the keyword and vector indexes hold exactly the long-term memories: the rows one lacks,
the rows one holds whose memory is gone. Repair fixes what these find and the doctor reports it, so
both ask the same questions here and can never disagree.

`table` is an index table: fts_words (the keyword index) or a model's vec0 table (vec_<num>), both
keyed by the memory's rowid. Working memory is never indexed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import apsw

# The rowids that belong in the keyword and vector indexes.
LONG_TERM_ROWIDS = "SELECT rowid FROM memories WHERE layer != 'working'"
KEYWORD_TABLE = "fts_words"


class Gaps(NamedTuple):
    rows: int  # rows in the index
    missing: int  # long-term memories it lacks
    orphans: int  # rows whose memory is gone, or is now working memory


class Unindexed(NamedTuple):
    """A long-term memory missing from an index, with what indexing it again needs."""

    rowid: int
    content: str
    entities: str
    occurred_at: str


def _count(db: apsw.Connection, sql: str) -> int:
    row: Any = db.execute(sql).fetchone()  # an aggregate without GROUP BY: always one row
    return int(row[0])


def long_term_count(db: apsw.Connection) -> int:
    return _count(db, f"SELECT count(*) FROM ({LONG_TERM_ROWIDS})")


def is_long_term(db: apsw.Connection, rowid: int) -> bool:
    """Whether the rowid is a long-term memory now (a write may have reused it since it was listed)."""
    return db.execute(f"{LONG_TERM_ROWIDS} AND rowid = ?", (rowid,)).fetchone() is not None


def long_term_content(db: apsw.Connection, rowid: int) -> str | None:
    """The text of a long-term memory; None when it is gone or working memory."""
    row = db.execute("SELECT content FROM memories WHERE rowid = ? AND layer != 'working'", (rowid,)).fetchone()
    return None if row is None else str(row[0])


def orphans(db: apsw.Connection, table: str) -> list[int]:
    """Rowids in the index whose memory is gone (or is now working memory)."""
    return [int(r) for (r,) in db.execute(f"SELECT rowid FROM {table} WHERE rowid NOT IN ({LONG_TERM_ROWIDS})")]


def gaps(db: apsw.Connection, table: str) -> Gaps:
    return Gaps(
        rows=_count(db, f"SELECT count(*) FROM {table}"),
        missing=_count(db, f"SELECT count(*) FROM ({LONG_TERM_ROWIDS}) WHERE rowid NOT IN (SELECT rowid FROM {table})"),
        orphans=_count(db, f"SELECT count(*) FROM {table} WHERE rowid NOT IN ({LONG_TERM_ROWIDS})"),
    )


def unindexed(db: apsw.Connection, vector_table: str | None) -> list[Unindexed]:
    """Long-term memories missing from the keyword index, or from `vector_table` when one is given."""
    vector_check = "" if vector_table is None else f"rowid NOT IN (SELECT rowid FROM {vector_table}) OR "
    rows = db.execute(
        f"SELECT rowid, content, entities, occurred_at FROM memories WHERE layer != 'working' AND "
        f"({vector_check}rowid NOT IN (SELECT rowid FROM {KEYWORD_TABLE}))"
    )
    return [Unindexed(*row) for row in rows]


def has_row(db: apsw.Connection, table: str, rowid: int) -> bool:
    """Whether the index holds the memory (asked of the table itself, not of a cache)."""
    return db.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (rowid,)).fetchone() is not None
