"""The search cache's codes of each vector, written beside the vector at write time.

The vector cache (vector_cache.py) searches sign bits (one bit a dimension) and rescores the best candidates
with int8 codes (one byte a dimension and a float32 scale a vector). Both are derived from the float32
vector, so they are written when the vector is. The sign bits live in blocks of `BLOCK` consecutive rowids,
so a fresh process reads every vector's bits as a few values; the int8 codes live in a row per vector, so
a search can read just its candidates' codes and a large store need not hold them all in memory
(vector_cache.HOLD_CODES_UP_TO). Both live in the memory file (encrypted with it), are derived (never
synced: each device writes them with its own vectors) and go with the vector: a purge zeroes a memory's
slot and deletes its row (the store runs with secure_delete).

Layout: `vector_bits` has one row per (model, block) with a validity bitmap (bit i of byte i // 8, lowest
first) and the block's sign bits, `words` 64-bit words per slot (a slot is the rowid's offset in its
block); `vector_row_codes` has one row per vector, keyed `key(model, rowid)`: the int8 codes followed by the
float32 scale. The key is one integer, so the table is a rowid table: its inner pages hold keys alone and
stay in the page cache, where a two-column key's table kept its 388-byte rows in them too (bench/NOTES.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import apsw
import numpy as np

from hindsight_desktop.core.store import values

BLOCK = 1024  # rowids per block
ROWID_SPAN = 1 << 40  # memory rowids a model's code keys can hold
_BATCH = 512  # code rows turned into arrays at a time (as Python objects until copied: few, for the peak)


def key(model_num: int, rowid: int) -> int:
    """The code row's key of a model's vector."""
    if not 0 <= rowid < ROWID_SPAN:
        raise ValueError(f"memory rowid {rowid} is outside what a vector's code key can hold (0 to {ROWID_SPAN - 1})")
    return model_num * ROWID_SPAN + rowid


def words_of(dim: int) -> int:
    return (dim + 63) // 64


def sign_bits(matrix: np.ndarray, words: int) -> np.ndarray:
    """Each row's sign bits (a dimension's bit is set when it is above zero) as `words` uint64 words."""
    packed = np.packbits(matrix > 0, axis=1)
    padded = np.zeros((matrix.shape[0], words * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)


def int8_codes(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, scale): each row scaled so its largest magnitude is 127 and rounded; row ≈ codes * scale."""
    peak = np.maximum(np.abs(matrix).max(axis=1), 1e-12)
    codes = np.rint(matrix * (127.0 / peak)[:, None]).astype(np.int8)
    return codes, (peak / 127.0).astype(np.float32)


def write(db: apsw.Connection, model_num: int, dim: int, rowid: int, vector: np.ndarray) -> None:
    """Store one vector's sign bits and codes in its block's slot (inside the caller's write transaction)."""
    matrix = np.ascontiguousarray(vector, dtype=np.float32).reshape(1, dim)
    codes, scale = int8_codes(matrix)
    words = words_of(dim)
    block_id = _block(db, model_num, rowid // BLOCK, dim, create=True)
    assert block_id is not None
    slot = rowid % BLOCK
    _put(db, "vector_bits", "bits", block_id, slot * words * 8, sign_bits(matrix, words).tobytes())
    db.execute(
        "INSERT OR REPLACE INTO vector_row_codes (id, codes) VALUES (?, ?)",
        (key(model_num, rowid), codes.tobytes() + scale.tobytes()),
    )
    _set_valid(db, block_id, slot, True)


def remove(db: apsw.Connection, model_num: int, dim: int, rowid: int) -> None:
    """Zero a vector's slot, mark it empty and delete its codes (they leave the file's live pages with it)."""
    db.execute("DELETE FROM vector_row_codes WHERE id = ?", (key(model_num, rowid),))
    block_id = _block(db, model_num, rowid // BLOCK, dim, create=False)
    if block_id is None:
        return
    words, slot = words_of(dim), rowid % BLOCK
    _put(db, "vector_bits", "bits", block_id, slot * words * 8, bytes(words * 8))
    _set_valid(db, block_id, slot, False)


def count(db: apsw.Connection, model_num: int) -> int:
    """How many vectors of the model have codes."""
    total = 0
    for (valid,) in db.execute("SELECT valid FROM vector_bits WHERE model_num = ?", (model_num,)):
        total += int(np.unpackbits(np.frombuffer(valid, dtype=np.uint8)).sum())
    return total


def rowid_bound(db: apsw.Connection, model_num: int) -> int:
    """One past the highest rowid the model's blocks can hold (0 with no block)."""
    top = values.number(db, "SELECT coalesce(max(block) + 1, 0) FROM vector_bits WHERE model_num = ?", (model_num,))
    return top * BLOCK


def bit_blocks(db: apsw.Connection, model_num: int, dim: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(rowids, sign bits) of the model's vectors, one block at a time, rowids ascending."""
    words = words_of(dim)
    ids = [int(i) for (i,) in db.execute("SELECT id FROM vector_bits WHERE model_num = ? ORDER BY block", (model_num,))]
    for block_id in ids:  # one block in memory at a time, each statement read to its end (see _Chunks.read)
        ((block, valid, bits),) = db.execute(
            "SELECT block, valid, bits FROM vector_bits WHERE id = ?", (block_id,)
        ).fetchall()
        assert isinstance(block, int) and isinstance(valid, bytes) and isinstance(bits, bytes)
        slots = np.flatnonzero(np.unpackbits(np.frombuffer(valid, dtype=np.uint8), bitorder="little"))
        signs = np.frombuffer(bits, dtype=np.uint64).reshape(BLOCK, words)
        if len(slots) < BLOCK:  # a full block is handed on as it was read, not copied once more
            signs = signs[slots]
        yield block * BLOCK + slots.astype(np.int64), signs


def codes_of(db: apsw.Connection, model_num: int, dim: int, rowids: np.ndarray) -> tuple[np.ndarray, ...]:
    """(rowids, codes, scales) of those of `rowids` (sorted ascending, no repeats) that have codes, in
    that order: one query, each rowid a seek of the codes' primary key."""
    rows = db.execute(
        "SELECT id, codes FROM vector_row_codes WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
        ("[" + ",".join(map(str, (rowids + key(model_num, 0)).tolist())) + "]",),
    ).fetchall()
    found, codes, scale = _unpack(rows, dim)
    return found - key(model_num, 0), codes, scale


def all_codes(
    db: apsw.Connection, model_num: int, dim: int, spare: int = 0, pause: Callable[[], None] | None = None
) -> tuple[np.ndarray, ...]:
    """(rowids, codes, scales) of every vector of the model, rowids ascending, in arrays with `spare`
    more rows (zeros) for the cache to grow into. Filled a batch at a time: one row tuple per vector held
    at once would double the peak memory of a large store's load. `pause` runs between batches."""
    low, high = key(model_num, 0), key(model_num + 1, 0)
    total = values.number(db, "SELECT count(*) FROM vector_row_codes WHERE id >= ? AND id < ?", (low, high))
    found = np.zeros(total + spare, dtype=np.int64)
    packed = np.zeros((total + spare, dim + 4), dtype=np.uint8)
    cursor = db.execute(
        "SELECT id - ?, codes FROM vector_row_codes WHERE id >= ? AND id < ? ORDER BY id", (low, low, high)
    )
    at = 0
    while at < total:
        batch = list(itertools.islice(cursor, min(_BATCH, total - at)))
        if not batch:
            break
        rowids, codes, scale = _unpack(batch, dim)
        found[at : at + len(batch)] = rowids
        packed[at : at + len(batch), :dim] = codes.view(np.uint8)
        packed[at : at + len(batch), dim:] = scale.view(np.uint8).reshape(-1, 4)
        at += len(batch)
        if pause is not None:
            pause()
    list(cursor)  # read to its end (see _Chunks.read)
    return (
        found[:at],
        packed[: at + spare, :dim].view(np.int8),
        np.ascontiguousarray(packed[: at + spare, dim:]).view(np.float32)[:, 0],
    )


def _unpack(rows: list[tuple[object, ...]], dim: int) -> tuple[np.ndarray, ...]:
    width = dim + 4
    found = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))  # type: ignore[call-overload]
    packed = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint8).reshape(len(rows), width)  # type: ignore[misc]
    return found, packed[:, :dim].view(np.int8), np.ascontiguousarray(packed[:, dim:]).view(np.float32)[:, 0]


def one(db: apsw.Connection, model_num: int, dim: int, rowid: int) -> tuple[np.ndarray, ...] | None:
    """(sign bits, codes, scale) of one vector, each with one row, or None when it has none."""
    block_id = _block(db, model_num, rowid // BLOCK, dim, create=False)
    if block_id is None:
        return None
    slot, words, width = rowid % BLOCK, words_of(dim), dim + 4
    with db.blob_open("main", "vector_bits", "valid", block_id, False) as blob:
        blob.seek(slot // 8)
        present = blob.read(1)[0] >> (slot % 8) & 1
    if not present:
        return None
    with db.blob_open("main", "vector_bits", "bits", block_id, False) as blob:
        blob.seek(slot * words * 8)
        bits = blob.read(words * 8)
    row = db.execute("SELECT codes FROM vector_row_codes WHERE id = ?", (key(model_num, rowid),)).fetchone()
    if row is None or not isinstance(row[0], bytes) or len(row[0]) != width:
        return None
    packed = row[0]
    return (
        np.frombuffer(bits, dtype=np.uint64)[None, :],
        np.frombuffer(packed, dtype=np.int8, count=dim)[None, :],
        np.frombuffer(packed, dtype=np.float32, count=1, offset=dim),
    )


def backfill(db: apsw.Connection, model_num: int, dim: int, rowids: np.ndarray, matrix: np.ndarray) -> None:
    """Write the codes of many vectors (one row of `matrix` per rowid), the sign bits block by block,
    keeping what the blocks already hold (a migration's fill, one stored chunk of vectors at a time)."""
    words = words_of(dim)
    codes, scale = int8_codes(matrix)
    packed = np.concatenate([codes.view(np.uint8), scale.view(np.uint8).reshape(-1, 4)], axis=1)
    db.executemany(
        "INSERT OR REPLACE INTO vector_row_codes (id, codes) VALUES (?, ?)",
        ((key(model_num, int(r)), packed[i].tobytes()) for i, r in enumerate(rowids.tolist())),
    )
    blocks = rowids // BLOCK
    for block in np.unique(blocks).tolist():
        mine = np.flatnonzero(blocks == block)
        block_id = _block(db, model_num, block, dim, create=True)
        assert block_id is not None
        row = db.execute("SELECT valid, bits FROM vector_bits WHERE id = ?", (block_id,)).fetchone()
        assert row is not None
        valid = np.unpackbits(np.frombuffer(row[0], dtype=np.uint8), bitorder="little")
        bits = np.frombuffer(row[1], dtype=np.uint64).reshape(BLOCK, words).copy()
        slots = rowids[mine] % BLOCK
        bits[slots] = sign_bits(matrix[mine], words)
        valid[slots] = 1
        db.execute(
            "UPDATE vector_bits SET valid = ?, bits = ? WHERE id = ?",
            (np.packbits(valid, bitorder="little").tobytes(), bits.tobytes(), block_id),
        )


def backfill_model(db: apsw.Connection, model_num: int, dim: int, table: str) -> int:
    """Write the codes of every vector in the vec0 `table` (a migration's fill); how many."""
    chunks = _stored_chunks(db, table, dim)
    if chunks is not None:
        batches: Iterator[tuple[np.ndarray, np.ndarray]] = chunks.read(db)
    else:
        batches = _row_batches(db, table, dim)
    total = 0
    for rowids, matrix in batches:
        backfill(db, model_num, dim, rowids, matrix)
        total += len(rowids)
    return total


def _row_batches(
    db: apsw.Connection, table: str, dim: int, size: int = 4096
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The vec0 table's vectors through the table itself, `size` at a time (sqlite-vec's storage unknown)."""
    rows = [(int(r), bytes(b)) for r, b in db.execute(f"SELECT rowid, embedding FROM {table}")]
    for start in range(0, len(rows), size):
        part = rows[start : start + size]
        matrix = np.frombuffer(b"".join(b for _, b in part), dtype=np.float32).reshape(len(part), dim)
        yield np.array([r for r, _ in part], dtype=np.int64), matrix


def drop_model(db: apsw.Connection, model_num: int) -> None:
    """Remove every block and code row of a model (its vectors are gone)."""
    db.execute("DELETE FROM vector_row_codes WHERE id >= ? AND id < ?", (key(model_num, 0), key(model_num + 1, 0)))
    db.execute("DELETE FROM vector_bits WHERE model_num = ?", (model_num,))


def _block(db: apsw.Connection, model_num: int, block: int, dim: int, *, create: bool) -> int | None:
    row = db.execute("SELECT id FROM vector_bits WHERE model_num = ? AND block = ?", (model_num, block)).fetchone()
    if row is not None:
        return int(row[0])
    if not create:
        return None
    db.execute(
        "INSERT INTO vector_bits (model_num, block, valid, bits) VALUES (?, ?, zeroblob(?), zeroblob(?))",
        (model_num, block, BLOCK // 8, BLOCK * words_of(dim) * 8),
    )
    return int(db.last_insert_rowid())


def _put(db: apsw.Connection, table: str, column: str, row: int, offset: int, data: bytes) -> None:
    with db.blob_open("main", table, column, row, True) as blob:
        blob.seek(offset)
        blob.write(data)


def _set_valid(db: apsw.Connection, block_id: int, slot: int, present: bool) -> None:
    with db.blob_open("main", "vector_bits", "valid", block_id, True) as blob:
        blob.seek(slot // 8)
        byte = blob.read(1)[0]
        bit = 1 << (slot % 8)
        blob.seek(slot // 8)
        blob.write(bytes([(byte | bit) if present else (byte & ~bit)]))


# ---- sqlite-vec's own storage, read straight for the migration's fill --------------------------------


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
            # Read to the end: a statement left open on sqlite-vec's tables makes a later DROP of the table fail.
            rows = db.execute(
                f'SELECT vectors FROM "{self.table}_vector_chunks00" WHERE rowid = ?', (chunk_id,)
            ).fetchall()
            vectors = rows[0][0] if len(rows) == 1 else None
            if not isinstance(vectors, bytes) or len(vectors) != size * self.dim * 4:
                raise ValueError(f"{self.table}: chunk {chunk_id} does not hold {size} vectors")
            yield ids, np.frombuffer(vectors, dtype=np.float32).reshape(size, self.dim)[valid]


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
