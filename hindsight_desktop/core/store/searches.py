"""The search log, for the hit-rate metric: when, who, how many hits. Never the query text: it could
hold what a purge removed."""

from __future__ import annotations

import apsw

from hindsight_desktop.core.store import values


def log_search(db: apsw.Connection, at: str, client: str, hits: int, deep: bool, mode: str) -> int:
    """Append one search; its row id."""
    db.execute(
        "INSERT INTO searches (at, client, hits, deep, mode) VALUES (?, ?, ?, ?, ?)",
        (at, client, hits, int(deep), mode),
    )
    return int(db.last_insert_rowid())


def totals(db: apsw.Connection) -> tuple[int, int]:
    """How many searches were logged, and how many of them found something."""
    return (
        values.number(db, "SELECT count(*) FROM searches"),
        values.number(db, "SELECT coalesce(sum(hits > 0), 0) FROM searches"),
    )


def per_day(db: apsw.Connection, since: str) -> list[tuple[str, int, int]]:
    """(UTC day, searches, searches that found something) for every day since `since` with a search."""
    rows = db.execute(
        "SELECT substr(at, 1, 10), count(*), sum(hits > 0) FROM searches WHERE at >= ? GROUP BY 1 ORDER BY 1", (since,)
    )
    return [(str(day), int(n), int(found)) for day, n, found in rows]
