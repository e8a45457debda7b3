"""An in-process copy of one model's search codes for fast nearest-neighbour search.

sqlite-vec's exact scan is the slowest part of a search in a large store (bench/NOTES.md). This cache
keeps sign bits (48 bytes a vector) for a coarse Hamming pass and rescores the few hundred best
candidates with int8 codes (388 bytes a vector with their scale): a fraction of the scan's time. Both are
written beside each vector at write time (vector_codes.py). The bits are always held; the codes are
held too up to `HOLD_CODES_UP_TO` vectors and otherwise read from the file for each search's candidates
only, so memory stays bounded at a million vectors. With a reader to use, a fresh process loads the bits
at once and the codes in a background thread: until they arrive, searches read their candidates' codes
from the file, with the same results. The vec0 table stays the source of truth; other processes'
changes are replayed from the `vector_changes` log before every search.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import apsw
import numpy as np

from hindsight_desktop.core.index import vector_codes
from hindsight_desktop.core.index.least_recent import LeastRecent
from hindsight_desktop.core.index.recent_codes import RecentCodes
from hindsight_desktop.core.store import values

EXACT_BELOW = 4096  # under this many vectors, score them all exactly
RESCORE_FACTOR = 8  # coarse candidates kept per requested neighbour
MIN_RESCORE = 400
HAMMING_CHUNK = 65_536  # rows a Hamming pass counts at a time (bench/NOTES.md)
# From this many rows the Hamming pass counts the second half on another thread: numpy lets go of the
# GIL while it counts, and once the question is embedded the other core is free (bench/NOTES.md).
SPLIT_FROM = 12 * HAMMING_CHUNK
HOLD_CODES_UP_TO = 250_000  # vectors whose int8 codes are kept in memory (97 MB); past it, read per search
# Codes read from the file kept for the next reads, the least recently read going first (a search asks for
# the same rows 3-4 times; the candidates of a few dozen questions fit): 388 bytes each, 25 MB in all.
RECENT_CODES = 65_536
SHOWN_KEPT = 4  # viewers' visibility masks kept (a million rows: about 1 MB each, more with many hidden)
LOAD_NOW_UP_TO = 20_000  # a store this small loads its codes at once, not in the background
_LOAD_TRIES = 4  # background loads that met a change before giving up (searches read from the file)

Reader = Callable[[], contextlib.AbstractContextManager[apsw.Connection]]
_LOAD_PAUSE_S = 0.001  # the background load's rest between batches (see _yield_to_searches)
log = logging.getLogger(__name__)
# One helper for every cache: a search waits for its half, so two searches at once share it in turn.
_SECOND_HALF = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hamming")


class VectorCache:
    def __init__(
        self, table: str, model_num: int, dim: int, reader: Reader | None = None, hold_up_to: int = HOLD_CODES_UP_TO
    ) -> None:
        self.table = table
        self.model_num = model_num
        self.dim = dim
        self.words = vector_codes.words_of(dim)
        self.hold_up_to = hold_up_to
        # A read transaction of its own for the background load of the codes (None: load them at once).
        self._reader = reader
        self.seq = -1  # last change applied; -1 = not loaded yet
        self._loads = 0  # bumped by every full load: a background load of an older one is dropped
        # Searches on several threads (each through its own read connection) share this cache: one at a
        # time changes or reads the arrays. Replaying a change twice is harmless (remove, then re-add).
        self._lock = threading.RLock()
        self._rowids = np.zeros(0, dtype=np.int64)
        # Sign bits stored word-major (one row per 64-bit word, one column per vector): the Hamming
        # pass then runs over contiguous memory, faster than row by row (bench/NOTES.md).
        self._bits = np.zeros((self.words, 0), dtype=np.uint64)
        # The int8 codes and scales, row for row, while `held`; else empty and read per search, the last
        # ones read kept by rowid (each entry goes when its row changes).
        self.held = False
        self._recent = RecentCodes(RECENT_CODES, dim)
        self._codes = np.zeros((0, dim), dtype=np.int8)
        self._scale = np.zeros(0, dtype=np.float32)
        self._row_of = np.zeros(0, dtype=np.int32)  # rowid -> its row here, -1 for none (smaller than a dict)
        self._size = 0
        self._layout = 0  # moves whenever a row is added, removed or moved
        # The visibility masks over the rows of the last few viewers, by their hidden rowids (the same array
        # while a viewer's keyword statistics stand, keyword_stats.view): the array, the layout the mask was
        # computed on, the mask and the hidden rows' positions. Several, so clients taking turns (and the
        # warm-up's search as each) do not each compute theirs anew.
        self._shown: LeastRecent[int, tuple[np.ndarray, int, np.ndarray, np.ndarray]] = LeastRecent(SHOWN_KEPT)
        # Scratch for the Hamming pass, one pair per half (fresh temporaries cost more than the counting).
        self._scratch = [
            (np.empty(HAMMING_CHUNK, dtype=np.uint64), np.empty(HAMMING_CHUNK, dtype=np.uint8)) for _ in range(2)
        ]

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
                    found = vector_codes.one(db, self.model_num, self.dim, rowid)
                    if found is not None:
                        self._extend(np.array([rowid], dtype=np.int64), *found)
            self.seq = latest
            if self.held and self._size > self.hold_up_to:
                self._let_go_of_codes()

    def _log_pruned_since(self, db: apsw.Connection) -> bool:
        row = db.execute("SELECT min(seq) FROM vector_changes").fetchone()
        return row is not None and row[0] is not None and row[0] > self.seq + 1

    def _load_all(self, db: apsw.Connection, latest: int) -> None:
        """Read every vector's sign bits, a block at a time, and their codes (now or in the background)."""
        self._size = 0  # first, so fresh arrays copy nothing over (no stale vector survives)
        self._row_of = np.zeros(0, dtype=np.int32)
        self._layout += 1
        self._loads += 1
        self._let_go_of_codes()
        self._recent.clear()
        self._allocate(vector_codes.count(db, self.model_num) + 1024)
        # rowid -> row sized once for the highest block: grown block by block it was reallocated (fresh
        # pages, each faulted in) a few dozen times on the way to 100k rows.
        self._row_of = np.full(vector_codes.rowid_bound(db, self.model_num), -1, dtype=np.int32)
        for rowids, bits in vector_codes.bit_blocks(db, self.model_num, self.dim):
            self._extend(rowids, bits)
        self.seq = latest
        if self._size > self.hold_up_to:
            return
        if self._reader is None or self._size <= LOAD_NOW_UP_TO:
            self._hold(*vector_codes.all_codes(db, self.model_num, self.dim, self._spare()))
        else:
            loads = self._loads
            threading.Thread(target=self._load_codes, args=(loads,), name="vector-codes", daemon=True).start()

    def _load_codes(self, loads: int) -> None:
        """The background load: every code in one read transaction, kept once the rows stand as that
        transaction saw them (a change it sees and the cache does not is applied first); tried again when
        the cache has gone past it."""
        assert self._reader is not None
        for _ in range(_LOAD_TRIES):
            try:
                with self._reader() as db:
                    seen = values.number(db, "SELECT coalesce(max(seq), 0) FROM vector_changes")
                    spare, pause = self._spare(), _yield_to_searches
                    rowids, codes, scale = vector_codes.all_codes(db, self.model_num, self.dim, spare, pause)
                    with self._lock:
                        if loads != self._loads or self.held:
                            return  # reloaded since (a newer load is on its way) or already held
                        if self.seq < seen:
                            self.refresh(db)
                        if loads == self._loads and self.seq == seen:
                            self._hold(rowids, codes, scale)
                            return
            except Exception:  # the store closed or failed: searches go on reading codes from the file
                log.debug("vector codes: background load stopped", exc_info=True)
                return
        log.info("vector codes: the store kept changing; searches read their candidates' codes from the file")

    def _hold(self, rowids: np.ndarray, codes: np.ndarray, scale: np.ndarray) -> None:
        """Keep the codes of every row, given as all codes of one snapshot (`rowids` ascending; `codes`
        and `scale` may have spare rows past them). A fresh load lays the rows out in rowid order with
        the same spare capacity, so the arrays are taken as they are; otherwise they are placed row by row."""
        n = self._size
        at = np.searchsorted(rowids, self._rowids[:n])
        found = at < len(rowids)
        found[found] = rowids[at[found]] == self._rowids[:n][found]
        if not found.all():  # a vector without codes: the file is not as written; stay reading per search
            log.warning("vector codes: %d vectors have no codes; not holding them", int((~found).sum()))
            return
        if len(rowids) == n and len(codes) == len(self._rowids) and np.array_equal(at, np.arange(n)):
            self._codes, self._scale = codes, scale
        else:
            self._codes = np.zeros((len(self._rowids), self.dim), dtype=np.int8)
            self._scale = np.zeros(len(self._rowids), dtype=np.float32)
            self._codes[:n], self._scale[:n] = codes[at], scale[at]
        self.held = True
        self._recent.clear()

    def _spare(self) -> int:
        """Rows of capacity past the vectors, so loaded codes fit the other arrays as they are."""
        with self._lock:
            return len(self._rowids) - self._size

    def _let_go_of_codes(self) -> None:
        self.held = False
        self._codes = np.zeros((0, self.dim), dtype=np.int8)
        self._scale = np.zeros(0, dtype=np.float32)

    def _allocate(self, capacity: int) -> None:
        """Resize the arrays to `capacity` rows, keeping what is there."""
        keep = self._size
        rowids = np.zeros(capacity, dtype=np.int64)
        bits = np.zeros((self.words, capacity), dtype=np.uint64)
        rowids[:keep], bits[:, :keep] = self._rowids[:keep], self._bits[:, :keep]
        self._rowids, self._bits = rowids, bits
        if self.held:
            codes = np.zeros((capacity, self.dim), dtype=np.int8)
            scale = np.zeros(capacity, dtype=np.float32)
            codes[:keep], scale[:keep] = self._codes[:keep], self._scale[:keep]
            self._codes, self._scale = codes, scale

    def _extend(
        self, rowids: np.ndarray, bits: np.ndarray, codes: np.ndarray | None = None, scale: np.ndarray | None = None
    ) -> None:
        """Append vectors (one row of `bits`, and of `codes` while they are held, per rowid)."""
        start, count = self._size, len(rowids)
        if count == 0:
            return
        if start + count > len(self._rowids):
            self._allocate(start + count + max(1024, (start + count) // 4))
        top = int(rowids.max()) + 1
        if top > len(self._row_of):
            grown = np.full(max(top, len(self._row_of) + len(self._row_of) // 4 + 1024), -1, dtype=np.int32)
            grown[: len(self._row_of)] = self._row_of
            self._row_of = grown
        self._rowids[start : start + count] = rowids
        self._bits[:, start : start + count] = bits.T
        if self.held:
            assert codes is not None and scale is not None
            self._codes[start : start + count] = codes
            self._scale[start : start + count] = scale
        self._row_of[rowids] = np.arange(start, start + count, dtype=np.int32)
        self._size += count
        self._layout += 1

    def _row(self, rowid: int) -> int:
        return int(self._row_of[rowid]) if 0 <= rowid < len(self._row_of) else -1

    def discard(self, rowid: int) -> None:
        """Forget one vector at once (a purge): its codes leave the arrays, not just the index."""
        with self._lock:
            self._remove(rowid)

    def _remove(self, rowid: int) -> None:
        """Swap the last row into the hole so the arrays stay dense, and zero the freed last row: a
        removed vector's codes must not linger in spare capacity."""
        self._recent.discard(rowid)
        i = self._row(rowid)
        if i < 0:
            return
        self._row_of[rowid] = -1
        last = self._size - 1
        if i != last:
            moved = int(self._rowids[last])
            self._rowids[i] = moved
            self._bits[:, i] = self._bits[:, last]
            if self.held:
                self._codes[i], self._scale[i] = self._codes[last], self._scale[last]
            self._row_of[moved] = i
        self._rowids[last], self._bits[:, last] = 0, 0
        if self.held:
            self._codes[last], self._scale[last] = 0, 0
        self._size = last
        self._layout += 1

    # ---- searching ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._size

    def __contains__(self, rowid: int) -> bool:
        with self._lock:
            return self._row(rowid) >= 0

    def nearest(
        self, db: apsw.Connection, query: np.ndarray, k: int, hidden: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """The k nearest rows, best first. Rows whose rowid is in `hidden` (sorted) are left out before
        anything is counted, so which rows reach exact scoring never depends on rows the asker cannot see.
        `db` (the caller's read transaction) gives the candidates' codes while they are not held."""
        with self._lock:
            n = self._size
            if n == 0 or k <= 0:
                return []
            kept = self._shown_rows(hidden)
            shown, unseen = (None, None) if kept is None else kept
            visible = n if unseen is None else n - len(unseen)
            if visible == 0:
                return []
            if visible <= EXACT_BELOW:
                candidates = np.arange(n) if shown is None else np.flatnonzero(shown)
            else:
                distance = self._hamming(vector_codes.sign_bits(query[None, :], self.words)[0], n)
                if unseen is not None:
                    distance[unseen] = self.words * 64 + 1  # past every real distance: never a candidate
                keep = min(visible, max(MIN_RESCORE, k * RESCORE_FACTOR))
                # The cut-off is the keep-th smallest distance: a partition (of a copy) costs less than a
                # histogram of the distances; rows tied at the cut-off all go on to rescoring.
                cutoff = int(np.partition(distance, keep - 1)[keep - 1])
                candidates = np.flatnonzero(distance <= cutoff)
            codes, scale = self._codes_at(db, candidates)
            sims = (codes.astype(np.float32) @ query.astype(np.float32)) * scale
            top = min(k, len(candidates))
            order = np.argpartition(-sims, top - 1)[:top]
            order = order[np.argsort(-sims[order])]
            return [(int(self._rowids[candidates[j]]), float(sims[j])) for j in order]

    def _shown_rows(self, hidden: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
        """Which rows the viewer may see, as a mask and as the positions of the others (None: all), reused
        while the hidden list and the rows stand."""
        if hidden is None or not len(hidden):
            return None
        kept = self._shown.get(id(hidden))
        if kept is not None and kept[0] is hidden and kept[1] == self._layout:
            return kept[2], kept[3]
        # Each hidden rowid's row, through the rowid -> row map: a look-up per hidden row, not a sort of all.
        inside = hidden[(hidden >= 0) & (hidden < len(self._row_of))]
        rows = self._row_of[inside]
        shown = np.ones(self._size, dtype=bool)
        shown[rows[rows >= 0]] = False
        unseen = np.flatnonzero(~shown)
        self._shown.put(id(hidden), (hidden, self._layout, shown, unseen))  # holds `hidden`: its id stays its own
        return shown, unseen

    def _hamming(self, qbits: np.ndarray, n: int) -> np.ndarray:
        """Bits that differ from the query, per row; in a large cache the second half on another thread."""
        distance = np.zeros(n, dtype=np.uint16)
        if n < SPLIT_FROM or (os.cpu_count() or 1) < 2:
            self._count(qbits, distance, 0, n, 0)
            return distance
        half = n // 2
        second = _SECOND_HALF.submit(self._count, qbits, distance, half, n, 1)
        self._count(qbits, distance, 0, half, 0)
        second.result()
        return distance

    def _count(self, qbits: np.ndarray, distance: np.ndarray, first: int, last: int, scratch: int) -> None:
        """The distances of rows first..last-1: `HAMMING_CHUNK` rows at a time, every word of a chunk while
        its distances are still in the CPU's cache, into the reused buffers `scratch` names."""
        xor, ones = self._scratch[scratch]
        for start in range(first, last, HAMMING_CHUNK):
            end = min(last, start + HAMMING_CHUNK)
            part, x, o = distance[start:end], xor[: end - start], ones[: end - start]
            for word in range(self.words):
                np.bitwise_xor(self._bits[word, start:end], qbits[word], out=x)
                np.add(part, np.bitwise_count(x, out=o), out=part)

    def _codes_at(self, db: apsw.Connection, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The int8 codes and scales of those rows (positions here), held or read from the file."""
        if self.held:
            return self._codes[rows], self._scale[rows]
        unique, back = np.unique(self._rowids[rows], return_inverse=True)
        codes = np.zeros((len(unique), self.dim), dtype=np.int8)
        scale = np.zeros(len(unique), dtype=np.float32)  # zeros: a similarity of 0 for a row `db` lacks
        kept, kept_codes, kept_scale = self._recent.find(unique.tolist())
        codes[kept], scale[kept] = kept_codes, kept_scale
        unread = unique[~kept]
        if len(unread):
            found, read, read_scale = vector_codes.codes_of(db, self.model_num, self.dim, unread)
            place = np.searchsorted(unique, found)
            codes[place], scale[place] = read, read_scale
            self._recent.keep(found.tolist(), read, read_scale)
        return codes[back], scale[back]

    def matrix(self, db: apsw.Connection, rowids: list[int]) -> tuple[list[int], np.ndarray]:
        """The vectors of those rowids that have one, as rows of one array (one decode, not one per row)."""
        with self._lock:
            asked = np.fromiter(rowids, dtype=np.int64, count=len(rowids))
            inside = (asked >= 0) & (asked < len(self._row_of))
            at = np.full(len(asked), -1, dtype=np.int64)
            at[inside] = self._row_of[asked[inside]]
            kept = at >= 0
            codes, scale = self._codes_at(db, at[kept])
            return asked[kept].tolist(), codes.astype(np.float32) * scale[:, None]


def _yield_to_searches() -> None:
    """A rest between the background load's batches. The load is Python work that holds the GIL; a search
    beside it gives the GIL up at every SQLite call and waited up to the 5 ms switch interval each time
    to get it back (searches during the load took 10 ms more at 100k). Resting, the load lets it in."""
    time.sleep(_LOAD_PAUSE_S)
