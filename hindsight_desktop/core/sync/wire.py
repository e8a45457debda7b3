"""The change format: a batch of changes is an SQLite session-extension changeset.

The changeset holds INSERTs into one logical, id-keyed table (`changes` below), built by a session on a
scratch in-memory database and read back with apsw.Changeset.iter, which checks the table, the columns
and the framing (a cut-off changeset does not parse). Rows are keyed by memory id, never by rowid,
which differs between devices. The merge (merge.py) is a per-group last-writer-wins on hybrid logical
clocks, so the changeset is applied by our own code rather than by the session's per-row conflict
handler. A snapshot is the same kind of changeset, one row per memory, tombstone and link.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import apsw

TABLE = "changes"
_COLUMNS = ("n", "kind", "memory_id", "clocks", "body", "vector", "model")
_SCHEMA = (
    f"CREATE TABLE {TABLE} (n INTEGER PRIMARY KEY, kind TEXT NOT NULL, memory_id TEXT NOT NULL, "
    "clocks TEXT NOT NULL, body TEXT NOT NULL, vector BLOB, model TEXT)"
)
KINDS = ("memory", "purge", "link")

Clock = tuple[int, str]  # (hybrid logical clock, device id): compared as a pair, so ties break by device


class BadChanges(Exception):
    """A changeset that does not hold what a change file must."""


@dataclass
class Change:
    """One change. memory: `body` holds the synced columns, `clocks` each group's (clock, device).
    purge: `clocks` {"purge": …}, `body` empty. link: `body` {target_id, type, present, strength,
    created_at}, `clocks` {"link": …}."""

    kind: str
    memory_id: str
    clocks: dict[str, Clock]
    body: dict[str, Any] = field(default_factory=dict)
    vector: bytes | None = None
    model: str | None = None


def encode(changes: list[Change]) -> bytes:
    db = apsw.Connection(":memory:")
    try:
        db.execute(_SCHEMA)
        session = apsw.Session(db, "main")
        session.attach(TABLE)
        rows = (
            (
                n,
                c.kind,
                c.memory_id,
                json.dumps({k: list(v) for k, v in c.clocks.items()}),
                json.dumps(c.body, ensure_ascii=False),
                c.vector,
                c.model,
            )
            for n, c in enumerate(changes, 1)
        )
        db.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        data = session.changeset()
        session.close()
        return data
    finally:
        db.close()


def decode(data: bytes) -> list[Change]:
    out = []
    try:
        for row in apsw.Changeset.iter(data):
            if row.name != TABLE or row.op != "INSERT" or row.column_count != len(_COLUMNS) or row.new is None:
                raise BadChanges(f"unexpected change to {row.name!r} ({row.op})")
            _n, kind, memory_id, clocks, body, vector, model = row.new
            if kind not in KINDS or not isinstance(memory_id, str) or not isinstance(clocks, str):
                raise BadChanges(f"unknown change kind {kind!r}")
            if not isinstance(body, str) or not isinstance(vector, bytes | None) or not isinstance(model, str | None):
                raise BadChanges("a change with columns of the wrong type")
            parsed = {str(k): (int(v[0]), str(v[1])) for k, v in json.loads(clocks).items()}
            out.append(Change(kind, memory_id, parsed, json.loads(body), vector, model))
    except (apsw.Error, ValueError, TypeError, KeyError, IndexError) as exc:
        raise BadChanges(f"not a valid change file ({type(exc).__name__})") from None
    return out
