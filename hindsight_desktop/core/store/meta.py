"""The meta table: small named values kept in the file (maintenance leases, resume points, pass cursors,
the pause flag)."""

from __future__ import annotations

import apsw

from hindsight_desktop.core.errors import PausedError


def get(db: apsw.Connection, key: str, default: str) -> str:
    """The value stored under `key`, or `default` when there is none."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def put(db: apsw.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def remove(db: apsw.Connection, key: str) -> None:
    db.execute("DELETE FROM meta WHERE key = ?", (key,))


PAUSED_KEY = "paused"


def is_paused(db: apsw.Connection) -> bool:
    """Whether remembering is paused, for every process that shares the file."""
    return get(db, PAUSED_KEY, "0") == "1"


def set_paused(db: apsw.Connection, paused: bool) -> None:
    put(db, PAUSED_KEY, "1" if paused else "0")


def refuse_if_paused(db: apsw.Connection, why: str) -> None:
    """The pause check of every path that adds memories (a write, an import): PausedError when paused."""
    if is_paused(db):
        raise PausedError(f"memory is paused: {why}")
