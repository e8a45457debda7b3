"""The MCP clients allowed to connect over HTTP: a name and a token hash each, never the token; and each
client name's write policy (auto, review, read-only), whatever its transport.

The tables come from the store's schema migrations (versions 3 and 8).

>>> table = ClientTable(store)                                      # doctest: +SKIP
>>> table.add("cursor", "9f86d0…", now)                              # doctest: +SKIP
>>> table.active_hashes()                                            # doctest: +SKIP
[('cursor', '9f86d0…')]
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime

import apsw

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


# How a client's writes are taken: kept by the gate, held for the person's review, or refused.
POLICIES = ("auto", "review", "read-only")
DEFAULT_POLICY = "auto"


def checked_policy(value: object) -> str:
    policy = value.strip().lower() if isinstance(value, str) else value
    if policy not in POLICIES:
        raise InvalidInput(f"policy must be one of {', '.join(POLICIES)}, got {value!r}")
    assert isinstance(policy, str)
    return policy


def policy_of(db: apsw.Connection, name: str) -> str:
    """The write policy of a client name (auto when none was set)."""
    row = db.execute("SELECT policy FROM client_policies WHERE name = ?", (name,)).fetchone()
    return DEFAULT_POLICY if row is None else str(row[0])


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

    def set_policy(self, name: str, policy: str, now: datetime) -> str:
        """Set how `name`'s writes are taken (any client name: HTTP, stdio or bridged)."""
        name, policy = client_name(name), checked_policy(policy)
        with self.store.write() as db:
            if policy == DEFAULT_POLICY:
                db.execute("DELETE FROM client_policies WHERE name = ?", (name,))
            else:
                db.execute(
                    "INSERT OR REPLACE INTO client_policies (name, policy, set_at) VALUES (?, ?, ?)",
                    (name, policy, to_db(now)),
                )
        return policy

    def policy(self, name: str) -> str:
        with self.store.read() as db:
            return policy_of(db, client_name(name))

    def policies(self) -> dict[str, str]:
        """Every client name with a policy other than auto."""
        with self.store.read() as db:
            return {str(n): str(p) for n, p in db.execute("SELECT name, policy FROM client_policies ORDER BY name")}

    def last_activity(self) -> dict[str, datetime]:
        """Every client name that has written, changed or searched anything, with when it last did."""
        # Events, the largest table, are read through their (client, at) index: the recursive part steps
        # from one client name to the next and each name's latest event is one lookup, so the cost grows
        # with the number of names, not of events. Memories have no (client, created_at) index: reading the
        # table in order beats visiting it row by row in the order of the client index.
        with self.store.read() as db:
            rows = db.execute(
                """
                WITH RECURSIVE names(client) AS (
                    SELECT MIN(client) FROM events
                    UNION ALL
                    SELECT (SELECT MIN(e.client) FROM events AS e WHERE e.client > names.client)
                    FROM names WHERE names.client IS NOT NULL
                )
                SELECT client, MAX(at) FROM (
                    SELECT client, (SELECT MAX(e.at) FROM events AS e WHERE e.client = names.client) AS at
                    FROM names WHERE client IS NOT NULL
                    UNION ALL SELECT client, MAX(created_at) FROM memories NOT INDEXED GROUP BY client
                    UNION ALL SELECT client, MAX(at) FROM searches GROUP BY client
                ) GROUP BY client
                """
            ).fetchall()
        return {str(name): from_db(str(at)) for name, at in rows if at is not None}
