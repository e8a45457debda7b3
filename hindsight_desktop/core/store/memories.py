"""The memories table: reading memories (whole, or a few named columns), the status changes every
part makes (supersede, reactivate), listing and counting, and the reads and writes of the write and
recall paths. What the maintenance passes, forget and purge read and change is in upkeep.py."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypeVar

import apsw

from hindsight_desktop.core.errors import NotFound
from hindsight_desktop.core.records import Entity, Memory, MemoryFilter
from hindsight_desktop.core.store import values
from hindsight_desktop.core.store.visibility import visible_to
from hindsight_desktop.core.timeutil import from_db, to_db

Fields = TypeVar("Fields", bound=tuple)

MEMORY_COLUMNS = (
    "rowid, id, content, summary, layer, type, importance, pinned, client, scope, session_id, status, "
    "superseded_by, created_at, occurred_at, updated_at, last_accessed_at, access_count, expires_at, "
    "entities, metadata"
)


def memory_from_row(row: tuple) -> Memory:
    (
        _rowid,
        mid,
        content,
        summary,
        layer,
        mtype,
        importance,
        pinned,
        client,
        scope,
        session_id,
        status,
        superseded_by,
        created_at,
        occurred_at,
        updated_at,
        last_accessed_at,
        access_count,
        expires_at,
        entities,
        metadata,
    ) = row
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


def load_memories(db: apsw.Connection, rowids: list[int]) -> dict[int, Memory]:
    if not rowids:
        return {}
    marks = values.marks(rowids)
    rows = db.execute(f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE rowid IN ({marks})", rowids)
    return {row[0]: memory_from_row(row) for row in rows}


def load_memory(db: apsw.Connection, memory_id: str, client: str | None = None) -> tuple[int, Memory]:
    """A memory by id, or NotFound (also when it is another client's private memory)."""
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise NotFound("a memory id must be a non-empty string")
    where, args = visible_to(client)
    row = db.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ? AND {where}", (memory_id.strip(), *args)
    ).fetchone()
    if row is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    return row[0], memory_from_row(row)


def _columns(record: type) -> str:
    return ", ".join(record._fields)  # type: ignore[attr-defined]  # a NamedTuple's field names


def field_row(db: apsw.Connection, record: type[Fields], rowid: int) -> Fields | None:
    """One memory's columns as `record`, a NamedTuple whose field names are the columns wanted; None
    when the rowid is gone. Rows read by name, not by position, so a column added to a query cannot
    shift what every later index means."""
    row = db.execute(f"SELECT {_columns(record)} FROM memories WHERE rowid = ?", (rowid,)).fetchone()
    return None if row is None else record(*row)


def select(
    db: apsw.Connection, record: type[Fields], where: str, args: Iterable[Any] = (), *, hint: str = "", order: str = ""
) -> list[Fields]:
    """Memories meeting `where` (SQL over the unaliased table), their columns as `record` (see
    `field_row`). `hint` goes after the table name: NOT INDEXED or INDEXED BY, where the planner's own
    choice was measured to be slow."""
    tail = f" ORDER BY {order}" if order else ""
    sql = f"SELECT {_columns(record)} FROM memories {hint} WHERE {where}{tail}"
    return [record(*row) for row in db.execute(sql, tuple(args))]


def stored_fact(found: tuple[str, str, str] | None) -> tuple[str | None, str | None]:
    """The fact_key and fact_value columns for the extractor's (subject, attribute, value): statements
    with the same key and a different value contradict each other."""
    if found is None:
        return None, None
    subject, attribute, value = found
    return f"{subject}|{attribute}", value


def supersede(db: apsw.Connection, old_id: str, new_id: str, at: str) -> None:
    """`old_id` is replaced by `new_id`: it stays, out of normal recall, pointing at what replaced it."""
    db.execute(
        "UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE id = ?",
        (new_id, at, old_id),
    )


def reactivate(db: apsw.Connection, memory_id: str, at: str) -> None:
    """Back into normal recall: active, replaced by nothing."""
    db.execute(
        "UPDATE memories SET status = 'active', superseded_by = NULL, updated_at = ? WHERE id = ?", (at, memory_id)
    )


# ---- listing and counting (timelines, exports, numbers) -------------------------------------------


def page(
    db: apsw.Connection, filters: MemoryFilter, limit: int, offset: int = 0, after: Memory | None = None
) -> list[Memory]:
    """Newest first (by event time, then storage order). `after` continues from a memory of the previous
    page (keyset paging): the next page then costs what the first one does, however deep."""
    where, args = filters.sql()
    if after is not None:
        # Older than `after`, or as old and stored before it (rowid breaks ties, as in ORDER BY).
        # The range on occurred_at keeps the time index usable; should `after` have been purged
        # meanwhile, its rowid is NULL and only the memories exactly as old as it are skipped.
        when = to_db(after.occurred_at)
        where += (
            " AND m.occurred_at <= ? AND (m.occurred_at < ? OR m.rowid < (SELECT rowid FROM memories WHERE id = ?))"
        )
        args = [*args, when, when, after.id]
    rows = db.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {where} "
        "ORDER BY m.occurred_at DESC, m.rowid DESC LIMIT ? OFFSET ?",
        (*args, limit, offset),
    )
    return [memory_from_row(r) for r in rows]


def count(db: apsw.Connection, filters: MemoryFilter) -> int:
    where, args = filters.sql()
    return values.number(db, f"SELECT count(*) FROM memories m WHERE {where}", args)


COUNTABLE = ("layer", "status", "client")


def count_by(db: apsw.Connection, column: str) -> dict[str, int]:
    """How many memories have each value of `column` (one of COUNTABLE)."""
    if column not in COUNTABLE:
        raise ValueError(f"memories are not counted by {column!r}")
    rows = db.execute(f"SELECT {column}, count(*) FROM memories GROUP BY {column}")
    return {str(value): int(n) for value, n in rows}


def most_recalled(db: apsw.Connection, limit: int) -> list[Memory]:
    """Active memories recalled most often, most first."""
    rows = db.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.status = 'active' "
        "AND m.access_count > 0 ORDER BY m.access_count DESC, m.rowid LIMIT ?",
        (limit,),
    )
    return [memory_from_row(r) for r in rows]


def max_rowid(db: apsw.Connection) -> int:
    """The largest rowid in use (1 when there are none): the scale of rowid-based sampling."""
    return max(1, values.number(db, "SELECT coalesce(max(rowid), 1) FROM memories"))


# ---- changes by hand (edit, restore) --------------------------------------------------------------

EDITABLE = ("content", "summary", "type", "importance", "pinned", "entities", "scope", "occurred_at")


def update_fields(db: apsw.Connection, rowid: int, changes: dict[str, Any], at: str) -> None:
    """Set the given columns (among EDITABLE) of one memory and its updated_at."""
    unknown = [k for k in changes if k not in EDITABLE]
    if unknown:
        raise ValueError(f"not editable: {', '.join(unknown)}")
    sets = ", ".join(f"{k} = ?" for k in changes)
    db.execute(f"UPDATE memories SET {sets}, updated_at = ? WHERE rowid = ?", (*changes.values(), at, rowid))


def restore_status(db: apsw.Connection, rowid: int, was: str, at: str) -> None:
    """An archived memory back to the status it had when archived: superseded again when it was and
    what superseded it is still there and not archived itself, otherwise active (replaced by nothing)."""
    still = "(? = 'superseded' AND superseded_by IN (SELECT id FROM memories WHERE status != 'archived'))"
    db.execute(
        f"UPDATE memories SET status = CASE WHEN {still} THEN 'superseded' ELSE 'active' END, "
        f"superseded_by = CASE WHEN {still} THEN superseded_by END, updated_at = ? WHERE rowid = ?",
        (was, was, at, rowid),
    )


# ---- the write path ---------------------------------------------------------------------------------


def insert(
    db: apsw.Connection,
    *,
    id: str,
    content: str,
    layer: str,
    type: str,
    importance: float,
    client: str,
    scope: str,
    session_id: str | None,
    created_at: str,
    occurred_at: str,
    updated_at: str,
    expires_at: str | None,
    entities: str,
    metadata: str,
    content_hash: str,
    fact_key: str | None,
    fact_value: str | None,
) -> int:
    """Store one new memory (times in database form, entities and metadata as JSON); its rowid."""
    db.execute(
        "INSERT INTO memories (id, content, layer, type, importance, client, scope, session_id, created_at, "
        "occurred_at, updated_at, expires_at, entities, metadata, content_hash, fact_key, fact_value) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            id,
            content,
            layer,
            type,
            importance,
            client,
            scope,
            session_id,
            created_at,
            occurred_at,
            updated_at,
            expires_at,
            entities,
            metadata,
            content_hash,
            fact_key,
            fact_value,
        ),
    )
    return int(db.last_insert_rowid())


def statuses_visible(db: apsw.Connection, rowids: Iterable[int], viewer: str | None) -> list[tuple[int, str, str]]:
    """(rowid, id, status) of those of `rowids` that `viewer` may see."""
    ids = list(rowids)
    visible, vis = visible_to(viewer)
    rows = db.execute(
        # NOT INDEXED: by rowid, never a walk through every active memory in the status index.
        f"SELECT m.rowid, m.id, m.status FROM memories m NOT INDEXED "
        f"WHERE m.rowid IN ({values.marks(ids)}) AND {visible}",
        (*ids, *vis),
    )
    return [(int(r), str(i), str(s)) for r, i, s in rows]


def contents(db: apsw.Connection, rowids: list[int]) -> dict[int, str]:
    """The text of each of `rowids` still stored."""
    if not rowids:
        return {}
    rows = db.execute(
        f"SELECT rowid, content FROM memories NOT INDEXED WHERE rowid IN ({values.marks(rowids)})", rowids
    )
    return {int(r): str(c) for r, c in rows}


def active_copy(db: apsw.Connection, content_hash: str, viewer: str | None) -> str | None:
    """The id of an active long-term memory `viewer` may see with exactly this text (by its hash)."""
    where, args = visible_to(viewer)
    row = db.execute(
        # INDEXED BY: the hash finds the one row; the status index would step through every active memory.
        f"SELECT m.id FROM memories m INDEXED BY memories_hash WHERE m.content_hash = ? AND m.status = 'active' "
        f"AND m.layer != 'working' "
        f"AND {where} LIMIT 1",
        (content_hash, *args),
    ).fetchone()
    return None if row is None else str(row[0])


def reinforce(db: apsw.Connection, memory_id: str, importance: float, metadata: str, at: str) -> None:
    """A repeat of a memory: one access more, at `at`, with the given importance and metadata (JSON)."""
    db.execute(
        "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?, importance = ?, "
        "metadata = ?, updated_at = ? WHERE id = ?",
        (at, importance, metadata, at, memory_id),
    )


def repeated(db: apsw.Connection, memory_id: str, at: str) -> None:
    """Another writer repeated the memory: one use more, at `at`; what it says and how it is weighed
    (text, metadata, importance, type) stay its writer's."""
    db.execute(
        "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?", (at, memory_id)
    )


def session_before(
    db: apsw.Connection, session_id: str, other_than: str, occurred_at: str, viewer: str | None, limit: int
) -> list[str]:
    """Ids of the long-term memories of a session `viewer` may see from no later than `occurred_at`,
    newest first."""
    where, vis = visible_to(viewer)
    rows = db.execute(
        "SELECT m.id FROM memories m WHERE m.session_id = ? AND m.id != ? AND m.layer != 'working' "
        f"AND m.occurred_at <= ? AND {where} ORDER BY m.occurred_at DESC, m.rowid DESC LIMIT ?",
        (session_id, other_than, occurred_at, *vis, limit),
    )
    return [str(i) for (i,) in rows]


# ---- the recall path --------------------------------------------------------------------------------


def rowids_of(db: apsw.Connection, ids: Iterable[str]) -> set[int]:
    """The rowids of those of the memory ids still stored."""
    wanted = list(ids)
    return {int(r) for (r,) in db.execute(f"SELECT rowid FROM memories WHERE id IN ({values.marks(wanted)})", wanted)}


def hidden_from(db: apsw.Connection, rowids: list[int], viewer: str) -> set[int]:
    """Those of `rowids` that are other clients' private memories. Read from the index of private memories
    (a small part of the file): looking each row up read pages from all over the memories table."""
    if not rowids:
        return set()
    owners = [name for name in private_owners(db) if name != viewer]
    if not owners:
        return set()
    named = owners if len(owners) <= SEEK_OWNERS else None
    hidden: set[int] = set()
    for chunk in values.chunks(rowids):
        args = (*named, *chunk) if named is not None else (viewer, *chunk)
        hidden.update(int(r) for (r,) in db.execute(hidden_sql(len(chunk), named), args))
    return hidden


def private_owners(db: apsw.Connection) -> list[str]:
    """The clients that keep private memories, in name order (one index seek each)."""
    return [str(name) for (name,) in db.execute(f"{_PRIVATE_OWNERS} SELECT name FROM owner WHERE name IS NOT NULL")]


def hidden_sql(count: int, owners: list[str] | None) -> str:
    """hidden_from's query for `count` rowids among the private memories of `owners` (parameters: the
    owners, then the rowids), or with None of every client but the viewer (the viewer, then the rowids)."""
    whose = f"client IN ({','.join('?' * len(owners))})" if owners is not None else "client != ?"
    return (
        f"SELECT rowid FROM memories INDEXED BY memories_private WHERE scope = 'private' AND {whose} "
        f"AND rowid IN ({','.join('?' * count)})"
    )


# The clients that keep private memories, one index seek each (a skip-scan of memories_private). With them
# named, each asked rowid is one seek of (client, rowid) per client; `client != ?` walks every other
# client's private entries instead (100k of them in a store of 1M), cheaper only with many such clients.
_PRIVATE_OWNERS = (
    "WITH RECURSIVE owner(name) AS ("
    "SELECT min(client) FROM memories INDEXED BY memories_private WHERE scope = 'private' "
    "UNION ALL SELECT (SELECT min(client) FROM memories INDEXED BY memories_private "
    "WHERE scope = 'private' AND client > name) FROM owner WHERE name IS NOT NULL)"
)
SEEK_OWNERS = 16  # other clients with private memories up to which hidden_from seeks rather than walks


def among(
    db: apsw.Connection, columns: str, rowids: list[int], where: str, args: Iterable[Any]
) -> list[tuple[Any, ...]]:
    """`columns` (over the table aliased m) of those of `rowids` that meet `where`."""
    found: list[tuple[Any, ...]] = []
    extra = tuple(args)
    for chunk in values.chunks(rowids):
        # NOT INDEXED: look the rows up by rowid. Left to itself the planner may walk the status
        # index instead, every active memory of it (bench/NOTES.md).
        found += db.execute(
            f"SELECT {columns} FROM memories m NOT INDEXED WHERE m.rowid IN ({values.marks(chunk)}) AND {where}",
            (*chunk, *extra),
        ).fetchall()
    return found


def stating(db: apsw.Connection, fact_key: str, viewer: str | None) -> set[int]:
    """Rowids of the active memories `viewer` may see that state `fact_key`."""
    where, vis = visible_to(viewer)
    return {
        int(r)
        for (r,) in db.execute(
            f"SELECT m.rowid FROM memories m WHERE m.fact_key = ? AND m.status = 'active' AND {where}", (fact_key, *vis)
        )
    }


def stating_any(db: apsw.Connection, fact_keys: list[str], viewer: str | None) -> list[tuple[int, str]]:
    """(rowid, fact_key) of the active memories `viewer` may see that state one of `fact_keys`."""
    where, vis = visible_to(viewer)
    found: list[tuple[int, str]] = []
    for chunk in values.chunks(fact_keys):
        found += [
            (int(r), str(k))
            for r, k in db.execute(
                f"SELECT m.rowid, m.fact_key FROM memories m WHERE m.fact_key IN ({values.marks(chunk)}) "
                f"AND m.status = 'active' AND {where}",
                (*chunk, *vis),
            )
        ]
    return found


def occurred_between(db: apsw.Connection, start: str, end: str, viewer: str | None) -> list[int]:
    """Rowids of the memories `viewer` may see that happened in [start, end)."""
    where, vis = visible_to(viewer)
    return [
        int(r)
        for (r,) in db.execute(
            f"SELECT m.rowid FROM memories m WHERE m.occurred_at >= ? AND m.occurred_at < ? AND {where}",
            (start, end, *vis),
        )
    ]
