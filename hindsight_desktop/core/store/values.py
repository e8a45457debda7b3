"""Small pieces every store module uses: single values read out of query results, typed (apsw types
every column as any SQLite value), and long lists of parameters sent in chunks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, TypeVar

import apsw

_T = TypeVar("_T")
# SQLite caps the parameters of one statement (999 in older builds): long lists go this many at a time.
PARAMS_PER_STATEMENT = 500


def number(db: apsw.Connection, sql: str, args: Iterable[Any] = ()) -> int:
    """The one integer an aggregate query (count, max) returns; 0 when it returns NULL."""
    row = db.execute(sql, tuple(args)).fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def chunks(items: Sequence[_T]) -> Iterator[Sequence[_T]]:
    """`items` in slices short enough to be one statement's parameters."""
    for start in range(0, len(items), PARAMS_PER_STATEMENT):
        yield items[start : start + PARAMS_PER_STATEMENT]


def marks(items: Sized) -> str:
    """ "?,?,…", one placeholder per item (for `IN (…)`)."""
    return ",".join("?" * len(items))
