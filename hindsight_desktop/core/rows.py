"""Reading memories and events out of SQLite, and appending to the event log."""

from __future__ import annotations

import json
from typing import Any

import apsw

from hindsight_desktop.core.errors import NotFound
from hindsight_desktop.core.models import Entity, Event, Memory
from hindsight_desktop.core.timeutil import from_db

MEMORY_COLUMNS = (
    "rowid, id, content, summary, layer, type, importance, pinned, client, scope, session_id, status, "
    "superseded_by, created_at, occurred_at, updated_at, last_accessed_at, access_count, expires_at, "
    "entities, metadata"
)


def memory_from_row(row: tuple) -> Memory:
    (_rowid, mid, content, summary, layer, mtype, importance, pinned, client, scope, session_id, status,
     superseded_by, created_at, occurred_at, updated_at, last_accessed_at, access_count, expires_at,
     entities, metadata) = row
    return Memory(
        id=mid,
        content=content,
        summary=summary,
        layer=layer,
        type=mtype,
        importance=float(importance),
        pinned=bool(pinned),
        client=client,
        scope=scope,
        session_id=session_id,
        status=status,
        superseded_by=superseded_by,
        created_at=from_db(created_at),
        occurred_at=from_db(occurred_at),
        updated_at=from_db(updated_at),
        last_accessed_at=from_db(last_accessed_at),
        access_count=int(access_count),
        expires_at=from_db(expires_at),
        entities=[Entity(**e) for e in json.loads(entities)],
        metadata=json.loads(metadata),
    )


def visible_clause(client: str | None, alias: str = "m") -> tuple[str, tuple]:
    """SQL that hides other clients' private memories. `None` is the person at the desktop: sees all."""
    if client is None:
        return "1", ()
    return f"({alias}.scope = 'shared' OR {alias}.client = ?)", (client,)


def load_memories(db: apsw.Connection, rowids: list[int]) -> dict[int, Memory]:
    if not rowids:
        return {}
    marks = ",".join("?" * len(rowids))
    rows = db.execute(f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE rowid IN ({marks})", rowids)
    return {row[0]: memory_from_row(row) for row in rows}


def load_memory(db: apsw.Connection, memory_id: str, client: str | None = None) -> tuple[int, Memory]:
    """A memory by id, or NotFound (also when it is another client's private memory)."""
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise NotFound("a memory id must be a non-empty string")
    where, args = visible_clause(client)
    row = db.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ? AND {where}", (memory_id.strip(), *args)
    ).fetchone()
    if row is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    return row[0], memory_from_row(row)


def log_event(db: apsw.Connection, at: str, kind: str, memory_id: str | None, client: str,
              detail: dict[str, Any] | None = None) -> None:
    db.execute(
        "INSERT INTO events (at, kind, memory_id, client, detail) VALUES (?, ?, ?, ?, ?)",
        (at, kind, memory_id, client, json.dumps(detail or {}, ensure_ascii=False)),
    )


def edit_detail(changes: dict[str, Any], before: Memory) -> dict[str, Any]:
    """An edit's event detail: which fields changed; text fields by length only, so the log never keeps
    the old or new wording (a purge removes the row, and no copy may outlive it)."""
    detail: dict[str, Any] = {}
    for key, value in changes.items():
        if key == "entities":
            continue
        if key in ("content", "summary"):
            detail[key] = {"chars": len(value or ""), "previous_chars": len(getattr(before, key) or "")}
        else:
            detail[key] = value
    return detail


def event_from_row(row: tuple) -> Event:
    eid, at, kind, memory_id, client, detail = row
    return Event(id=eid, at=from_db(at), kind=kind, memory_id=memory_id, client=client, detail=json.loads(detail))
