"""The search and use logs, for the health metric: how often a search finds something (hit rate) and how
many of the memories it returned a reply relied on (used share). When, who and how many; never the query
text or the ids: they could hold or point at what a purge removed."""

from __future__ import annotations

from collections.abc import Sequence

import apsw

from hindsight_desktop.core.store import values
from hindsight_desktop.core.store.visibility import visible_to


def log_search(db: apsw.Connection, at: str, client: str, hits: int, deep: bool, mode: str) -> int:
    """Append one search; its row id."""
    db.execute(
        "INSERT INTO searches (at, client, hits, deep, mode) VALUES (?, ?, ?, ?, ?)",
        (at, client, hits, int(deep), mode),
    )
    return int(db.last_insert_rowid())


def log_uses(db: apsw.Connection, at: str, client: str, used: int) -> None:
    """Append one report that a reply relied on `used` recalled memories."""
    db.execute("INSERT INTO uses (at, client, used) VALUES (?, ?, ?)", (at, client, used))


def visible_ids(db: apsw.Connection, ids: Sequence[str], viewer: str) -> list[str]:
    """Those of `ids` that name a memory `viewer` may see, in their first order, each once."""
    condition, args = visible_to(viewer)
    found: list[str] = []
    for mid in dict.fromkeys(ids):
        row = db.execute(f"SELECT 1 FROM memories m WHERE m.id = ? AND {condition}", (mid, *args)).fetchone()
        if row is not None:
            found.append(mid)
    return found


def add_accesses(db: apsw.Connection, ids: Sequence[str], extra: int) -> None:
    """Count `extra` more accesses for each memory (a use weighs more than a return)."""
    db.executemany("UPDATE memories SET access_count = access_count + ? WHERE id = ?", [(extra, mid) for mid in ids])


def totals(db: apsw.Connection) -> tuple[int, int]:
    """How many searches were logged, and how many of them found something."""
    return (
        values.number(db, "SELECT count(*) FROM searches"),
        values.number(db, "SELECT coalesce(sum(hits > 0), 0) FROM searches"),
    )


def use_totals(db: apsw.Connection) -> dict[str, tuple[int, int]]:
    """Per client: (memories its searches returned, memories it reported used)."""
    returned = dict(db.execute("SELECT client, sum(hits) FROM searches GROUP BY client"))
    used = dict(db.execute("SELECT client, sum(used) FROM uses GROUP BY client"))
    return {str(c): (int(returned.get(c) or 0), int(used.get(c) or 0)) for c in sorted({*returned, *used})}


def per_day(db: apsw.Connection, since: str) -> list[tuple[str, int, int]]:
    """(UTC day, searches, searches that found something) for every day since `since` with a search."""
    rows = db.execute(
        "SELECT substr(at, 1, 10), count(*), sum(hits > 0) FROM searches WHERE at >= ? GROUP BY 1 ORDER BY 1", (since,)
    )
    return [(str(day), int(n), int(found)) for day, n, found in rows]
