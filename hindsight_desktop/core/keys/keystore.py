"""Where secrets are kept: the OS keyring, else a 0600 file (SecretStore); the memory keys (KeyStore).

Each memory key is stored under its file's id (keys/__init__.py), in the keyring service `SERVICE`. Where
no keyring backend works (a headless box) or `HINDSIGHT_KEY_STORE=file` says so, keys go to
`memory-keys.json` in the memory file's folder, readable only by this account. That file sits in the data
folder, so it protects only against other accounts: anyone with a copy of the folder has the key too.
Whoever writes a key there gets that warning back (the CLI prints it, `doctor` repeats it). The HTTP
clients' tokens (mcp/auth.py) are kept the same way, in a SecretStore of their own.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hindsight_desktop.core.store.private_files import private_dir, private_writer

SERVICE = "hindsight-desktop-memory-key"
KEY_STORE_ENV = "HINDSIGHT_KEY_STORE"
KEYRING_ENV = "PYTHON_KEYRING_BACKEND"  # keyring's own choice of backend
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


def keyring_backend(file_env: str = KEY_STORE_ENV, thing: str = "key") -> tuple[Any, str]:
    """(the usable OS keyring backend or None, and why none, in a few words). `file_env`=file chooses the
    file even where a keyring works."""
    if os.environ.get(file_env, "").lower() == "file":
        return None, f"{file_env}=file chooses the {thing} file"
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None, "no OS keyring backend is available"
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a bad PYTHON_KEYRING_BACKEND raises ValueError, ImportError, RuntimeError...
        chosen = os.environ.get(KEYRING_ENV)
        setting = f"{KEYRING_ENV}={chosen!r}" if chosen is not None else "the keyring configuration"
        return None, f"{setting} names no usable keyring ({type(exc).__name__}: {exc})"
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
        return None, "no OS keyring backend is available"
    return backend, ""


class SecretStore:
    """Named secrets (text) in the OS keyring under `service`, else in the 0600 JSON file `file`.

    `thing` names the secret in messages ("key", "token"); `file_warning` is what a save to the file says,
    with `{file}` for its path. The memory keys (KeyStore below) and the HTTP clients' tokens
    (mcp/auth.py) each keep their own service, file and switch (`file_env`)."""

    def __init__(self, service: str, file: Path, *, file_env: str, thing: str, file_warning: str) -> None:
        self.service = service
        self.file = Path(file)
        self.file_env = file_env
        self.thing = thing
        self.file_warning = file_warning

    def backend(self) -> tuple[Any, str]:
        """(the OS keyring backend, or None; why not, in one line, for the warning)."""
        return keyring_backend(self.file_env, self.thing)

    def where(self) -> str:
        backend, _ = self.backend()
        return f"OS keyring ({type(backend).__name__})" if backend is not None else f"file {self.file}"

    def save(self, name: str, secret: str) -> Saved:
        backend, reason = self.backend()
        if backend is not None:
            try:
                backend.set_password(self.service, name, secret)
                self._drop_from_file(name)
                return Saved("keyring")
            except Exception as exc:  # a locked or refusing keyring: the file, with the warning
                reason = f"the OS keyring refused the {self.thing} ({exc})"
        kept = self._read_file()
        kept[name] = secret
        self._write_file(kept)
        return Saved(str(self.file), f"{reason}; " + self.file_warning.format(file=self.file))

    def load(self, name: str) -> str | None:
        """The secret stored under `name`, or None; KeystoreUnavailable when the keyring failed and the file
        has no such secret either (so the caller can say "unlock the keyring", not "no key")."""
        backend, _ = self.backend()
        failure: Exception | None = None
        if backend is not None:
            try:
                stored = backend.get_password(self.service, name)
            except Exception as exc:  # a locked keyring: the file may still hold it
                stored, failure = None, exc
            if stored:
                return str(stored)
        stored = self._read_file().get(name)
        if stored:
            return stored
        if failure is not None:
            raise KeystoreUnavailable(f"{type(backend).__name__}: {failure}")
        return None

    def delete(self, name: str) -> None:
        backend, _ = self.backend()
        if backend is not None:
            with contextlib.suppress(Exception):  # absent from the keyring is fine
                backend.delete_password(self.service, name)
        self._drop_from_file(name)

    def _read_file(self) -> dict[str, str]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def _drop_from_file(self, name: str) -> None:
        kept = self._read_file()
        if kept.pop(name, None) is not None:
            self._write_file(kept)

    def _write_file(self, kept: dict[str, str]) -> None:
        private_dir(self.file.parent)
        with private_writer(self.file) as handle:
            json.dump(kept, handle, indent=2)


class KeyStore:
    """The keys of the memory files in one data folder, hex-encoded in a SecretStore."""

    def __init__(self, db_path: Path) -> None:
        # One file per folder: a backup copy of the folder opens too.
        self._secrets = SecretStore(
            SERVICE, Path(db_path).with_name(KEY_FILE), file_env=KEY_STORE_ENV, thing="key", file_warning=FILE_WARNING
        )
        self.file = self._secrets.file

    def where(self) -> str:
        return self._secrets.where()

    def save(self, name: str, key: bytes) -> Saved:
        return self._secrets.save(name, key.hex())

    def load(self, name: str) -> bytes | None:
        """The key stored under `name`, or None; KeystoreUnavailable when the keyring failed and the file
        has no such key either."""
        stored = self._secrets.load(name)
        return bytes.fromhex(stored) if stored else None

    def delete(self, name: str) -> None:
        self._secrets.delete(name)
