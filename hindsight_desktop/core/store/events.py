"""The event log: appending what happened, and reading it back, newest first."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import apsw

from hindsight_desktop.core.records import Event, Memory
from hindsight_desktop.core.store import values
from hindsight_desktop.core.timeutil import from_db

COLUMNS = "id, at, kind, memory_id, client, detail"


def log_event(
    db: apsw.Connection, at: str, kind: str, memory_id: str | None, client: str, detail: dict[str, Any] | None = None
) -> None:
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


def recent(db: apsw.Connection, memory_id: str | None, limit: int) -> list[Event]:
    """The newest `limit` events, of one memory or (memory_id None) of all."""
    if memory_id is None:
        rows = db.execute(f"SELECT {COLUMNS} FROM events ORDER BY id DESC LIMIT ?", (limit,))
    else:
        rows = db.execute(
            f"SELECT {COLUMNS} FROM events WHERE memory_id = ? ORDER BY id DESC LIMIT ?", (memory_id, limit)
        )
    return [event_from_row(r) for r in rows]


# ---- exports and imports, forget batches, purges --------------------------------------------------


class EventRow(NamedTuple):
    """An event as stored (times in the database form, detail as JSON text)."""

    id: int
    at: str
    kind: str
    memory_id: str | None
    client: str
    detail: str


class BatchMember(NamedTuple):
    rowid: int
    id: str
    was: str  # its status before the forget archived it


def count(db: apsw.Connection) -> int:
    row: Any = db.execute("SELECT count(*) FROM events").fetchone()  # always one row
    return int(row[0])


def every(db: apsw.Connection) -> Iterator[EventRow]:
    """The whole log, oldest first, read as it is consumed."""
    for row in db.execute(f"SELECT {COLUMNS} FROM events ORDER BY id"):
        yield EventRow(*row)


def restore(db: apsw.Connection, event: tuple[int | None, str, str, str | None, str, str], *, keep_id: bool) -> None:
    """An exported event (id, at, kind, memory_id, client, detail JSON) written back: with `keep_id`
    under its own id, otherwise under the next free one."""
    if keep_id and event[0] is not None:
        db.execute("INSERT INTO events (id, at, kind, memory_id, client, detail) VALUES (?, ?, ?, ?, ?, ?)", event)
    else:
        db.execute("INSERT INTO events (at, kind, memory_id, client, detail) VALUES (?, ?, ?, ?, ?)", event[1:])


def archived_in_batch(db: apsw.Connection, batch: str) -> list[BatchMember]:
    """The memories a forget batch archived that are still archived, by rowid."""
    rows = db.execute(
        "SELECT m.rowid, m.id, coalesce(json_extract(e.detail, '$.was'), 'active') FROM events e "
        "JOIN memories m ON m.id = e.memory_id WHERE e.kind = 'forget' AND json_extract(e.detail, '$.batch') = ? "
        "AND m.status = 'archived' ORDER BY m.rowid",
        (batch,),
    )
    return [BatchMember(int(r), str(i), str(w)) for r, i, w in rows]


def delete_for(db: apsw.Connection, memory_id: str) -> int:
    """Delete every event filed under the memory (a purge); returns how many."""
    db.execute("DELETE FROM events WHERE memory_id = ?", (memory_id,))
    return db.changes()


def naming(db: apsw.Connection, ids: set[str]) -> dict[int, str]:
    """Event id -> detail JSON of every event whose detail mentions one of `ids`."""
    found: dict[int, str] = {}
    listed = sorted(ids)
    for chunk in values.chunks(listed):
        named = " OR ".join(["instr(detail, ?) > 0"] * len(chunk))
        found.update(db.execute(f"SELECT id, detail FROM events WHERE {named}", chunk))
    return found


def set_detail(db: apsw.Connection, event_id: int, detail: dict[str, Any]) -> None:
    db.execute("UPDATE events SET detail = ? WHERE id = ?", (json.dumps(detail, ensure_ascii=False), event_id))
