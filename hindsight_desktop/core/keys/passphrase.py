"""Passphrase mode, for a box where no keyring works: the memory file's random key is kept beside the
file wrapped by a key derived from a passphrase the person chooses, and is unwrapped in memory at start.

`memory-key.passphrase.json` holds, per file id, the KDF's name and cost parameters, its salt, and the
file key encrypted with AES-256-GCM under the derived key (the file id as associated data, so an entry
cannot be moved to another file). The passphrase itself is never stored. A wrong passphrase fails GCM's
tag check and is named as such, before the memory file is touched.

The KDF is scrypt (memory-hard) from `cryptography`, which the AES-GCM of encrypted exports uses too:
one well-kept library (Apache-2.0/BSD) for both. New entries use N=2**17, r=8, p=1 (128 MiB, a fraction
of a second); the parameters are read back from each entry, so a later change of cost opens old entries.
`HINDSIGHT_TEST_KDF=fast` makes new entries with N=2**10 instead: for the test suite only, never for a
real memory (it makes the passphrase far cheaper to guess).

A process asks for the passphrase only where a person can answer: the app (a dialog), or a command on a
terminal (getpass, from the main thread). Every other process (a stdio `mcp` process, the background
server, a worker thread) gets PassphraseNeeded, which says to unlock Hindsight Desktop first.
"""

from __future__ import annotations

import getpass
import json
import os
import secrets
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hindsight_desktop.core.errors import EncryptionError, InvalidInput
from hindsight_desktop.core.keys.keystore import KeyStore, Saved
from hindsight_desktop.core.store.private_files import private_writer

FILE = "memory-key.passphrase.json"
TEST_KDF_ENV = "HINDSIGHT_TEST_KDF"
COST = {"n": 2**17, "r": 8, "p": 1}
TEST_COST = {"n": 2**10, "r": 8, "p": 1}
MIN_LENGTH = 8
KEY_BYTES = 32
_RESTORE = "`hindsight-desktop key restore` with the recovery key puts the key back without the passphrase"

_unlocked: dict[str, bytes] = {}  # file id -> key, for this process's life
_lock = threading.Lock()
_prompt_allowed = True


class PassphraseNeeded(EncryptionError):
    """The memory file's key is kept under a passphrase, and this process cannot ask for it."""


@dataclass(frozen=True)
class Entry:
    kdf: str
    n: int
    r: int
    p: int
    salt: bytes
    nonce: bytes
    wrapped: bytes

    def as_json(self) -> dict[str, Any]:
        return {
            "kdf": self.kdf,
            "n": self.n,
            "r": self.r,
            "p": self.p,
            "salt": self.salt.hex(),
            "nonce": self.nonce.hex(),
            "wrapped": self.wrapped.hex(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        return cls(
            str(data["kdf"]),
            int(data["n"]),
            int(data["r"]),
            int(data["p"]),
            bytes.fromhex(data["salt"]),
            bytes.fromhex(data["nonce"]),
            bytes.fromhex(data["wrapped"]),
        )


def key_file(db_path: Path) -> Path:
    return Path(db_path).with_name(FILE)


def _cost() -> dict[str, int]:
    return TEST_COST if os.environ.get(TEST_KDF_ENV, "").lower() == "fast" else COST


def _derive(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=KEY_BYTES, n=n, r=r, p=p).derive(passphrase.encode("utf-8"))


def checked(passphrase: str) -> str:
    """A new passphrase as accepted (InvalidInput when too short to be worth deriving from)."""
    passphrase = passphrase.rstrip("\r\n")
    if len(passphrase) < MIN_LENGTH:
        raise InvalidInput(f"a passphrase has at least {MIN_LENGTH} characters; a few words are easiest to remember")
    return passphrase


def wrap(file_id: str, key: bytes, passphrase: str) -> Entry:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    cost = _cost()
    salt, nonce = secrets.token_bytes(16), secrets.token_bytes(12)
    kek = _derive(passphrase, salt, **cost)
    return Entry(
        "scrypt", cost["n"], cost["r"], cost["p"], salt, nonce, AESGCM(kek).encrypt(nonce, key, file_id.encode())
    )


def unwrap(file_id: str, entry: Entry, passphrase: str) -> bytes:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if entry.kdf != "scrypt":
        raise EncryptionError(f"the passphrase entry uses {entry.kdf!r}, which this version does not know")
    kek = _derive(passphrase.rstrip("\r\n"), entry.salt, entry.n, entry.r, entry.p)
    try:
        return AESGCM(kek).decrypt(entry.nonce, entry.wrapped, file_id.encode())
    except InvalidTag:
        raise EncryptionError("that passphrase is wrong (it does not open this memory's key); try again") from None


def _read(db_path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(key_file(db_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def entry(db_path: Path, file_id: str) -> Entry | None:
    raw = _read(db_path).get(file_id)
    if raw is None:
        return None
    try:
        return Entry.from_json(raw)
    except (KeyError, ValueError, TypeError) as exc:
        raise EncryptionError(f"the passphrase entry in {key_file(db_path)} is damaged ({exc}); {_RESTORE}") from exc


def protects(db_path: Path, file_id: str) -> bool:
    return file_id in _read(db_path)


class PassphraseStore:
    """Keeps keys wrapped under one passphrase (the interface of KeyStore that conversions use)."""

    def __init__(self, db_path: Path, passphrase: str) -> None:
        self.db_path = Path(db_path)
        self.passphrase = checked(passphrase)

    def where(self) -> str:
        return f"passphrase ({key_file(self.db_path)})"

    def save(self, name: str, key: bytes) -> Saved:
        entries = _read(self.db_path)
        entries[name] = wrap(name, key, self.passphrase).as_json()
        _write(self.db_path, entries)
        remember(name, key)
        KeyStore(self.db_path).delete(name)  # kept under the passphrase only
        return Saved(self.where())

    def delete(self, name: str) -> None:
        forget(self.db_path, name)


def forget(db_path: Path, file_id: str) -> None:
    """Drop a file id's passphrase entry (its key is kept elsewhere now, or the file is gone)."""
    entries = _read(db_path)
    if entries.pop(file_id, None) is not None:
        if entries:
            _write(db_path, entries)
        else:
            key_file(db_path).unlink(missing_ok=True)
    with _lock:
        _unlocked.pop(file_id, None)


def _write(db_path: Path, entries: dict[str, dict[str, Any]]) -> None:
    with private_writer(key_file(db_path)) as handle:
        json.dump(entries, handle, indent=2)


def remember(file_id: str, key: bytes) -> None:
    with _lock:
        _unlocked[file_id] = key


def unlock(db_path: Path, file_id: str, passphrase: str) -> bytes:
    """The key under `passphrase`, kept for this process (EncryptionError for a wrong passphrase)."""
    found = entry(db_path, file_id)
    if found is None:
        raise EncryptionError(f"the memory file {db_path} is not protected by a passphrase: nothing to unlock")
    key = unwrap(file_id, found, passphrase)
    remember(file_id, key)
    return key


def never_prompt() -> None:
    """This process serves a protocol on its stdin (a stdio `mcp` process): it must never ask."""
    global _prompt_allowed
    _prompt_allowed = False


def can_prompt() -> bool:
    return (
        _prompt_allowed
        and threading.current_thread() is threading.main_thread()
        and sys.stdin is not None
        and sys.stdin.isatty()
        and sys.stderr is not None
        and sys.stderr.isatty()
    )


def unlocked_key(file_id: str) -> bytes | None:
    """The key if this process has unlocked it; never asks."""
    with _lock:
        return _unlocked.get(file_id)


def key_for(db_path: Path, file_id: str) -> bytes:
    """The key of a passphrase-protected file: unlocked already in this process, or asked for on the
    terminal (three tries), else PassphraseNeeded."""
    known = unlocked_key(file_id)
    if known is not None:
        return known
    if not can_prompt():
        raise PassphraseNeeded(
            f"the memory file {db_path} is locked with a passphrase: unlock Hindsight Desktop first (start the "
            "app and enter the passphrase, or run `hindsight-desktop serve` in a terminal); assistants then "
            "reach the memory through it, and a command run in a terminal asks for the passphrase itself. "
            f"Passphrase forgotten: {_RESTORE}"
        )
    for attempt in range(3):
        typed = getpass.getpass("Passphrase of the memory file: ", stream=sys.stderr)
        try:
            return unlock(db_path, file_id, typed)
        except EncryptionError:
            if attempt == 2:
                raise
            print("That passphrase is wrong; try again.", file=sys.stderr)
    raise AssertionError("unreachable")
