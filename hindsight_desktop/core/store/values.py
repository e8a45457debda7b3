"""Reading single values out of query results, typed (apsw types every column as any SQLite value)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import apsw


def number(db: apsw.Connection, sql: str, args: Iterable[Any] = ()) -> int:
    """The one integer an aggregate query (count, max) returns; 0 when it returns NULL."""
    row = db.execute(sql, tuple(args)).fetchone()
    return 0 if row is None or row[0] is None else int(row[0])
