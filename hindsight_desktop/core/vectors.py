"""The vector index: one sqlite-vec vec0 table per embedding model, so vector spaces never mix."""

from __future__ import annotations

import apsw
import numpy as np

from hindsight_desktop.core.timeutil import to_db


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
    """Vectors of one model, keyed by the memory's integer rowid."""

    def __init__(self, num: int, dim: int) -> None:
        self.table = f"vec_{num}"
        self.dim = dim

    def add(self, db: apsw.Connection, rowid: int, vector: np.ndarray) -> None:
        db.execute(f"DELETE FROM {self.table} WHERE rowid = ?", (rowid,))
        db.execute(f"INSERT INTO {self.table} (rowid, embedding) VALUES (?, ?)", (rowid, _blob(vector)))

    def delete(self, db: apsw.Connection, rowid: int) -> int:
        db.execute(f"DELETE FROM {self.table} WHERE rowid = ?", (rowid,))
        return db.changes()

    def count(self, db: apsw.Connection) -> int:
        return int(db.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0])

    def nearest(self, db: apsw.Connection, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k nearest rowids with their cosine similarity, best first."""
        if k <= 0:
            return []
        rows = db.execute(
            f"SELECT rowid, distance FROM {self.table} WHERE embedding MATCH ? AND k = ?", (_blob(vector), k)
        )
        return [(int(rowid), 1.0 - float(distance)) for rowid, distance in rows]

    def vectors(self, db: apsw.Connection, rowids: list[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for rowid in rowids:
            row = db.execute(f"SELECT embedding FROM {self.table} WHERE rowid = ?", (rowid,)).fetchone()
            if row is not None:
                out[rowid] = np.frombuffer(row[0], dtype=np.float32)
        return out


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()
