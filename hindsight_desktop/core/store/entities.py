"""Entity kinds, and the exact-match index of the entities each memory names (entity_index).

The kinds are the values the extractor (text/extract.py) writes in `Entity.kind`; each use below is
a named subset of them, so a new kind is added in one place and each use decides about it here.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import apsw

from hindsight_desktop.core.records import Entity
from hindsight_desktop.core.store.values import marks
from hindsight_desktop.core.store.visibility import visible_to

KINDS = ("person", "place", "org", "date", "time", "number", "code", "email", "url", "phone")
# Kinds that make two memories "about the same thing": the write path links memories that share one.
LINKING = ("person", "place", "org", "code", "email", "phone", "url")
# Kinds a question may name exactly, matched against the index at recall (dates have their own path).
EXACT = KINDS
# Kinds whose normalised value is worth adding to the keyword index (an ISO date, a flight code, a number).
KEYWORD_VALUE = ("date", "code", "number")
# Kinds whose values must agree for two similar statements to be one fact: "my flight is at 7:10" and
# "my flight is at 9:40" are close in meaning but are not one fact stated twice. Dates may differ:
# a fact repeated on different days is exactly what consolidation looks for.
MUST_AGREE = ("number", "code", "email", "phone", "url", "time")
# Kinds that tie a statement to a day: a consolidated (semantic) memory drops them, being timeless.
DATED = ("date", "time")


def undated(entities: Iterable[Entity]) -> list[Entity]:
    return [e for e in entities if e.kind not in DATED]


def index(db: apsw.Connection, rowid: int, entities: list[Entity], occurred: datetime) -> None:
    """Exact-match index rows: the entities named in the text, plus the day the memory is about
    ("what happened on 13 October?" should find it even when the text names no date)."""
    rows = {(e.value, e.kind) for e in entities}
    rows.add((occurred.date().isoformat(), "date"))
    db.executemany(
        "INSERT OR IGNORE INTO entity_index (value, kind, memory_rowid) VALUES (?, ?, ?)",
        [(value, kind, rowid) for value, kind in rows],
    )


def unindex(db: apsw.Connection, rowid: int) -> int:
    """Remove the memory's index rows; returns how many."""
    db.execute("DELETE FROM entity_index WHERE memory_rowid = ?", (rowid,))
    return db.changes()


def copy_index(db: apsw.Connection, to_rowid: int, from_rowid: int) -> None:
    """The index rows of one memory also made for another (a merge survivor names what it absorbed)."""
    db.execute(
        "INSERT OR IGNORE INTO entity_index (value, kind, memory_rowid) "
        "SELECT value, kind, ? FROM entity_index WHERE memory_rowid = ?",
        (to_rowid, from_rowid),
    )


def naming(db: apsw.Connection, value: str, kind: str, viewer: str | None, limit: int) -> list[int]:
    """Rowids of up to `limit` memories `viewer` may see that name the entity."""
    where, vis = visible_to(viewer)
    return [
        int(r)
        for (r,) in db.execute(
            f"SELECT e.memory_rowid FROM entity_index e JOIN memories m ON m.rowid = e.memory_rowid "
            f"WHERE e.value = ? AND e.kind = ? AND {where} LIMIT ?",
            (value, kind, *vis, limit),
        )
    ]


_DATES = (
    "SELECT e.memory_rowid FROM entity_index e JOIN memories m ON m.rowid = e.memory_rowid "
    "WHERE e.kind = 'date' AND {where} AND "
)


def naming_dates_between(db: apsw.Connection, first: str, after: str, viewer: str | None) -> list[int]:
    """Rowids of the memories `viewer` may see that name a day in [first, after) (ISO dates)."""
    where, vis = visible_to(viewer)
    return [
        int(r) for (r,) in db.execute(_DATES.format(where=where) + "e.value >= ? AND e.value < ?", (*vis, first, after))
    ]


def naming_dates(db: apsw.Connection, values: list[str], viewer: str | None) -> list[int]:
    """Rowids of the memories `viewer` may see that name one of the date values (such as a bare year)."""
    where, vis = visible_to(viewer)
    return [
        int(r) for (r,) in db.execute(_DATES.format(where=where) + f"e.value IN ({marks(values)})", (*vis, *values))
    ]


def recent_sharing(
    db: apsw.Connection, value: str, kind: str, other_than: int, viewer: str | None, window: int
) -> list[tuple[str, str]]:
    """(id, occurred_at) of the `window` most recently stored active memories `viewer` may see that
    name the entity."""
    where, vis = visible_to(viewer)
    # Walks the (value, kind, rowid) key backwards, so it stops after the window, however common the entity.
    rows = db.execute(
        "SELECT m.id, m.occurred_at FROM entity_index e JOIN memories m ON m.rowid = e.memory_rowid "
        f"WHERE e.value = ? AND e.kind = ? AND e.memory_rowid != ? AND m.status = 'active' AND {where} "
        "ORDER BY e.memory_rowid DESC LIMIT ?",
        (value, kind, other_than, *vis, window),
    )
    return [(str(i), str(w)) for i, w in rows]
