"""Making an encrypted memory file, encrypting a plain one, changing a file's key or its cipher: each
builds the file beside the old one, verifies it, and only then swaps it in (files.py names the work files), so a
process killed at any point leaves the old file whole; the next start discards the half-made one.

The caller holds files.conversion_lock.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import apsw

from hindsight_desktop.core.errors import EncryptionError
from hindsight_desktop.core.keys import files
from hindsight_desktop.core.keys.keystore import Saved
from hindsight_desktop.core.store.connections import CIPHER, cipher_of, open_connection, raw_key, select_cipher
from hindsight_desktop.core.store.private_files import create_private

Progress = Callable[[int, int], None]  # (pages copied, pages in all); (0, 0) while the copy is verified
STEP_PAGES = 256  # pages per backup step, between progress reports


class Keeper(Protocol):
    """Where a new key is saved: the keyring (KeyStore) or a passphrase (passphrase.PassphraseStore)."""

    def save(self, name: str, key: bytes) -> Saved: ...

    def delete(self, name: str) -> None: ...


class InUse(Exception):
    """Another process has the file open: swapping it now would lose what that process writes."""


def new_key() -> bytes:
    return secrets.token_bytes(32)


def create(path: Path, store: Keeper) -> tuple[bytes, Saved]:
    """A new, empty encrypted file at `path` (absent or empty before), its key saved first."""
    key, salt = new_key(), secrets.token_bytes(files.ID_BYTES)
    work = files.building(path)
    create_private(work)
    db = open_connection(work, key, salt=salt, vec=False)
    db.execute("PRAGMA journal_mode=WAL").fetchall()  # writes the first page, so the id is on disk
    db.close()
    if files.file_id(work) != salt.hex():
        raise EncryptionError(f"the encrypted file {work} did not take its id; the cipher library misbehaves")
    saved = store.save(salt.hex(), key)  # before the file is in place: never a file without its key
    os.replace(work, path)
    return key, saved


def encrypt_plain(path: Path, store: Keeper, progress: Progress | None = None) -> tuple[bytes, Saved]:
    """Encrypt the plain file at `path`: a copy through SQLite's backup API, encrypted with PRAGMA rekey,
    verified against the original, swapped in; the old file is then overwritten and removed."""
    key = new_key()
    work = files.building(path)
    create_private(work)
    expected = _rekeyed_copy(
        open_connection(path, None, vec=True), open_connection(work, None, vec=True), raw_key(key), progress
    )
    _verify(work, key, expected)
    fid = files.file_id(work)
    _refuse_if_open(path)
    saved = store.save(fid, key)
    os.link(path, files.retired(path))  # the old file stays reachable until it is overwritten
    os.replace(work, path)
    for extra in ("-wal", "-shm"):  # the plain file's, now empty: the encrypted file makes its own
        Path(f"{path}{extra}").unlink(missing_ok=True)
    files.overwrite_and_remove(files.retired(path))
    return key, saved


def rekey(path: Path, old: bytes, store: Keeper, progress: Progress | None = None) -> tuple[bytes, Saved]:
    """Give the encrypted file at `path` a new key: a copy re-keyed (SQLite3MC gives it a new salt, so a
    new id), verified, its key saved under the new id before the swap; the old id's entry goes after it.
    Killed before the swap, the old file and key stand; after it, the new key is already saved."""
    key = new_key()
    old_id = files.file_id(path)
    work = files.building(path)
    create_private(work)
    src, copy = _copy_of(path, old, work)
    expected = _rekeyed_copy(src, copy, raw_key(key), progress)
    _verify(work, key, expected)
    _refuse_if_open(path)
    saved = store.save(files.file_id(work), key)
    os.replace(work, path)
    Path(f"{path}-shm").unlink(missing_ok=True)
    if files.file_id(path) != old_id:
        store.delete(old_id)
    return key, saved


def uses_legacy_cipher(path: Path, key: bytes) -> bool:
    """The encrypted file opens with its key under an older cipher than CIPHER (recipher moves it)."""
    db = open_connection(path, key, vec=False)
    try:
        return cipher_of(db) != CIPHER
    finally:
        db.close()


def recipher(path: Path, key: bytes, progress: Progress | None = None) -> None:
    """Move the encrypted file at `path` to CIPHER under the same key and id (its keyring entry, recovery
    key and passphrase stay valid): a copy re-encrypted, verified, swapped in, as rekey does."""
    fid = files.file_id(path)
    work = files.building(path)
    create_private(work)
    src, copy = _copy_of(path, key, work)
    # The same key and salt given to the re-key: SQLite3MC keeps the salt, so the file keeps its id.
    expected = _rekeyed_copy(src, copy, raw_key(key, bytes.fromhex(fid)), progress)
    _verify(work, key, expected)
    if files.file_id(work) != fid or uses_legacy_cipher(work, key):
        files.overwrite_and_remove(work)
        raise EncryptionError(f"the re-encrypted copy of {path} kept the old cipher or lost its id; {path} is kept")
    _refuse_if_open(path)
    os.replace(work, path)
    Path(f"{path}-shm").unlink(missing_ok=True)


def _copy_of(path: Path, key: bytes, work: Path) -> tuple[apsw.Connection, apsw.Connection]:
    """The encrypted file and a new file at `work` ready to take its pages: the same cipher, key and id,
    and the same page size (an encrypted copy must keep it for the backup to copy page by page)."""
    src = open_connection(path, key)
    copy = open_connection(work, key, salt=bytes.fromhex(files.file_id(path)), cipher=cipher_of(src))
    copy.execute(f"PRAGMA page_size={_scalar(src, 'PRAGMA page_size')}").fetchall()
    return src, copy


def _rekeyed_copy(
    src: apsw.Connection, copy: apsw.Connection, new_key: str, progress: Progress | None = None
) -> dict[str, object]:
    """Copy `src` into `copy` through the backup API and re-key the copy with `new_key` (SQLite3MC's raw
    form, without quotes) under CIPHER; both are closed after. Returns the source's summary, for the
    copy's verification."""
    try:
        try:
            with copy.backup("main", src, "main") as job:
                while not job.step(STEP_PAGES if progress else -1):
                    if progress:
                        progress(job.page_count - job.remaining, job.page_count)
            if progress:
                progress(0, 0)
            expected = _summary(src)
            # SQLite3MC re-keys outside WAL mode; no journal at all: a copy killed mid-way is discarded anyway,
            # and a rollback journal would hold the plain pages.
            copy.execute("PRAGMA journal_mode=OFF").fetchall()
            select_cipher(copy)  # a copy under an older cipher moves to CIPHER here
            copy.execute(f'PRAGMA rekey="{new_key}"').fetchall()
        finally:
            copy.close()
    finally:
        src.close()
    return expected


def _refuse_if_open(path: Path) -> None:
    # The last connection to close deletes the WAL: one still there means another process has the file.
    if Path(f"{path}-wal").exists():
        files.discard_leftovers(path)
        raise InUse(str(path))


def _summary(db: apsw.Connection) -> dict[str, object]:
    """Row counts per table, and for each full-text index the matches of one word its first row holds."""
    out: dict[str, object] = {}
    tables = db.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    for name, sql in list(tables):
        out[name] = _scalar(db, f'SELECT count(*) FROM "{name}"')
        if sql and "using fts5" in sql.lower():
            word = _a_word(db, name)
            if word:
                query = f'SELECT count(*) FROM "{name}" WHERE "{name}" MATCH ?'
                out[f"{name} MATCH {word}"] = _scalar(db, query, f'"{word}"')
    return out


def _scalar(db: apsw.Connection, sql: str, *args: object) -> object:
    row: Any = db.execute(sql, args).fetchone()
    return row[0]


def _a_word(db: apsw.Connection, table: str) -> str | None:
    row = db.execute(f'SELECT * FROM "{table}" LIMIT 1').fetchone()
    for value in row or ():
        if isinstance(value, str):
            words = [w for w in "".join(c if c.isalnum() else " " for c in value).split() if len(w) > 2]
            if words:
                return words[0]
    return None


def _verify(
    work: Path, key: bytes, expected: dict[str, object], summary: Callable[..., dict[str, object]] = _summary
) -> None:
    """The new file opens with its key, passes integrity_check and each FTS5 index's own check, and
    holds what the old one held; otherwise it is discarded and the old file is kept."""
    try:
        db = open_connection(work, key)
        try:
            problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise EncryptionError(f"the encrypted copy failed integrity_check: {problems[:3]}")
            for (name,) in list(
                db.execute("SELECT name FROM sqlite_schema WHERE type='table' AND lower(sql) LIKE '%using fts5%'")
            ):
                db.execute(f'INSERT INTO "{name}"("{name}") VALUES (\'integrity-check\')')
            got = summary(db)
        finally:
            db.close()
        if got != expected:
            changed = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
            raise EncryptionError(
                f"the encrypted copy differs from the original in {changed[:5]}; the original is kept"
            )
    except BaseException:
        files.overwrite_and_remove(work)
        raise
