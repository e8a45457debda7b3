"""Statements about a connection rather than a table: the pragmas an import and the doctor use, and
the sqlite-vec version.

Kept apart from database.py (the Store class and its migrations): these work on any connection,
including ones the Store never opened (the doctor's read-only one)."""

from __future__ import annotations

from typing import Any

import apsw


def defer_foreign_keys(db: apsw.Connection) -> None:
    """Until this transaction commits, a row may point at one written later in it (an import)."""
    db.execute("PRAGMA defer_foreign_keys = ON")


def vec_version(db: apsw.Connection) -> str:
    """The sqlite-vec version loaded into the connection."""
    row: Any = db.execute("SELECT vec_version()").fetchone()
    return str(row[0])


def schema_version(db: apsw.Connection) -> int:
    row: Any = db.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def integrity_problems(db: apsw.Connection) -> list[str]:
    """What `PRAGMA integrity_check` reports: ["ok"] for a sound file."""
    return [str(row[0]) for row in db.execute("PRAGMA integrity_check")]
