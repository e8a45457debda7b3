"""What a search pays to read scattered rows of an encrypted memory file, per cipher of SQLite3MC.

    python bench/cipher_reads.py [--rows 100000] [--read 190] [--samples 200] [--ciphers plain,chacha20,aegis]

A table of `--rows` rows about the size of a memory (a 400-character text and a few numbers) is written
in WAL mode under each cipher with one random key, through the product's own connection helpers. Then,
`--samples` times: another connection commits one small change (as the access log and every write do,
which empties a reader's page cache), and the reader reads `--read` random rows (a search's candidate
rows are about 190), with the product's reader cache size. The median milliseconds of those reads, per
cipher. `aegis:<variant>` names a variant (aegis-128l, aegis-256x2…); plain `aegis` is the product's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import apsw

from hindsight_desktop.core.store.connections import AEGIS_ALGORITHM, key_pragma, select_cipher
from hindsight_desktop.core.store.database import READER_CACHE_KIB


def _connect(path: Path, cipher: str, key: bytes) -> apsw.Connection:
    db = apsw.Connection(str(path))
    if cipher != "plain":
        name, _, variant = cipher.partition(":")
        select_cipher(db, name)
        if variant:
            db.execute(f"PRAGMA algorithm='{variant}'").fetchall()
        db.execute(key_pragma(key)).fetchall()
    return db


def _fill(path: Path, cipher: str, key: bytes, rows: int) -> None:
    db = _connect(path, cipher, key)
    db.execute("PRAGMA journal_mode=WAL").fetchall()
    db.execute("CREATE TABLE m (id INTEGER PRIMARY KEY, body TEXT, n INTEGER, x REAL)")
    with db:
        db.executemany("INSERT INTO m VALUES (?, ?, ?, ?)", ((i, os.urandom(200).hex(), i, 0.5) for i in range(rows)))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    db.close()


def measure(cipher: str, rows: int, read: int, samples: int, folder: Path) -> float:
    """The median milliseconds of reading `read` random rows right after another connection's commit."""
    key = os.urandom(32)
    path = folder / f"{cipher.replace(':', '_')}.sqlite3"
    _fill(path, cipher, key, rows)
    reader, writer = _connect(path, cipher, key), _connect(path, cipher, key)
    reader.execute(f"PRAGMA cache_size={-READER_CACHE_KIB}").fetchall()
    rng, times = random.Random(1), []
    for _ in range(samples):
        with writer:
            writer.execute("UPDATE m SET n = n + 1 WHERE id = ?", (rng.randrange(rows),))
        wanted = ",".join(str(i) for i in rng.sample(range(rows), read))
        started = time.perf_counter()
        reader.execute(f"SELECT id, n, x, substr(body, 1, 80) FROM m WHERE id IN ({wanted})").fetchall()
        times.append((time.perf_counter() - started) * 1000)
    reader.close()
    writer.close()
    path.unlink()
    return round(statistics.median(times), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--read", type=int, default=190)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--ciphers", default=f"plain,chacha20,aegis,aegis:aegis-128l,aegis:{AEGIS_ALGORITHM}x2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hindsight-cipher-") as folder:
        out = {c: measure(c, args.rows, args.read, args.samples, Path(folder)) for c in args.ciphers.split(",")}
    print(json.dumps({"rows": args.rows, "read": args.read, "median_ms": out}))


if __name__ == "__main__":
    main()
