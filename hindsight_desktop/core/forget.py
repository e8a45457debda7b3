"""Forgetting: soft by default (archived to cold storage, restorable); purge deletes for good."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import apsw

from hindsight_desktop.core import keyword
from hindsight_desktop.core import purge as purging
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.models import ForgetReceipt
from hindsight_desktop.core.rows import load_memory, log_event, visible_clause
from hindsight_desktop.core.signals import dominant_language
from hindsight_desktop.core.timeutil import to_db

# An assistant's forget by condition archives at most this many memories per call (oldest first) and
# says how many it left: a prompt-injected assistant cannot empty the memory in one call, and the
# person can undo the whole batch.
BULK_ARCHIVE_CAP = 50


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
    purge_any: bool = False  # the person allows assistants to purge (by id) what others wrote

    def has_condition(self) -> bool:
        return any(v is not None for v in (self.ids, self.older_than_days, self.layer, self.type,
                                           self.below_importance, self.written_by, self.query))


def select(parts: Parts, db: apsw.Connection, req: ForgetRequest, now: datetime) -> list[tuple[int, str]]:
    """The (rowid, id) of every memory matching all the conditions. Unknown ids are an error."""
    if not req.has_condition():
        raise InvalidInput("forget needs at least one condition (an id, an age, a type, an importance or a query)")
    if req.purge and not req.sees_all:
        _check_assistant_purge(req)
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
    rows = db.execute(f"SELECT m.rowid, m.id, m.client, m.pinned FROM memories m WHERE {' AND '.join(clauses)} "
                      "ORDER BY m.occurred_at, m.rowid", args).fetchall()
    if req.query is not None:
        matching = _matching_query(parts, db, req.query)
        rows = [r for r in rows if r[0] in matching]
    if req.purge and not req.sees_all:
        for _, memory_id, writer, pinned in rows:
            _check_purge_target(req, memory_id, writer, bool(pinned))
    return [(int(r), str(i)) for r, i, _, _ in rows]


def within_cap(req: ForgetRequest, targets: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """What one call may archive: an assistant's sweeping condition takes the oldest BULK_ARCHIVE_CAP."""
    if req.sees_all or req.ids is not None:
        return targets
    return targets[:BULK_ARCHIVE_CAP]


def _check_assistant_purge(req: ForgetRequest) -> None:
    """An assistant deletes for good only what it names by id; a condition could sweep in anything."""
    if req.ids is None or any(v is not None for v in (req.older_than_days, req.layer, req.type,
                                                      req.below_importance, req.written_by, req.query)):
        raise InvalidInput("purge works only on explicit memory ids, with no other condition; forgetting by "
                           "condition archives (restorable): call again without purge")


def _check_purge_target(req: ForgetRequest, memory_id: str, writer: str, pinned: bool) -> None:
    if pinned:
        raise InvalidInput(f"memory {memory_id} is pinned by the person; an assistant cannot delete it for "
                           "good (archive it instead, or ask the person to delete it in the app)")
    if writer != req.client and not req.purge_any:
        raise InvalidInput(f"memory {memory_id} was written by {writer}, not by {req.client}; an assistant may "
                           "delete for good only what it wrote (archive it instead: the person can restore it)")


def _matching_query(parts: Parts, db: apsw.Connection, text: str) -> set[int]:
    """Memories that contain every word of the query, or say the same thing (a cosine at the duplicate
    bar): forgetting must never sweep in what is merely about something similar."""
    found: set[int] = set()
    terms = keyword.query_terms(text)
    if terms:
        expr = " AND ".join('"' + t.replace('"', '""') + '"' for t in terms)
        found.update(r for (r,) in db.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (expr,)))
    # Embedded as a statement, compared on the model's measured memory-to-memory scale with the bar the
    # write path uses for repeats: only a memory that says the same thing qualifies, in any model or script.
    vector = parts.embed([text], "passage")[0]
    bar, language = parts.settings.duplicate_similarity, dominant_language(text)
    found.update(r for r, cosine in parts.vectors.nearest(db, vector, 200)
                 if parts.calibration.closeness(cosine, language) >= bar)
    return found


def archive(db: apsw.Connection, targets: list[tuple[int, str]], client: str, now: datetime) -> ForgetReceipt:
    """Archive the targets as one batch: every event names it, so the whole forget can be undone at once."""
    batch = f"fb_{secrets.token_hex(6)}" if targets else None
    for rowid, memory_id in targets:
        db.execute("UPDATE memories SET status = 'archived', updated_at = ? WHERE rowid = ?", (to_db(now), rowid))
        log_event(db, to_db(now), "forget", memory_id, client, {"mode": "archive", "batch": batch})
    return ForgetReceipt(forgotten=[mid for _, mid in targets], mode="archive", batch=batch)


def batch_members(db: apsw.Connection, batch: str) -> list[tuple[int, str]]:
    """(rowid, id) of the memories a forget batch archived that are still archived."""
    rows = db.execute(
        "SELECT m.rowid, m.id FROM events e JOIN memories m ON m.id = e.memory_id WHERE e.kind = 'forget' "
        "AND json_extract(e.detail, '$.batch') = ? AND m.status = 'archived' ORDER BY m.rowid", (batch,))
    return [(int(r), str(i)) for r, i in rows]


def purge(parts: Parts, db: apsw.Connection, targets: list[tuple[int, str]], client: str,
          now: datetime) -> ForgetReceipt:
    """Delete the targets for good, with every copy derived from them (see purge.py)."""
    return purging.purge(parts, db, targets, client, now)
