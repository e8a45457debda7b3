"""Where memory keys are kept: the OS keyring, else a 0600 file beside the memory file.

Each key is stored under its file's id (keys/__init__.py), in the keyring service `SERVICE`. Where no
keyring backend works (a headless box) or `HINDSIGHT_KEY_STORE=file` says so, keys go to
`memory-keys.json` in the memory file's folder, readable only by this account. That file sits in the data folder, so it
protects only against other accounts: anyone with a copy of the folder has the key too. Whoever
writes a key there gets that warning back (the CLI prints it, `doctor` repeats it).
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hindsight_desktop.core.store.private_files import private_writer

SERVICE = "hindsight-desktop-memory-key"
KEY_STORE_ENV = "HINDSIGHT_KEY_STORE"
KEY_FILE = "memory-keys.json"
FILE_WARNING = (
    "no OS keyring is in use, so the memory key is kept in {file} (readable only by you): "
    "it protects the memory from other accounts, not from anyone with a copy of the data folder"
)


@dataclass(frozen=True)
class Saved:
    where: str  # "keyring" or the key file's path
    warning: str | None = None


class KeystoreUnavailable(Exception):
    """The keyring exists but refused to answer (locked, or its service is down)."""


def keyring_backend() -> tuple[Any, str]:
    """(the usable OS keyring backend or None, and why none, in a few words)."""
    if os.environ.get(KEY_STORE_ENV, "").lower() == "file":
        return None, f"{KEY_STORE_ENV}=file chooses the key file"
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception as exc:  # a bad PYTHON_KEYRING_BACKEND raises ValueError, ImportError, RuntimeError...
        return None, f"the keyring configuration names no usable keyring ({type(exc).__name__}: {exc})"
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
        return None, "no OS keyring backend is available"
    return backend, ""


class KeyStore:
    """The keys of the memory files in one data folder."""

    def __init__(self, db_path: Path) -> None:
        self.file = Path(db_path).with_name(KEY_FILE)  # one per folder: a backup copy beside it opens too

    def where(self) -> str:
        backend, _ = keyring_backend()
        return f"OS keyring ({type(backend).__name__})" if backend is not None else f"file {self.file}"

    def save(self, name: str, key: bytes) -> Saved:
        backend, reason = keyring_backend()
        if backend is not None:
            try:
                backend.set_password(SERVICE, name, key.hex())
                self._drop_from_file(name)
                return Saved("keyring")
            except Exception as exc:  # a locked or refusing keyring: the file, with the warning
                reason = f"the OS keyring refused the key ({exc})"
        keys = self._read_file()
        keys[name] = key.hex()
        self._write_file(keys)
        return Saved(str(self.file), f"{reason}; " + FILE_WARNING.format(file=self.file))

    def load(self, name: str) -> bytes | None:
        """The key stored under `name`, or None; KeystoreUnavailable when the keyring failed and the file
        has no such key either (so the caller says "unlock the keyring", not "no key")."""
        backend, _ = keyring_backend()
        failure: Exception | None = None
        if backend is not None:
            try:
                stored = backend.get_password(SERVICE, name)
            except Exception as exc:  # a locked keyring: the file may still hold it
                stored, failure = None, exc
            if stored:
                return bytes.fromhex(stored)
        stored = self._read_file().get(name)
        if stored:
            return bytes.fromhex(stored)
        if failure is not None:
            raise KeystoreUnavailable(f"{type(backend).__name__}: {failure}")
        return None

    def delete(self, name: str) -> None:
        backend, _ = keyring_backend()
        if backend is not None:
            with contextlib.suppress(Exception):  # absent from the keyring is fine
                backend.delete_password(SERVICE, name)
        self._drop_from_file(name)

    def _read_file(self) -> dict[str, str]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def _drop_from_file(self, name: str) -> None:
        keys = self._read_file()
        if keys.pop(name, None) is not None:
            self._write_file(keys)

    def _write_file(self, keys: dict[str, str]) -> None:
        with private_writer(self.file) as handle:
            json.dump(keys, handle, indent=2)
