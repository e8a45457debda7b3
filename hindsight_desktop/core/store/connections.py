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

# SQLite3MC's AEGIS-256: every page encrypted and authenticated, and decrypted several times faster than
# with ChaCha20-Poly1305, which a search feels (it reads a few hundred scattered pages: bench/NOTES.md).
# The variant is named, not left to the library's default: the file does not record it.
CIPHER = "aegis"
AEGIS_ALGORITHM = "aegis-256"
# Files made before AEGIS: still opened (tried after CIPHER), and moved to it by convert.recipher.
LEGACY_CIPHERS = ("chacha20",)


def raw_key(key: bytes, salt: bytes | None = None) -> str:
    """SQLite3MC's raw-key form: the 256-bit key used as it is (no KDF: it is already random), and for a
    new file the 16-byte salt that becomes the file's first bytes (its id)."""
    return f"x'{key.hex()}{salt.hex() if salt else ''}'"


def key_pragma(key: bytes, salt: bytes | None = None) -> str:
    return f'PRAGMA key="{raw_key(key, salt)}"'


def select_cipher(db: apsw.Connection, cipher: str = CIPHER) -> None:
    """Have the connection's next key (or re-key) use `cipher`, with its variant pinned."""
    db.execute(f"PRAGMA cipher='{cipher}'").fetchall()
    if cipher == "aegis":
        db.execute(f"PRAGMA algorithm='{AEGIS_ALGORITHM}'").fetchall()


def cipher_of(db: apsw.Connection) -> str:
    """The cipher a connection opened with a key reads its file with (a plain one answers the library's
    default, which means nothing)."""
    row: Any = db.execute("PRAGMA cipher").fetchone()
    return str(row[0])


def open_connection(
    path: Path | str,
    key: bytes | None,
    *,
    flags: int | None = None,
    salt: bytes | None = None,
    vec: bool = True,
    cipher: str | None = None,
) -> apsw.Connection:
    """A connection to the memory file (`key` None: a plain file), with sqlite-vec loaded. A wrong key,
    or a key given for a plain file, is an EncryptionError here, before anything reads the file.

    A new file (`salt` given) is made with `cipher` (CIPHER unless named); an existing one is read with
    whichever of CIPHER and LEGACY_CIPHERS its key opens, `cipher` tried first."""
    if key is None:
        tries: tuple[str | None, ...] = (None,)
    elif salt is not None:
        tries = (cipher or CIPHER,)
    else:
        first = cipher or CIPHER
        tries = (first, *(c for c in (CIPHER, *LEGACY_CIPHERS) if c != first))
    for i, each in enumerate(tries):
        try:
            return _connect(path, key, each, flags, salt, vec)
        except apsw.NotADBError as exc:
            if i + 1 < len(tries):
                continue
            what = (
                "with this key: the key is wrong, or the file is another memory's"
                if key is not None
                else "without a key: it is encrypted"
            )
            raise EncryptionError(
                f"{path} cannot be read {what}. Restore its key with `hindsight-desktop key restore` and the "
                "recovery key"
            ) from exc
    raise AssertionError("unreachable: the last try returns or raises")


def _connect(
    path: Path | str, key: bytes | None, cipher: str | None, flags: int | None, salt: bytes | None, vec: bool
) -> apsw.Connection:
    db = apsw.Connection(str(path), flags=flags) if flags is not None else apsw.Connection(str(path))
    try:
        if key is not None and cipher is not None:
            select_cipher(db, cipher)
            db.execute(key_pragma(key, salt)).fetchall()
        db.execute("PRAGMA temp_store=MEMORY").fetchall()  # sorts and temp indexes never touch the disk
        db.execute("SELECT count(*) FROM sqlite_schema").fetchall()  # the first read checks the key
        if vec:
            db.enable_load_extension(True)
            db.load_extension(sqlite_vec.loadable_path())
            db.enable_load_extension(False)
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
