"""Forgetting: soft by default (archived to cold storage, restorable); purge deletes for good."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import apsw

from hindsight_desktop.core import keyword
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.models import ForgetReceipt
from hindsight_desktop.core.rows import load_memory, log_event, visible_clause
from hindsight_desktop.core.timeutil import to_db

QUERY_SIMILARITY = 0.55


@dataclass
class ForgetRequest:
    client: str  # who asks (recorded in the event log; private memories of others stay out of reach)
    ids: list[str] | None = None
    older_than_days: float | None = None
    layer: str | None = None
    type: str | None = None
    below_importance: float | None = None
    written_by: str | None = None
    query: str | None = None
    purge: bool = False
    sees_all: bool = False  # the person at the desktop may act on every client's memories

    def has_condition(self) -> bool:
        return any(v is not None for v in (self.ids, self.older_than_days, self.layer, self.type,
                                           self.below_importance, self.written_by, self.query))


def select(parts: Parts, db: apsw.Connection, req: ForgetRequest, now: datetime) -> list[tuple[int, str]]:
    """The (rowid, id) of every memory matching all the conditions. Unknown ids are an error."""
    if not req.has_condition():
        raise InvalidInput("forget needs at least one condition (an id, an age, a type, an importance or a query)")
    viewer = None if req.sees_all else req.client
    clauses, args = ["1"], []
    where, vis = visible_clause(viewer)
    clauses.append(where)
    args.extend(vis)
    if req.ids is not None:
        if not req.ids:
            raise InvalidInput("ids is an empty list")
        rowids = [load_memory(db, mid, viewer)[0] for mid in req.ids]  # NotFound names the bad id
        clauses.append(f"m.rowid IN ({','.join('?' * len(rowids))})")
        args.extend(rowids)
    if req.older_than_days is not None:
        clauses.append("m.occurred_at < ?")
        args.append(to_db(now - timedelta(days=req.older_than_days)))
    if req.layer is not None:
        clauses.append("m.layer = ?")
        args.append(req.layer)
    if req.type is not None:
        clauses.append("m.type = ?")
        args.append(req.type)
    if req.below_importance is not None:
        clauses.append("m.importance < ?")
        args.append(req.below_importance)
    if req.written_by is not None:
        clauses.append("m.client = ?")
        args.append(req.written_by)
    if not req.purge:
        clauses.append("m.status != 'archived'")
    if req.ids is None:
        clauses.append("m.pinned = 0")  # a sweeping condition never takes what the person pinned
    rows = db.execute(f"SELECT m.rowid, m.id FROM memories m WHERE {' AND '.join(clauses)}", args).fetchall()
    if req.query is not None:
        matching = _matching_query(parts, db, req.query)
        rows = [r for r in rows if r[0] in matching]
    return [(int(r), str(i)) for r, i in rows]


def _matching_query(parts: Parts, db: apsw.Connection, text: str) -> set[int]:
    """Memories that contain every word of the query, or mean nearly the same thing."""
    found: set[int] = set()
    terms = keyword.query_terms(text)
    if terms:
        expr = " AND ".join('"' + t.replace('"', '""') + '"' for t in terms)
        found.update(r for (r,) in db.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (expr,)))
    vector = parts.embed([text])[0]
    found.update(r for r, sim in parts.vectors.nearest(db, vector, 200) if sim >= QUERY_SIMILARITY)
    return found


def archive(db: apsw.Connection, targets: list[tuple[int, str]], client: str, now: datetime) -> ForgetReceipt:
    for rowid, memory_id in targets:
        db.execute("UPDATE memories SET status = 'archived', updated_at = ? WHERE rowid = ?", (to_db(now), rowid))
        log_event(db, to_db(now), "forget", memory_id, client, {"mode": "archive"})
    return ForgetReceipt(forgotten=[mid for _, mid in targets], mode="archive")


def purge(parts: Parts, db: apsw.Connection, targets: list[tuple[int, str]], client: str,
          now: datetime) -> ForgetReceipt:
    """Delete from every table and index. Events keep only that a purge happened, never the text."""
    removed = {"memories": 0, "fts": 0, "vectors": 0, "entities": 0, "relations": 0, "events": 0}
    for rowid, memory_id in targets:
        removed["fts"] += keyword.delete(db, rowid)
        removed["vectors"] += parts.vectors.delete(db, rowid)
        removed["entities"] += _delete(db, "DELETE FROM entity_index WHERE memory_rowid = ?", (rowid,))
        removed["relations"] += _delete(
            db, "DELETE FROM relations WHERE source_id = ? OR target_id = ?", (memory_id, memory_id))
        removed["events"] += _delete(db, "DELETE FROM events WHERE memory_id = ?", (memory_id,))
        db.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?", (memory_id,))
        removed["memories"] += _delete(db, "DELETE FROM memories WHERE rowid = ?", (rowid,))
        log_event(db, to_db(now), "purge", memory_id, client, {})
    if targets:
        keyword.optimize(db)
    return ForgetReceipt(forgotten=[mid for _, mid in targets], mode="purge", removed=removed)


def _delete(db: apsw.Connection, sql: str, args: tuple) -> int:
    db.execute(sql, args)
    return db.changes()
