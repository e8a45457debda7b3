"""The MCP clients allowed to connect over HTTP: a name and a token hash each, never the token.

The table comes from the store's schema migrations (version 3).

>>> table = ClientTable(store)                                      # doctest: +SKIP
>>> table.add("cursor", "9f86d0…", now)                              # doctest: +SKIP
>>> table.active_hashes()                                            # doctest: +SKIP
[('cursor', '9f86d0…')]
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime

from hindsight_desktop.core.errors import InvalidInput, NotFound
from hindsight_desktop.core.identities import client_name
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.timeutil import from_db, to_db


@dataclass
class ClientRecord:
    name: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class ClientTable:
    """Registered clients in the memory database. Every read goes to SQLite, so a revoke made by
    another process (the CLI, the app) takes effect on the very next request."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def add(self, name: str, token_hash: str, now: datetime, *, replace: bool = False) -> ClientRecord:
        """Register a client (or, with `replace`, give an existing one a new token hash)."""
        name = client_name(name)
        with self.store.write() as db:
            row = db.execute("SELECT revoked_at FROM mcp_clients WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] is None and not replace:
                raise InvalidInput(f"client {name!r} already exists; rotate its token or revoke it first")
            db.execute(
                "INSERT OR REPLACE INTO mcp_clients (name, token_hash, created_at, revoked_at) VALUES (?, ?, ?, NULL)",
                (name, token_hash, to_db(now)),
            )
        return ClientRecord(name, now)

    def revoke(self, name: str, now: datetime) -> ClientRecord:
        name = client_name(name)
        with self.store.write() as db:
            db.execute(
                "UPDATE mcp_clients SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (to_db(now), name)
            )
            if db.changes() == 0:
                raise NotFound(f"no active client named {name!r}")
            row = db.execute("SELECT created_at FROM mcp_clients WHERE name = ?", (name,)).fetchone()
        assert row is not None  # the update above found it
        return ClientRecord(name, from_db(row[0]), now)

    def get(self, name: str) -> ClientRecord | None:
        with self.store.read() as db:
            row = db.execute(
                "SELECT name, created_at, revoked_at FROM mcp_clients WHERE name = ?", (client_name(name),)
            ).fetchone()
        return None if row is None else ClientRecord(row[0], from_db(row[1]), from_db(row[2]))

    def list(self) -> builtins.list[ClientRecord]:
        with self.store.read() as db:
            rows = list(db.execute("SELECT name, created_at, revoked_at FROM mcp_clients ORDER BY name"))
        return [ClientRecord(n, from_db(c), from_db(r)) for n, c, r in rows]

    def active_hashes(self) -> builtins.list[tuple[str, str]]:
        """(name, token hash) of every client that may connect now."""
        with self.store.read() as db:
            return [(n, h) for n, h in db.execute("SELECT name, token_hash FROM mcp_clients WHERE revoked_at IS NULL")]
