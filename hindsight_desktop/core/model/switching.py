"""How recall works while the embedding model is being switched, and how bulk work embeds.

While a switch runs, the engine works in the *direct sum* of the two spaces: a joint vector is
[new-model vector | old-model vector]. A query fills both blocks, each with its own model's
embedding; a stored memory fills exactly one block (the new one once re-embedded, else the old
one) and leaves the other zero. A dot product of the two is then exactly the cosine inside the
memory's own space: a new-model number is never multiplied by an old-model number. This lets
recall, the write pipeline and forgetting keep working unchanged during a switch. Which models
exist and which switch is under way is recorded by store/models.py.
"""

from __future__ import annotations

from collections.abc import Callable

import apsw
import numpy as np

from hindsight_desktop.core.model.embedder import EMBED_GROUP
from hindsight_desktop.core.store import models, vectors
from hindsight_desktop.core.store.vectors import VectorIndex

EXACT_OLD = 20_000  # memories left to re-embed below which the old space is scored exactly

Embed = Callable[..., np.ndarray]


def embed_in_groups(embed: Embed, texts: list[str], dim: int | None = None) -> np.ndarray:
    """Bulk work (re-embed, import, repair) embeds a few texts per call: llama.cpp attends over every
    token of a batch at once (masked per sequence), so the cost grows with the square of the batch.
    Measured on two cores, 4 short texts per call ran at ~95 texts/s, 64 per call at ~40."""
    if not texts:
        return np.zeros((0, dim or 0), np.float32)
    return np.vstack([embed(texts[i : i + EMBED_GROUP]) for i in range(0, len(texts), EMBED_GROUP)])


# ---- the joint space used during a switch -------------------------------------------------------


class JointEmbed:
    """Embeds each text with both models: [new | old]. A model this process cannot load gives zeros,
    which match nothing, so memories of that space are then found by keyword only."""

    def __init__(self, new: Embed | None, new_dim: int, old: Embed | None, old_dim: int) -> None:
        self.new, self.old = new, old
        self.new_dim, self.old_dim = new_dim, old_dim

    def discard(self, texts: list[str]) -> None:
        for cache in (self.new, self.old):
            forget = getattr(cache, "discard", None)
            if forget is not None:
                forget(texts)

    def __call__(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        n = len(texts)
        new = self.new(texts, kind) if self.new is not None else np.zeros((n, self.new_dim), np.float32)
        old = self.old(texts, kind) if self.old is not None else np.zeros((n, self.old_dim), np.float32)
        return np.hstack(
            [np.asarray(new, np.float32).reshape(n, self.new_dim), np.asarray(old, np.float32).reshape(n, self.old_dim)]
        )


class SwitchingIndex:
    """The vector index during a switch: the same surface as VectorIndex over joint vectors.

    A memory is scored in the new space when it has a new vector (and this process can embed
    queries with the new model), else in the old space; never in both, never across.
    """

    def __init__(self, new: VectorIndex, old: VectorIndex, *, has_new: bool, has_old: bool) -> None:
        self.new, self.old = new, old
        self.has_new, self.has_old = has_new, has_old
        self.dim = new.dim + old.dim
        self.num = new.num
        self.table = new.table

    def indexes(self) -> list[VectorIndex]:
        return [self.new, self.old]

    def _split(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if vector.shape != (self.dim,):
            raise ValueError(f"vector has shape {vector.shape}; the joint index holds {self.dim} dimensions")
        return vector[: self.new.dim], vector[self.new.dim :]

    def add(self, db: apsw.Connection, rowid: int, vector: np.ndarray) -> None:
        new, old = self._split(vector)
        # Old first: the re-embedder treats an old-space write that follows the new one as a change
        # it must redo, and here both were made from the same text.
        if old.any():
            self.old.add(db, rowid, old)
        if new.any():
            self.new.add(db, rowid, new)

    def delete(self, db: apsw.Connection, rowid: int) -> int:
        return self.new.delete(db, rowid) + self.old.delete(db, rowid)

    def count(self, db: apsw.Connection) -> int:
        """Memories with a vector in either space."""
        return vectors.count_either(db, self.new.table, self.old.table)

    def _in_new(self, db: apsw.Connection, rowids: list[int]) -> set[int]:
        return set(self.new.vectors(db, rowids)) if self.has_new else set()

    def nearest(
        self, db: apsw.Connection, vector: np.ndarray, k: int, hidden: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        qnew, qold = self._split(vector)
        hits: dict[int, float] = {}
        if self.has_new and qnew.any():
            hits.update(self.new.nearest(db, qnew, k, hidden))
        if self.has_old and qold.any():
            hits.update(self._old_only(db, qold, k, hidden))
        return sorted(hits.items(), key=lambda item: -item[1])[:k]

    def _old_only(
        self, db: apsw.Connection, query: np.ndarray, k: int, hidden: np.ndarray | None
    ) -> list[tuple[int, float]]:
        """The k best old-space hits among memories not yet re-embedded."""
        if not self.has_new:
            return self.old.nearest(db, query, k, hidden)  # this process scores everything in the old space
        cursor = models.switch_cursor(db)
        if cursor is None:
            return []  # the switch just finished; the next operation reloads the parts
        ahead = vectors.long_term_ahead(db, cursor, EXACT_OLD + 1)
        if len(ahead) <= EXACT_OLD:
            # Late in a switch few memories are left: score them exactly rather than search the whole
            # old index and throw most of its hits away.
            found = self.old.vectors(db, ahead)
            scored = [(r, float(v @ query)) for r, v in found.items()]
            return sorted(scored, key=lambda item: -item[1])[:k]
        want = k
        while True:  # early in a switch most old hits are still old-only: ask for more until k remain
            hits = self.old.nearest(db, query, want)
            moved = self._in_new(db, [r for r, _ in hits])
            kept = [(r, s) for r, s in hits if r not in moved]
            if len(kept) >= k or len(hits) < want:
                return kept[:k]
            want *= 4

    def vectors(self, db: apsw.Connection, rowids: list[int]) -> dict[int, np.ndarray]:
        """Joint vectors with only the memory's own block filled."""
        out: dict[int, np.ndarray] = {}
        new = self.new.vectors(db, rowids) if self.has_new else {}
        rest = [r for r in rowids if r not in new]
        old = self.old.vectors(db, rest) if self.has_old and rest else {}
        for rowid, v in new.items():
            out[rowid] = np.concatenate([v, np.zeros(self.old.dim, np.float32)])
        for rowid, v in old.items():
            out[rowid] = np.concatenate([np.zeros(self.new.dim, np.float32), v])
        return out

    def matrix(self, db: apsw.Connection, rowids: list[int]) -> tuple[list[int], np.ndarray]:
        """As VectorIndex.matrix, over joint vectors."""
        found = self.vectors(db, rowids)
        order = [r for r in rowids if r in found]
        rows = np.stack([found[r] for r in order]) if order else np.zeros((0, self.dim), dtype=np.float32)
        return order, rows

    def prune_log(self, db: apsw.Connection, keep: int = 100_000) -> None:
        return None  # the re-embedder replays the change log, so it is kept whole during a switch


def indexes(vectors: VectorIndex | SwitchingIndex) -> list[VectorIndex]:
    """The per-model indexes behind the engine's vector index."""
    return vectors.indexes() if isinstance(vectors, SwitchingIndex) else [vectors]


def forget_cached(vectors: VectorIndex | SwitchingIndex) -> None:
    """Make the in-process caches reload from SQLite: after a rolled-back transaction they may hold
    vectors that were never committed."""
    for index in indexes(vectors):
        index.cache.seq = -1
