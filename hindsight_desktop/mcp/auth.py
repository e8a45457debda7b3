"""Per-client bearer tokens: minted here, kept in the OS keyring, only their hash in the database.

Where no keyring backend exists (a headless box, a CI runner), tokens go to a fallback file instead:
`<data dir>/client-tokens.json`, created with permissions 0600 (readable by this user only). Every
command that writes there says so on stderr. Set `HINDSIGHT_TOKEN_STORE=file` to choose the file even
when a keyring exists (keyring's own `PYTHON_KEYRING_BACKEND` works too).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hindsight_desktop.core.clients import ClientBook, ClientRecord, private_folder
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.mcp.identity import http_client_name

TOKEN_PREFIX = "hsd_"
TOKEN_FILE = "client-tokens.json"
TOKEN_STORE_ENV = "HINDSIGHT_TOKEN_STORE"
KEYRING_ENV = "PYTHON_KEYRING_BACKEND"


def new_token() -> str:
    """256 random bits; the prefix lets secret scanners recognise a leaked token."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    # Tokens carry 256 bits of entropy, so a fast unsalted hash cannot be brute-forced.
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def match_token(presented: str, known: list[tuple[str, str]]) -> str | None:
    """The name whose hash matches `presented`, comparing in constant time against every entry."""
    digest = token_hash(presented)
    found = None
    for name, stored in known:
        # No early exit: the time taken does not depend on which entry (if any) matched.
        if hmac.compare_digest(digest, stored):
            found = name
    return found


@dataclass
class Saved:
    where: str  # "keyring" or the fallback file's path
    warning: str | None = None


class TokenVault:
    """Keeps each client's token so `clients config` can print it again later."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.file = self.data_dir / TOKEN_FILE
        # One keyring service per data dir: two memory stores never overwrite each other's tokens.
        self.service = f"hindsight-desktop:{self.data_dir.resolve()}"

    def _keyring(self) -> Any:  # keyring's backends share no public base type worth naming
        return self._backend()[0]

    def _backend(self) -> tuple[Any, str]:
        """(the OS keyring backend, or None; why not, in one line, for the warning)."""
        if os.environ.get(TOKEN_STORE_ENV, "").lower() == "file":
            return None, f"{TOKEN_STORE_ENV}=file chooses the token file"
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

    def backend_name(self) -> str:
        backend = self._keyring()
        return f"OS keyring ({type(backend).__name__})" if backend is not None else f"file {self.file}"

    def save(self, name: str, token: str) -> Saved:
        backend, reason = self._backend()
        if backend is not None:
            try:
                backend.set_password(self.service, name, token)
                self._drop_from_file(name)
                return Saved("keyring")
            except Exception as exc:  # any keyring failure falls back to the file
                reason = f"the OS keyring refused the token ({exc})"
        tokens = self._read_file()
        tokens[name] = token
        self._write_file(tokens)
        return Saved(str(self.file), f"{reason}; the token is stored in {self.file}, readable only by you")

    def load(self, name: str) -> str | None:
        backend = self._keyring()
        if backend is not None:
            try:
                token = backend.get_password(self.service, name)
            except Exception:  # a locked keyring: try the file
                token = None
            if token:
                return token
        return self._read_file().get(name)

    def delete(self, name: str) -> None:
        backend = self._keyring()
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
        tokens = self._read_file()
        if tokens.pop(name, None) is not None:
            self._write_file(tokens)

    def _write_file(self, tokens: dict[str, str]) -> None:
        private_folder(self.data_dir)
        fd, tmp = tempfile.mkstemp(dir=self.data_dir, prefix=".tokens-")  # mkstemp creates it 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(tokens, handle, indent=2)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class ClientRegistry:
    """Add, list, revoke and verify clients: the token hash in SQLite, the token in the vault."""

    def __init__(self, table: ClientBook, vault: TokenVault) -> None:
        self.table = table
        self.vault = vault

    @classmethod
    def open(cls, data_dir: Path) -> ClientRegistry:
        """A registry on its own connection (no embedding model needed)."""
        return cls(ClientBook.open(data_dir), TokenVault(data_dir))

    def add(self, name: str, *, rotate: bool = False) -> tuple[str, Saved]:
        """Mint a token for `name` (with `rotate`, replace its old one, which stops working at once).
        A token only ever serves HTTP, so the names the product writes under itself are refused."""
        name = http_client_name(name)
        token = new_token()
        self.table.add(name, token_hash(token), replace=rotate)
        return token, self.vault.save(name, token)

    def ensure_token(self, name: str) -> tuple[str, Saved | None]:
        """The client's token, creating the client (or a fresh token for a revoked one) when needed.
        The `Saved` record is returned only when a token was minted, so callers can say where it went."""
        record = self.table.get(name)
        if record is None or not record.active:
            return self.add(name, rotate=record is not None)
        token = self.token(name)
        if token is None:
            raise InvalidInput(
                f"the token of {name!r} is no longer in the keyring or the token file; give it a "
                f"new one (`hindsight-desktop clients add {name} --rotate`, or Settings → Clients)"
            )
        return token, None

    def revoke(self, name: str) -> ClientRecord:
        record = self.table.revoke(name)
        self.vault.delete(record.name)
        return record

    def list(self) -> list[ClientRecord]:
        return self.table.all()

    def token(self, name: str) -> str | None:
        """The stored token of an active client, or None (revoked, unknown, or lost from the vault)."""
        record = self.table.get(name)
        if record is None or not record.active:
            return None
        token = self.vault.load(record.name)
        return token if token and self.verify(token) == record.name else None

    def verify(self, token: str) -> str | None:
        """The client a presented token belongs to, or None. Reads the table on every call."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        return match_token(token, self.table.active_hashes())

    def close(self) -> None:
        self.table.close()
