"""The vector index: one sqlite-vec vec0 table per embedding model, so vector spaces never mix.

The vec0 table is the stored truth; searches go through an in-process cache (vector_cache.py) that
every change here is logged for, so other processes' writes are seen too.
"""

from __future__ import annotations

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
        db.execute(f"DELETE FROM {self.table} WHERE rowid = ?", (rowid,))
        db.execute(f"INSERT INTO {self.table} (rowid, embedding) VALUES (?, ?)", (rowid, _blob(vector)))
        self._log(db, rowid, "add")

    def delete(self, db: apsw.Connection, rowid: int) -> int:
        db.execute(f"DELETE FROM {self.table} WHERE rowid = ?", (rowid,))
        removed = db.changes()
        if removed:
            self._log(db, rowid, "delete")
        return removed

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


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()
