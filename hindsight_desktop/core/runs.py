"""The record of maintenance and re-embed runs: when, who asked, what changed, how long it took."""

from __future__ import annotations

import json
from typing import Any

import apsw

from hindsight_desktop.core.store import Store


def start_run(store: Store, kind: str, client: str, at: str) -> int:
    with store.write() as db:
        db.execute("INSERT INTO maintenance_runs (kind, client, started_at, status) VALUES (?, ?, ?, 'running')",
                   (kind, client, at))
        return int(db.last_insert_rowid())


def finish_run(db: apsw.Connection, run_id: int, at: str, status: str, seconds: float,
               report: dict[str, Any]) -> None:
    db.execute("UPDATE maintenance_runs SET finished_at = ?, status = ?, seconds = ?, report = ? WHERE id = ?",
               (at, status, seconds, json.dumps(report, ensure_ascii=False, default=str), run_id))
