"""What every maintenance pass shares: the run's context, its report, and resumable cursors.

A pass is a generator: it does one bounded batch in one short write transaction, then yields, so
the run can stop at any batch boundary (and other processes get the write lock in between).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

import apsw

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy
from hindsight_desktop.core.store import meta
from hindsight_desktop.core.timeutil import from_db, to_db

CURSOR_PREFIX = "reflect.cursor."


@dataclass
class RunContext:
    parts: Parts
    client: str
    now: datetime
    policy: MaintenancePolicy
    report: dict[str, Any] = field(default_factory=dict)
    switching: bool = False  # an embedding-model switch is in progress

    @property
    def now_db(self) -> str:
        return to_db(self.now)

    def count(self, key: str, n: int = 1) -> None:
        self.report[key] = self.report.get(key, 0) + n

    def note(self, key: str, item: dict[str, Any]) -> None:
        self.report.setdefault(key, []).append(item)

    def cursor(self, db: apsw.Connection, name: str) -> int:
        return int(meta.get(db, CURSOR_PREFIX + name, "0"))

    def set_cursor(self, db: apsw.Connection, name: str, value: int) -> None:
        meta.put(db, CURSOR_PREFIX + name, str(value))

    def clear_cursor(self, db: apsw.Connection, name: str) -> None:
        meta.remove(db, CURSOR_PREFIX + name)


Pass = Callable[[RunContext], Iterator[None]]


class _Keyed(Protocol):
    @property
    def rowid(self) -> int: ...


Row = TypeVar("Row", bound=_Keyed)


def scan(
    ctx: RunContext,
    name: str,
    fetch: Callable[[apsw.Connection, int, int], Sequence[Row]],
    handle: Callable[[apsw.Connection, Sequence[Row]], None],
) -> Iterator[None]:
    """Walk rows in rowid order, one batch per transaction, keeping a cursor so a stopped run resumes.

    `fetch(db, after, limit)` returns up to `limit` rows past rowid `after`, in rowid order.
    """
    store = ctx.parts.store
    while True:
        with store.write() as db:
            rows = fetch(db, ctx.cursor(db, name), ctx.policy.batch)
            if rows:
                handle(db, rows)
                ctx.set_cursor(db, name, int(rows[-1].rowid))
            if len(rows) < ctx.policy.batch:
                ctx.clear_cursor(db, name)
        yield
        if len(rows) < ctx.policy.batch:
            return


def stored_time(text: str) -> datetime:
    """A time column that is never NULL (created_at, occurred_at), as a datetime."""
    when = from_db(text)
    assert when is not None
    return when
