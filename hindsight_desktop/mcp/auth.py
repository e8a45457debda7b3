"""Per-client bearer tokens: minted here, kept in the OS keyring, only their hash in the database.

Where no keyring backend exists (a headless box, a CI runner), tokens go to a fallback file instead:
`<data dir>/client-tokens.json`, created with permissions 0600 (readable by this user only). Every
command that writes there says so on stderr. Set `HINDSIGHT_TOKEN_STORE=file` to choose the file even
when a keyring exists (keyring's own `PYTHON_KEYRING_BACKEND` works too).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

from hindsight_desktop.core.clients import ClientBook, ClientRecord
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.keys.manage import KeystoreUnavailable, Saved, SecretStore
from hindsight_desktop.mcp.identity import http_client_name

TOKEN_PREFIX = "hsd_"
TOKEN_FILE = "client-tokens.json"
TOKEN_STORE_ENV = "HINDSIGHT_TOKEN_STORE"
TOKEN_FILE_WARNING = "the token is stored in {file}, readable only by you"


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


class TokenVault:
    """Keeps each client's token so `clients config` can print it again later (core/keys' SecretStore)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.file = self.data_dir / TOKEN_FILE
        # One keyring service per data dir: two memory stores never overwrite each other's tokens.
        self.service = f"hindsight-desktop:{self.data_dir.resolve()}"
        self._secrets = SecretStore(
            self.service, self.file, file_env=TOKEN_STORE_ENV, thing="token", file_warning=TOKEN_FILE_WARNING
        )

    def backend_name(self) -> str:
        return self._secrets.where()

    def save(self, name: str, token: str) -> Saved:
        return self._secrets.save(name, token)

    def load(self, name: str) -> str | None:
        """The client's token, or None (never stored, or a locked keyring and no copy in the file)."""
        try:
            return self._secrets.load(name)
        except KeystoreUnavailable:
            return None

    def delete(self, name: str) -> None:
        self._secrets.delete(name)


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
