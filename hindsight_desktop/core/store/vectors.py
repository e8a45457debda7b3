"""The vector index: one sqlite-vec vec0 table per embedding model, so vector spaces never mix.

The vec0 table is the stored truth; searches go through an in-process cache (vector_cache.py) that
every change here is logged for, so other processes' writes are seen too.
"""

from __future__ import annotations

import re

import apsw
import numpy as np

from hindsight_desktop.core.index import vector_codes
from hindsight_desktop.core.index.vector_cache import Reader, VectorCache
from hindsight_desktop.core.store import values
from hindsight_desktop.core.timeutil import to_db


def register_model(db: apsw.Connection, model_id: str, dim: int, now) -> int:
    """The number of the model's vec0 table, creating the table the first time the model is seen."""
    row = db.execute("SELECT num, dim FROM models WHERE model_id = ?", (model_id,)).fetchone()
    if row is not None:
        return int(row[0])
    db.execute("INSERT INTO models (model_id, dim, created_at) VALUES (?, ?, ?)", (model_id, dim, to_db(now)))
    num = int(db.last_insert_rowid())
    create_table(db, num, dim)
    return num


def create_table(db: apsw.Connection, num: int, dim: int) -> None:
    """The vec0 table of model `num`: `dim` floats a row, compared by cosine distance."""
    db.execute(f"CREATE VIRTUAL TABLE vec_{num} USING vec0 (embedding float[{dim}] distance_metric=cosine)")


def drop_table(db: apsw.Connection, num: int) -> None:
    """Remove model `num`'s vec0 table and the search codes derived from it."""
    db.execute(f"DROP TABLE IF EXISTS vec_{num}")
    vector_codes.drop_model(db, num)


class VectorIndex:
    """Vectors of one model, keyed by the memory's integer rowid. Callers pass the connection of their
    read or write transaction; the search cache guards itself across threads."""

    def __init__(self, num: int, dim: int, reader: Reader | None = None) -> None:
        """`reader` (a Store's `read_apart`) lets the search cache load its codes in the background."""
        self.num = num
        self.table = f"vec_{num}"
        self.dim = dim
        self.cache = VectorCache(self.table, num, dim, reader)

    def add(self, db: apsw.Connection, rowid: int, vector: np.ndarray) -> None:
        if vector.shape != (self.dim,):
            raise ValueError(f"vector has shape {vector.shape}; this index holds {self.dim} dimensions")
        clear_vector(db, self.table, self.dim, rowid)  # the old vector's bytes go too, not only its row
        db.execute(f"INSERT INTO {self.table} (rowid, embedding) VALUES (?, ?)", (rowid, _blob(vector)))
        vector_codes.write(db, self.num, self.dim, rowid, vector)
        self._log(db, rowid, "add")

    def delete(self, db: apsw.Connection, rowid: int) -> int:
        removed = clear_vector(db, self.table, self.dim, rowid)
        if removed:
            self._log(db, rowid, "delete")
        return removed

    def discard_cached(self, rowid: int) -> None:
        """Drop a vector from this process's search cache now, not at the next refresh (a purge)."""
        self.cache.discard(rowid)

    def _log(self, db: apsw.Connection, rowid: int, op: str) -> None:
        db.execute("INSERT INTO vector_changes (model_num, memory_rowid, op) VALUES (?, ?, ?)", (self.num, rowid, op))

    def count(self, db: apsw.Connection) -> int:
        return values.number(db, f"SELECT count(*) FROM {self.table}")

    def nearest(
        self, db: apsw.Connection, vector: np.ndarray, k: int, hidden: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """The k nearest rowids with their cosine similarity, best first, leaving out the `hidden` rowids."""
        self.cache.refresh(db)
        return self.cache.nearest(db, vector, k, hidden)

    def matrix(self, db: apsw.Connection, rowids: list[int]) -> tuple[list[int], np.ndarray]:
        """(rowids that have a vector, their vectors as rows), in the order asked."""
        self.cache.refresh(db)
        return self.cache.matrix(db, rowids)

    def vectors(self, db: apsw.Connection, rowids: list[int]) -> dict[int, np.ndarray]:
        """The vectors of those rowids that have one, by rowid."""
        found, rows = self.matrix(db, rowids)
        return dict(zip(found, rows, strict=True))

    def prune_log(self, db: apsw.Connection, keep: int = 100_000) -> None:
        """Trim the change log; a process that fell further behind simply reloads its cache."""
        db.execute("DELETE FROM vector_changes WHERE seq <= (SELECT max(seq) FROM vector_changes) - ?", (keep,))


# sqlite-vec releases before this one only cleared a deleted row's validity bit and left its bytes in
# the chunk (its issues 54 and 178); 0.1.9 was checked here to zero them itself
# (tests/unit/core/store/test_purge_copies.py).
DELETE_CLEARS_FROM = (0, 1, 9)
_delete_clears: bool | None = None


def clear_vector(db: apsw.Connection, table: str, dim: int, rowid: int) -> int:
    """Delete a vector so that its bytes leave the file too, with the search codes derived from it; 1 if
    there was one. On a sqlite-vec that does not zero deleted vectors itself, the vector is overwritten
    with zeros first (a cost per delete, bench/NOTES.md, so not done where the delete already clears)."""
    if db.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (rowid,)).fetchone() is None:
        return 0
    vector_codes.remove(db, model_num(table), dim, rowid)
    if not _native_delete_clears(db):
        db.execute(f"UPDATE {table} SET embedding = ? WHERE rowid = ?", (bytes(4 * dim), rowid))
    db.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
    return 1


def model_num(table: str) -> int:
    """The model number of a vec0 table's name (`vec_<num>`)."""
    return int(table.removeprefix("vec_"))


def _native_delete_clears(db: apsw.Connection) -> bool:
    global _delete_clears
    if _delete_clears is None:
        row = db.execute("SELECT vec_version()").fetchone()
        version = str(row[0] if row is not None else "").lstrip("v")
        numbers = tuple(int(part) for part in re.findall(r"\d+", version.split("-")[0])[:3])
        _delete_clears = "-" not in version and numbers >= DELETE_CLEARS_FROM  # a pre-release: play safe
    return _delete_clears


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


def stored_vectors(db: apsw.Connection, table: str, rowids: list[int]) -> list[tuple[int, bytes]]:
    """(rowid, little-endian float32 bytes) of those rowids that have a vector in the vec0 `table`."""
    if not rowids:
        return []
    marks = values.marks(rowids)
    return [
        (int(r), blob)
        for r, blob in db.execute(f"SELECT rowid, embedding FROM {table} WHERE rowid IN ({marks})", rowids)
    ]


# ---- long-term memories and a model's vector table (the re-embed of a switch) ------------------------

LONG_TERM = "layer != 'working'"  # working memory has no vectors


def long_term_count(db: apsw.Connection, upto: int | None = None) -> int:
    """How many long-term memories there are (with rowid at most `upto`, when given)."""
    extra, args = ("AND rowid <= ?", (upto,)) if upto is not None else ("", ())
    return values.number(db, f"SELECT count(*) FROM memories WHERE {LONG_TERM} {extra}", args)


def long_term_after(db: apsw.Connection, after: int, limit: int) -> list[tuple[int, str]]:
    """(rowid, content) of the next `limit` long-term memories after rowid `after`."""
    rows = db.execute(
        f"SELECT rowid, content FROM memories WHERE rowid > ? AND {LONG_TERM} ORDER BY rowid LIMIT ?", (after, limit)
    )
    return [(int(r), str(c)) for r, c in rows]


def long_term_texts(db: apsw.Connection, rowids: list[int]) -> list[tuple[int, str]]:
    """(rowid, content) of those of `rowids` that are long-term memories, by rowid (per chunk of 500)."""
    found: list[tuple[int, str]] = []
    for chunk in values.chunks(rowids):
        found += [
            (int(r), str(c))
            for r, c in db.execute(
                f"SELECT rowid, content FROM memories WHERE rowid IN ({values.marks(chunk)}) "
                f"AND {LONG_TERM} ORDER BY rowid",
                chunk,
            )
        ]
    return found


def long_term_text(db: apsw.Connection, rowid: int) -> str | None:
    row = db.execute(f"SELECT content FROM memories WHERE rowid = ? AND {LONG_TERM}", (rowid,)).fetchone()
    return None if row is None else str(row[0])


def long_term_ahead(db: apsw.Connection, after: int, limit: int) -> list[int]:
    """Rowids of up to `limit` long-term memories after rowid `after` (in no promised order)."""
    return [
        int(r)
        for (r,) in db.execute(f"SELECT rowid FROM memories WHERE rowid > ? AND {LONG_TERM} LIMIT ?", (after, limit))
    ]


def without_vector(db: apsw.Connection, table: str, limit: int) -> list[tuple[int, str]]:
    """(rowid, content) of up to `limit` long-term memories with no vector in `table`."""
    rows = db.execute(
        f"SELECT rowid, content FROM memories WHERE {LONG_TERM} AND rowid NOT IN (SELECT rowid FROM {table}) LIMIT ?",
        (limit,),
    )
    return [(int(r), str(c)) for r, c in rows]


def orphans(db: apsw.Connection, table: str) -> list[int]:
    """Rowids with a vector in `table` but no long-term memory (purged by a process with another model)."""
    return [
        int(r)
        for (r,) in db.execute(
            f"SELECT rowid FROM {table} WHERE rowid NOT IN (SELECT rowid FROM memories WHERE {LONG_TERM})"
        )
    ]


def count_either(db: apsw.Connection, first: str, second: str) -> int:
    """Memories with a vector in either of two tables."""
    return values.number(db, f"SELECT count(*) FROM (SELECT rowid FROM {first} UNION SELECT rowid FROM {second})")
