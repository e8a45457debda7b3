"""The vector index: one sqlite-vec vec0 table per embedding model, so vector spaces never mix.

The vec0 table is the stored truth; searches go through an in-process cache (vector_cache.py) that
every change here is logged for, so other processes' writes are seen too.
"""

from __future__ import annotations

import re

import apsw
import numpy as np

from hindsight_desktop.core.timeutil import to_db
from hindsight_desktop.core.vector_cache import VectorCache


def register_model(db: apsw.Connection, model_id: str, dim: int, now) -> int:
    """The number of the model's vec0 table, creating the table the first time the model is seen."""
    row = db.execute("SELECT num, dim FROM models WHERE model_id = ?", (model_id,)).fetchone()
    if row is not None:
        return int(row[0])
    db.execute("INSERT INTO models (model_id, dim, created_at) VALUES (?, ?, ?)", (model_id, dim, to_db(now)))
    num = int(db.last_insert_rowid())
    db.execute(f"CREATE VIRTUAL TABLE vec_{num} USING vec0 (embedding float[{dim}] distance_metric=cosine)")
    return num


class VectorIndex:
    """Vectors of one model, keyed by the memory's integer rowid. Callers hold the store's lock."""

    def __init__(self, num: int, dim: int) -> None:
        self.num = num
        self.table = f"vec_{num}"
        self.dim = dim
        self.cache = VectorCache(self.table, num, dim)

    def add(self, db: apsw.Connection, rowid: int, vector: np.ndarray) -> None:
        if vector.shape != (self.dim,):
            raise ValueError(f"vector has shape {vector.shape}; this index holds {self.dim} dimensions")
        clear_vector(db, self.table, self.dim, rowid)  # the old vector's bytes go too, not only its row
        db.execute(f"INSERT INTO {self.table} (rowid, embedding) VALUES (?, ?)", (rowid, _blob(vector)))
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
        db.execute("INSERT INTO vector_changes (model_num, memory_rowid, op) VALUES (?, ?, ?)",
                   (self.num, rowid, op))

    def count(self, db: apsw.Connection) -> int:
        return int(db.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0])

    def nearest(self, db: apsw.Connection, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k nearest rowids with their cosine similarity, best first."""
        self.cache.refresh(db)
        return self.cache.nearest(vector, k)

    def matrix(self, db: apsw.Connection, rowids: list[int]) -> tuple[list[int], np.ndarray]:
        """(rowids that have a vector, their vectors as rows), in the order asked."""
        self.cache.refresh(db)
        return self.cache.matrix(rowids)

    def vectors(self, db: apsw.Connection, rowids: list[int]) -> dict[int, np.ndarray]:
        """The vectors of those rowids that have one, by rowid."""
        found, rows = self.matrix(db, rowids)
        return dict(zip(found, rows, strict=True))

    def prune_log(self, db: apsw.Connection, keep: int = 100_000) -> None:
        """Trim the change log; a process that fell further behind simply reloads its cache."""
        db.execute("DELETE FROM vector_changes WHERE seq <= (SELECT max(seq) FROM vector_changes) - ?", (keep,))


# sqlite-vec releases before this one only cleared a deleted row's validity bit and left its bytes in
# the chunk (its issues 54 and 178); 0.1.9 was checked here to zero them itself (tests/test_purge_copies.py).
DELETE_CLEARS_FROM = (0, 1, 9)
_delete_clears: bool | None = None


def clear_vector(db: apsw.Connection, table: str, dim: int, rowid: int) -> int:
    """Delete a vector so that its bytes leave the file too; 1 if there was one. On a sqlite-vec that
    does not zero deleted vectors itself, the vector is overwritten with zeros first (measured: about
    1 ms more per delete, so not done where the delete already clears)."""
    if db.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (rowid,)).fetchone() is None:
        return 0
    if not _native_delete_clears(db):
        db.execute(f"UPDATE {table} SET embedding = ? WHERE rowid = ?", (bytes(4 * dim), rowid))
    db.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
    return 1


def _native_delete_clears(db: apsw.Connection) -> bool:
    global _delete_clears
    if _delete_clears is None:
        version = str(db.execute("SELECT vec_version()").fetchone()[0]).lstrip("v")
        numbers = tuple(int(part) for part in re.findall(r"\d+", version.split("-")[0])[:3])
        _delete_clears = "-" not in version and numbers >= DELETE_CLEARS_FROM  # a pre-release: play safe
    return _delete_clears


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()
