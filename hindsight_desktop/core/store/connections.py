"""Statements about a connection rather than a table: the pragmas an import and the doctor use, and
the sqlite-vec version.

Kept apart from database.py (the Store class and its migrations): these work on any connection,
including ones the Store never opened (the doctor's read-only one). `open_connection` is the one way
any part of the product opens the memory file: the key goes in before any other statement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

from hindsight_desktop.core.errors import EncryptionError

CIPHER = "chacha20"  # SQLite3MC's ChaCha20-Poly1305: every page encrypted and authenticated


def key_pragma(key: bytes, salt: bytes | None = None) -> str:
    """SQLite3MC's raw-key form: the 256-bit key used as it is (no KDF: it is already random), and for a
    new file the 16-byte salt that becomes the file's first bytes (its id)."""
    return f"PRAGMA key=\"x'{key.hex()}{salt.hex() if salt else ''}'\""


def open_connection(
    path: Path | str, key: bytes | None, *, flags: int | None = None, salt: bytes | None = None, vec: bool = True
) -> apsw.Connection:
    """A connection to the memory file (`key` None: a plain file), with sqlite-vec loaded. A wrong key,
    or a key given for a plain file, is an EncryptionError here, before anything reads the file."""
    db = apsw.Connection(str(path), flags=flags) if flags is not None else apsw.Connection(str(path))
    try:
        if key is not None:
            db.execute(f"PRAGMA cipher='{CIPHER}'").fetchall()
            db.execute(key_pragma(key, salt)).fetchall()
        db.execute("PRAGMA temp_store=MEMORY").fetchall()  # sorts and temp indexes never touch the disk
        db.execute("SELECT count(*) FROM sqlite_schema").fetchall()  # the first read checks the key
        if vec:
            db.enable_load_extension(True)
            db.load_extension(sqlite_vec.loadable_path())
            db.enable_load_extension(False)
    except apsw.NotADBError as exc:
        db.close()
        what = (
            "with this key: the key is wrong, or the file is another memory's"
            if key is not None
            else "without a key: it is encrypted"
        )
        raise EncryptionError(
            f"{path} cannot be read {what}. Restore its key with `hindsight-desktop key restore` and the recovery key"
        ) from exc
    except BaseException:
        db.close()
        raise
    return db


def defer_foreign_keys(db: apsw.Connection) -> None:
    """Until this transaction commits, a row may point at one written later in it (an import)."""
    db.execute("PRAGMA defer_foreign_keys = ON")


def vec_version(db: apsw.Connection) -> str:
    """The sqlite-vec version loaded into the connection."""
    row: Any = db.execute("SELECT vec_version()").fetchone()
    return str(row[0])


def schema_version(db: apsw.Connection) -> int:
    row: Any = db.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def integrity_problems(db: apsw.Connection) -> list[str]:
    """What `PRAGMA integrity_check` reports: ["ok"] for a sound file."""
    return [str(row[0]) for row in db.execute("PRAGMA integrity_check")]
