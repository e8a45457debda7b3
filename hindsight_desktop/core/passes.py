"""What every maintenance pass shares: the run's context, its report, and resumable cursors.

A pass is a generator: it does one bounded batch in one short write transaction, then yields, so
the run can stop at any batch boundary (and other processes get the write lock in between).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import apsw

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.policy import MaintenancePolicy
from hindsight_desktop.core.timeutil import to_db

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
        return int(get_meta(db, CURSOR_PREFIX + name, "0"))

    def set_cursor(self, db: apsw.Connection, name: str, value: int) -> None:
        set_meta(db, CURSOR_PREFIX + name, str(value))

    def clear_cursor(self, db: apsw.Connection, name: str) -> None:
        db.execute("DELETE FROM meta WHERE key = ?", (CURSOR_PREFIX + name,))


Pass = Callable[[RunContext], Iterator[None]]


def get_meta(db: apsw.Connection, key: str, default: str) -> str:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(db: apsw.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def scan(ctx: RunContext, name: str, select: str, args: tuple,
         handle: Callable[[apsw.Connection, list[tuple]], None]) -> Iterator[None]:
    """Walk rows in rowid order, one batch per transaction, keeping a cursor so a stopped run resumes.

    `select` must pick `m.rowid` first and take the cursor and the batch size as its last two
    parameters (`m.rowid > ? ... ORDER BY m.rowid LIMIT ?`).
    """
    store = ctx.parts.store
    while True:
        with store.write() as db:
            rows = db.execute(select, (*args, ctx.cursor(db, name), ctx.policy.batch)).fetchall()
            if rows:
                handle(db, rows)
                ctx.set_cursor(db, name, int(rows[-1][0]))
            if len(rows) < ctx.policy.batch:
                ctx.clear_cursor(db, name)
        yield
        if len(rows) < ctx.policy.batch:
            return
