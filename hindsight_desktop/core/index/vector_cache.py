"""An in-process copy of one model's vectors for fast nearest-neighbour search.

sqlite-vec's exact scan is the slowest part of a search in a large store (bench/NOTES.md). This cache
keeps sign bits (48 bytes a vector) for a coarse Hamming pass and int8 vectors with one scale each for
rescoring the few hundred best candidates: a fraction of the scan's time, in memory that grows with the
store. The
vec0 table stays the source of truth; other processes' changes are replayed from the `vector_changes`
log before every search.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import apsw
import numpy as np

from hindsight_desktop.core.store import values

EXACT_BELOW = 4096  # under this many vectors, score them all exactly
RESCORE_FACTOR = 8  # coarse candidates kept per requested neighbour
MIN_RESCORE = 400
LOAD_CHUNK = 4096  # vectors decoded at a time when the cache is first filled


class VectorCache:
    def __init__(self, table: str, model_num: int, dim: int) -> None:
        self.table = table
        self.model_num = model_num
        self.dim = dim
        self.words = (dim + 63) // 64
        self.seq = -1  # last change applied; -1 = not loaded yet
        # Searches on several threads (each through its own read connection) share this cache: one at a
        # time changes or reads the arrays. Replaying a change twice is harmless (remove, then re-add).
        self._lock = threading.RLock()
        self._rowids = np.zeros(0, dtype=np.int64)
        # Sign bits stored word-major (one row per 64-bit word, one column per vector): the Hamming
        # pass then runs over contiguous memory, faster than row by row (bench/NOTES.md).
        self._bits = np.zeros((self.words, 0), dtype=np.uint64)
        self._codes = np.zeros((0, dim), dtype=np.int8)
        self._scale = np.zeros(0, dtype=np.float32)
        self._where: dict[int, int] = {}
        self._size = 0
        self._layout = 0  # moves whenever a row is added, removed or moved
        # The last visibility mask over the rows: a viewer's hidden rowids (the same array while its keyword
        # statistics stand, keyword_stats.view) and the layout it was computed on.
        self._shown: tuple[np.ndarray, int, np.ndarray] | None = None
        self._xor = np.empty(0, dtype=np.uint64)  # scratch for the Hamming pass
        self._ones = np.empty(0, dtype=np.uint8)

    # ---- keeping in step with the database ---------------------------------------------------
    def refresh(self, db: apsw.Connection) -> None:
        with self._lock:
            latest = values.number(db, "SELECT coalesce(max(seq), 0) FROM vector_changes")
            if self.seq < 0 or self._log_pruned_since(db):
                self._load_all(db, latest)
                return
            if latest == self.seq:
                return
            changes = list(
                db.execute(
                    "SELECT seq, memory_rowid, op FROM vector_changes WHERE seq > ? AND model_num = ? ORDER BY seq",
                    (self.seq, self.model_num),
                )
            )
            for _, rowid, op in changes:
                self._remove(rowid)
                if op == "add":
                    blob = db.execute(f"SELECT embedding FROM {self.table} WHERE rowid = ?", (rowid,)).fetchone()
                    if blob is not None:
                        self._append(rowid, np.frombuffer(blob[0], dtype=np.float32))
            self.seq = latest

    def _log_pruned_since(self, db: apsw.Connection) -> bool:
        row = db.execute("SELECT min(seq) FROM vector_changes").fetchone()
        return row is not None and row[0] is not None and row[0] > self.seq + 1

    def _load_all(self, db: apsw.Connection, latest: int) -> None:
        """Read every vector, one stored chunk at a time, so a 100k index never sits in memory twice as
        float32. Straight from sqlite-vec's chunk tables where their layout is the one known here: going
        through the vec0 table hands back one row at a time, far slower for the same bytes."""
        self._where, self._size = {}, 0  # first, so fresh arrays copy nothing over (no stale vector survives)
        self._layout += 1
        chunks = _stored_chunks(db, self.table, self.dim)
        if chunks is None:
            self._allocate(values.number(db, f"SELECT count(*) FROM {self.table}") + 1024)
            self._load_rows(db)
        else:
            self._allocate(chunks.total + 1024)
            for rowids, matrix in chunks.read(db):
                self._extend_matrix(rowids, matrix)
        self.seq = latest

    def _load_rows(self, db: apsw.Connection) -> None:
        chunk: list[tuple[int, bytes]] = []
        for row in db.execute(f"SELECT rowid, embedding FROM {self.table}"):
            chunk.append(row)
            if len(chunk) == LOAD_CHUNK:
                self._extend(chunk)
                chunk = []
        self._extend(chunk)

    def _allocate(self, capacity: int) -> None:
        """Resize the arrays to `capacity` rows, keeping what is there."""
        keep = self._size
        rowids = np.zeros(capacity, dtype=np.int64)
        bits = np.zeros((self.words, capacity), dtype=np.uint64)
        codes = np.zeros((capacity, self.dim), dtype=np.int8)
        scale = np.zeros(capacity, dtype=np.float32)
        rowids[:keep], bits[:, :keep] = self._rowids[:keep], self._bits[:, :keep]
        codes[:keep], scale[:keep] = self._codes[:keep], self._scale[:keep]
        self._rowids, self._bits, self._codes, self._scale = rowids, bits, codes, scale

    def _extend(self, rows: list[tuple[int, bytes]]) -> None:
        if not rows:
            return
        matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype=np.float32).reshape(len(rows), self.dim)
        self._extend_matrix(np.array([r for r, _ in rows], dtype=np.int64), matrix)

    def _extend_matrix(self, rowids: np.ndarray, matrix: np.ndarray) -> None:
        """Append vectors (one row of `matrix` per rowid)."""
        start, count = self._size, len(rowids)
        if count == 0:
            return
        if start + count > len(self._rowids):
            self._allocate(start + count + max(1024, (start + count) // 4))
        self._rowids[start : start + count] = rowids
        self._bits[:, start : start + count] = _sign_bits(matrix, self.words).T
        peak = np.maximum(np.abs(matrix).max(axis=1), 1e-12)
        self._codes[start : start + count] = np.rint(matrix * (127.0 / peak)[:, None]).astype(np.int8)
        self._scale[start : start + count] = peak / 127.0
        self._where.update(zip(rowids.tolist(), range(start, start + count), strict=True))
        self._size += count
        self._layout += 1

    def _append(self, rowid: int, vector: np.ndarray) -> None:
        self._extend([(rowid, np.ascontiguousarray(vector, dtype=np.float32).tobytes())])

    def discard(self, rowid: int) -> None:
        """Forget one vector at once (a purge): its codes leave the arrays, not just the index."""
        with self._lock:
            self._remove(rowid)

    def _remove(self, rowid: int) -> None:
        """Swap the last row into the hole so the arrays stay dense, and zero the freed last row: a
        removed vector's codes must not linger in spare capacity."""
        i = self._where.pop(rowid, None)
        if i is None:
            return
        last = self._size - 1
        if i != last:
            moved = int(self._rowids[last])
            self._rowids[i] = moved
            self._bits[:, i] = self._bits[:, last]
            self._codes[i] = self._codes[last]
            self._scale[i] = self._scale[last]
            self._where[moved] = i
        self._rowids[last], self._bits[:, last], self._codes[last], self._scale[last] = 0, 0, 0, 0
        self._size = last
        self._layout += 1

    # ---- searching ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._size

    def nearest(self, query: np.ndarray, k: int, hidden: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The k nearest rows, best first. Rows whose rowid is in `hidden` (sorted) are left out before
        anything is counted, so which rows reach exact scoring never depends on rows the asker cannot see."""
        with self._lock:
            n = self._size
            if n == 0 or k <= 0:
                return []
            shown = self._shown_rows(hidden)
            visible = n if shown is None else int(np.count_nonzero(shown))
            if visible == 0:
                return []
            if visible <= EXACT_BELOW:
                candidates = np.arange(n) if shown is None else np.flatnonzero(shown)
            else:
                distance = self._hamming(_sign_bits(query[None, :], self.words)[0], n)
                if shown is not None:
                    distance[~shown] = self.words * 64 + 1  # past every real distance: never a candidate
                keep = min(visible, max(MIN_RESCORE, k * RESCORE_FACTOR))
                # Distances are small integers: the cut-off comes from a histogram, cheaper than a partial
                # sort of 100k values; rows tied at the cut-off all go on to rescoring.
                cutoff = int(np.searchsorted(np.cumsum(np.bincount(distance, minlength=self.words * 64 + 2)), keep))
                candidates = np.flatnonzero(distance <= cutoff)
            sims = (self._codes[candidates].astype(np.float32) @ query.astype(np.float32)) * self._scale[candidates]
            top = min(k, len(candidates))
            order = np.argpartition(-sims, top - 1)[:top]
            order = order[np.argsort(-sims[order])]
            return [(int(self._rowids[candidates[j]]), float(sims[j])) for j in order]

    def _shown_rows(self, hidden: np.ndarray | None) -> np.ndarray | None:
        """Which rows the viewer may see (None: all), reused while the hidden list and the rows stand."""
        if hidden is None or not len(hidden):
            return None
        kept = self._shown
        if kept is not None and kept[0] is hidden and kept[1] == self._layout:
            return kept[2]
        shown = ~np.isin(self._rowids[: self._size], hidden)
        self._shown = (hidden, self._layout, shown)
        return shown

    def _hamming(self, qbits: np.ndarray, n: int) -> np.ndarray:
        """Bits that differ from the query, per row: one word at a time into reused buffers (fresh
        temporaries of a few MB at 100k rows cost more than the counting itself)."""
        if self._xor.shape[0] < n:
            self._xor = np.empty(len(self._rowids), dtype=np.uint64)
            self._ones = np.empty(len(self._rowids), dtype=np.uint8)
        xor, ones = self._xor[:n], self._ones[:n]
        distance = np.zeros(n, dtype=np.uint16)
        for word in range(self.words):
            np.bitwise_xor(self._bits[word, :n], qbits[word], out=xor)
            distance += np.bitwise_count(xor, out=ones)
        return distance

    def matrix(self, rowids: list[int]) -> tuple[list[int], np.ndarray]:
        """The vectors of those rowids that have one, as rows of one array (one decode, not one per row)."""
        with self._lock:
            found = [(r, i) for r in rowids if (i := self._where.get(r)) is not None]
            index = np.fromiter((i for _, i in found), dtype=np.int64, count=len(found))
            rows = self._codes[index].astype(np.float32) * self._scale[index, None]
            return [r for r, _ in found], rows


def _sign_bits(matrix: np.ndarray, words: int) -> np.ndarray:
    packed = np.packbits(matrix > 0, axis=1)
    padded = np.zeros((matrix.shape[0], words * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)


class _Chunks:
    """sqlite-vec's own storage of a vec0 table: chunks of rows, each with a validity bitmap (bit i of
    byte i // 8, lowest first) and its rowids (int64), and in a second table its vectors (float32) back
    to back."""

    def __init__(self, table: str, dim: int, layout: list[tuple[int, int, np.ndarray, np.ndarray]]) -> None:
        self.table, self.dim, self.layout = table, dim, layout
        self.total = sum(len(valid) for _, _, valid, _ in layout)

    def read(self, db: apsw.Connection) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(rowids, vectors) of each chunk's valid rows, chunk by chunk."""
        for chunk_id, size, valid, ids in self.layout:
            row = db.execute(f'SELECT vectors FROM "{self.table}_vector_chunks00" WHERE rowid = ?', (chunk_id,))
            blob = row.fetchone()
            if blob is None or len(blob[0]) != size * self.dim * 4:
                raise ValueError(f"{self.table}: chunk {chunk_id} does not hold {size} vectors")
            yield ids, np.frombuffer(blob[0], dtype=np.float32).reshape(size, self.dim)[valid]


def _stored_chunks(db: apsw.Connection, table: str, dim: int) -> _Chunks | None:
    """The vec0 table's chunks, when they are laid out as `_Chunks` reads them and their valid rows are
    as many as the table's rows; else None (a sqlite-vec that stores them otherwise is read row by row)."""
    layout: list[tuple[int, int, np.ndarray, np.ndarray]] = []
    try:
        for chunk_id, size, validity, rowids in db.execute(
            f'SELECT chunk_id, size, validity, rowids FROM "{table}_chunks" ORDER BY chunk_id'
        ):
            if not isinstance(validity, bytes) or not isinstance(rowids, bytes):
                return None
            if len(validity) * 8 < size or len(rowids) != size * 8:
                return None
            bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size]
            valid = np.flatnonzero(bits)
            layout.append((int(chunk_id), int(size), valid, np.frombuffer(rowids, dtype=np.int64)[valid]))
        rows = values.number(db, f'SELECT count(*) FROM "{table}_rowids"')
        db.execute(f'SELECT rowid, vectors FROM "{table}_vector_chunks00" LIMIT 0').fetchall()
    except apsw.SQLError:
        return None
    chunks = _Chunks(table, dim, layout)
    return chunks if chunks.total == rows else None
