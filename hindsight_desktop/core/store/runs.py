"""The record of maintenance and re-embed runs: when, who asked, what changed, how long it took.

A stored report holds counts and memory ids only, never memory text: a purge must not leave a copy
in a run's history. Items of a report's lists keep only their id and number fields.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import apsw

from hindsight_desktop.core.store import values
from hindsight_desktop.core.store.database import Store

# The fields a report's list items may keep in storage: ids and scores (merges, supersessions,
# consolidations); anything else (a fact's wording, a consolidated text) stays out of the file.
ITEM_FIELDS = frozenset({"survivor", "absorbed", "similarity", "winner", "superseded", "semantic", "evidence"})
PURGED = "(purged)"


def start_run(store: Store, kind: str, client: str, at: str) -> int:
    with store.write() as db:
        db.execute(
            "INSERT INTO maintenance_runs (kind, client, started_at, status) VALUES (?, ?, ?, 'running')",
            (kind, client, at),
        )
        return int(db.last_insert_rowid())


def fail_unfinished(db: apsw.Connection, kind: str, at: str) -> int:
    """Mark runs of `kind` still recorded as running failed: their process ended (a kill, a crash) before
    it could say how the run ended. Only for a caller that knows no such run is in progress (the
    maintenance lease). Returns how many there were."""
    db.execute(
        "UPDATE maintenance_runs SET status = 'failed', finished_at = ?, report = ? "
        "WHERE kind = ? AND status = 'running'",
        (at, json.dumps({"error": "the process ended before the run finished"}), kind),
    )
    return db.changes()


def finish_run(db: apsw.Connection, run_id: int, at: str, status: str, seconds: float, report: dict[str, Any]) -> None:
    db.execute(
        "UPDATE maintenance_runs SET finished_at = ?, status = ?, seconds = ?, report = ? WHERE id = ?",
        (at, status, seconds, json.dumps(storable(report), ensure_ascii=False, default=str), run_id),
    )


def storable(report: dict[str, Any]) -> dict[str, Any]:
    """The report as it may be kept: top-level counts and the run's own record; list items by id."""
    out: dict[str, Any] = {}
    for key, value in report.items():
        if isinstance(value, list):
            # Dict items describe memories (kept by id); anything else is the program's own note ("deferred").
            out[key] = [
                {k: v for k, v in item.items() if k in ITEM_FIELDS} if isinstance(item, dict) else item
                for item in value
            ]
        else:
            out[key] = value
    return out


def scrub_purged(db: apsw.Connection, ids: set[str]) -> int:
    """Rewrite stored reports that name a purged memory (or, written by an older version, carry text):
    the ids become "(purged)" and text fields go. Returns how many reports changed."""
    found: dict[int, str] = dict(
        db.execute(
            "SELECT id, report FROM maintenance_runs WHERE report LIKE '%\"content\"%' OR report LIKE '%\"fact\"%'"
        )
    )
    listed = sorted(ids)
    for chunk in values.chunks(listed):
        named = " OR ".join(["instr(report, ?) > 0"] * len(chunk))
        found.update(db.execute(f"SELECT id, report FROM maintenance_runs WHERE {named}", chunk))
    changed = 0
    for run_id, text in found.items():
        report = json.loads(text)
        clean = replace_ids(storable(report), ids)
        if clean != report:
            db.execute(
                "UPDATE maintenance_runs SET report = ? WHERE id = ?", (json.dumps(clean, ensure_ascii=False), run_id)
            )
            changed += 1
    return changed


def replace_ids(value: Any, ids: set[str]) -> Any:
    """`value` with every string that is one of `ids` replaced by PURGED, at any depth."""
    if isinstance(value, str):
        return PURGED if value in ids else value
    if isinstance(value, list):
        return [replace_ids(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: replace_ids(v, ids) for k, v in value.items()}
    return value


class RunRow(NamedTuple):
    id: int
    kind: str
    client: str
    started_at: str
    finished_at: str | None
    status: str
    seconds: float | None
    report: str  # JSON text


def latest(db: apsw.Connection, limit: int) -> list[RunRow]:
    """The most recent runs, newest first."""
    rows = db.execute(
        "SELECT id, kind, client, started_at, finished_at, status, seconds, report "
        "FROM maintenance_runs ORDER BY id DESC LIMIT ?",
        (limit,),
    )
    return [RunRow(*row) for row in rows]
