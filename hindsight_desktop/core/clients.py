"""The MCP clients' registry as the edges reach it: the table of names and token hashes in the memory
file, opened on the engine's connection or on its own (no embedding model needed), with the time of
each change stamped here. The tokens themselves never reach the core (mcp/auth.py keeps them).

>>> clients = ClientBook.open(data_dir)                              # doctest: +SKIP
>>> clients.add("cursor", "9f86d0…")                                  # doctest: +SKIP
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hindsight_desktop.config import DB_FILE
from hindsight_desktop.core.identities import SYSTEM, imported_source, is_person
from hindsight_desktop.core.store.clients import DEFAULT_POLICY, POLICIES, ClientRecord, ClientTable
from hindsight_desktop.core.store.database import Store, utcnow

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import MemoryEngine

__all__ = ["DEFAULT_POLICY", "POLICIES", "ClientBook", "ClientRecord"]


class ClientBook:
    """Registered clients: every read goes to SQLite, so a revoke made by another process (the CLI,
    the app) takes effect on the very next request."""

    def __init__(self, store: Store) -> None:
        self._table = ClientTable(store)
        self._store = store

    @classmethod
    def open(cls, data_dir: Path) -> ClientBook:
        """On its own connection to the memory file (closed by `close`)."""
        return cls(Store(Path(data_dir) / DB_FILE))

    @classmethod
    def of(cls, engine: MemoryEngine) -> ClientBook:
        """On the engine's connection: one file, one writer lock."""
        return cls(engine.store)

    def add(self, name: str, token_hash: str, *, replace: bool = False) -> ClientRecord:
        """Register a client (or, with `replace`, give an existing one a new token hash)."""
        return self._table.add(name, token_hash, utcnow(), replace=replace)

    def revoke(self, name: str) -> ClientRecord:
        return self._table.revoke(name, utcnow())

    def get(self, name: str) -> ClientRecord | None:
        return self._table.get(name)

    def all(self) -> list[ClientRecord]:
        return self._table.list()

    def active_hashes(self) -> list[tuple[str, str]]:
        """(name, token hash) of every client that may connect now."""
        return self._table.active_hashes()

    def set_policy(self, name: str, policy: str) -> str:
        """How `name`'s writes are taken from now on: auto (the gate decides), review (they wait in the
        inbox) or read-only (refused). Applies to the name over every transport, from its next write."""
        return self._table.set_policy(name, policy, utcnow())

    def policy(self, name: str) -> str:
        return self._table.policy(name)

    def policies(self) -> dict[str, str]:
        """Client names whose policy is not auto."""
        return self._table.policies()

    def writers(self) -> dict[str, datetime]:
        """The assistants the memory has seen (over any transport: token holders and stdio names alike),
        each with its last write, change or search; the person, the product and imports are left out."""
        return {
            name: at
            for name, at in sorted(self._table.last_activity().items())
            if not is_person(name) and name != SYSTEM and imported_source(name) is None
        }

    def close(self) -> None:
        """Close the connection, the engine's too when shared: the registry's owner closes it last."""
        self._store.close()
