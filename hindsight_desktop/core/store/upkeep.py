"""The memories table as the maintenance passes, forget and purge use it: candidates to fade or
archive, facts to reconcile, repeated statements to consolidate, rows to merge, archive or delete."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, NamedTuple

import apsw

from hindsight_desktop.core.records import MemoryFilter
from hindsight_desktop.core.store import values
from hindsight_desktop.core.store.memories import Fields, _columns, select
from hindsight_desktop.core.store.visibility import privacy_group, stated_at, visible_to


class FadeCandidate(NamedTuple):
    """An unpinned active long-term memory unused since before a cutoff, as the fading pass weighs it."""

    rowid: int
    id: str
    importance: float
    layer: str
    stability: float
    last_used: str  # last_accessed_at, or created_at for a memory never used


class Overflow(NamedTuple):
    client: str
    excess: int  # active, unpinned long-term memories over the cap


class Target(NamedTuple):
    rowid: int
    id: str


class Changed(NamedTuple):
    updated_at: str
    rowid: int


class FactGroup(NamedTuple):
    fact_key: str
    group: str  # privacy_group(): 'shared' or 'private:<client>'


class StatedFact(NamedTuple):
    rowid: int
    content: str
    fact_key: str | None
    fact_value: str | None


class Claim(NamedTuple):
    id: str
    fact_value: str


class RepeatedFact(NamedTuple):
    """Active episodic statements of one extracted fact by one client in one scope, not yet evidence."""

    client: str
    scope: str
    rowids: list[int]


class ForgetMatch(NamedTuple):
    rowid: int
    id: str
    client: str
    pinned: int


def record_uses(
    db: apsw.Connection, ids: list[str], at: str, spaced_before: str, max_stability: float, growth: float
) -> None:
    """A use of each memory: counted, its fading clock reset; when its last counted use (or creation)
    is at or before `spaced_before`, its stability grows by `growth` (at most `max_stability`)."""
    db.executemany(
        "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?1, "
        "stability = CASE WHEN coalesce(reviewed_at, created_at) <= ?2 THEN min(?3, stability * ?4) "
        "ELSE stability END, "
        "reviewed_at = CASE WHEN coalesce(reviewed_at, created_at) <= ?2 THEN ?1 ELSE reviewed_at END "
        "WHERE id = ?5",
        [(at, spaced_before, max_stability, growth, mid) for mid in ids],
    )


def drop_expired_working(db: apsw.Connection, before: str, limit: int) -> int:
    """Delete up to `limit` working memories that expired before `before`; returns how many."""
    db.execute(
        "DELETE FROM memories WHERE rowid IN (SELECT rowid FROM memories WHERE layer = 'working' "
        "AND expires_at < ? LIMIT ?)",
        (before, limit),
    )
    return db.changes()


def fade_candidates(db: apsw.Connection, unused_since: str, after: int, limit: int) -> list[FadeCandidate]:
    """Up to `limit` memories past rowid `after`, in rowid order, that may have faded: active, unpinned,
    long-term and unused since before `unused_since`."""
    rows = db.execute(
        "SELECT m.rowid, m.id, m.importance, m.layer, m.stability, coalesce(m.last_accessed_at, m.created_at) "
        # NOT INDEXED: walk by rowid from the cursor. Through the status index SQLite would read and sort
        # every active memory for each batch (bench/NOTES.md).
        "FROM memories m NOT INDEXED WHERE m.status = 'active' AND m.pinned = 0 AND m.layer != 'working' "
        "AND coalesce(m.last_accessed_at, m.created_at) < ? AND m.rowid > ? ORDER BY m.rowid LIMIT ?",
        (unused_since, after, limit),
    )
    return [FadeCandidate(*row) for row in rows]


def over_capacity(db: apsw.Connection, cap: int) -> list[Overflow]:
    """Clients with more than `cap` active, unpinned long-term memories, and by how many."""
    rows = db.execute(
        "SELECT client, count(*) - ? FROM memories WHERE status = 'active' "
        "AND layer != 'working' AND pinned = 0 GROUP BY client HAVING count(*) > ?",
        (cap, cap),
    )
    return [Overflow(*row) for row in rows]


def strength_expression(half_life_days: float, layer_factors: dict[str, float], now_param: str = "?") -> str:
    """A memory's strength (MaintenancePolicy.strength) as an SQL expression over memories `m`:
    importance x 0.5 ** (idle days / (half-life x layer factor x stability))."""
    cases = " ".join(f"WHEN '{layer}' THEN {factor!r}" for layer, factor in layer_factors.items())
    idle = f"max(0.0, julianday({now_param}) - julianday(coalesce(m.last_accessed_at, m.created_at)))"
    half = f"({half_life_days!r} * (CASE m.layer {cases} ELSE 1.0 END) * max(1.0, m.stability))"
    return f"(m.importance * pow(0.5, {idle} / {half}))"


def weakest(
    db: apsw.Connection, client: str, now: str, limit: int, half_life_days: float, layer_factors: dict[str, float]
) -> list[Target]:
    """The client's `limit` weakest active, unpinned long-term memories at `now` (ties: oldest rowid)."""
    strength = strength_expression(half_life_days, layer_factors)
    rows = db.execute(
        f"SELECT m.rowid, m.id FROM memories m WHERE m.client = ? AND m.status = 'active' "
        f"AND m.layer != 'working' AND m.pinned = 0 ORDER BY {strength} ASC, m.rowid ASC LIMIT ?",
        (client, now, limit),
    )
    return [Target(*row) for row in rows]


def statuses(db: apsw.Connection, targets: list[tuple[int, str]]) -> list[tuple[int, str, str]]:
    """(rowid, id, status) of each of the (rowid, id) targets still stored, in their order."""
    found: dict[int, str] = {}
    for chunk in values.chunks([rowid for rowid, _ in targets]):
        found.update(
            (int(r), str(s))
            for r, s in db.execute(
                f"SELECT rowid, status FROM memories NOT INDEXED WHERE rowid IN ({values.marks(chunk)})", chunk
            )
        )
    return [(rowid, mid, found[rowid]) for rowid, mid in targets if rowid in found]


def archive(db: apsw.Connection, rowids: Iterable[int], at: str) -> None:
    """To cold storage: archived (restorable), out of normal recall."""
    db.executemany(
        "UPDATE memories SET status = 'archived', updated_at = ? WHERE rowid = ?", [(at, rowid) for rowid in rowids]
    )


def changed_since(db: apsw.Connection, since: str, after: int) -> list[Changed]:
    """Active long-term memories updated after (since, rowid `after`), in that order."""
    rows = db.execute(
        "SELECT updated_at, rowid FROM memories WHERE (updated_at > ?1 OR (updated_at = ?1 AND rowid > ?2)) "
        "AND status = 'active' AND layer != 'working' ORDER BY updated_at, rowid",
        (since, after),
    )
    return [Changed(*row) for row in rows]


def stated_facts(db: apsw.Connection, rowids: list[int]) -> list[StatedFact]:
    """Those of the memories still active and long-term, with their text and stored fact."""
    marks = values.marks(rowids)
    return select(
        db, StatedFact, f"rowid IN ({marks}) AND status = 'active' AND layer != 'working'", rowids, hint="NOT INDEXED"
    )


def set_fact(db: apsw.Connection, rowid: int, key: str | None, value: str | None) -> None:
    db.execute("UPDATE memories SET fact_key = ?, fact_value = ? WHERE rowid = ?", (key, value, rowid))


def contradicted_facts(db: apsw.Connection) -> list[FactGroup]:
    """Fact keys whose active long-term statements disagree within one privacy group."""
    group = privacy_group()
    rows = db.execute(
        f"SELECT fact_key, {group} FROM memories WHERE status = 'active' AND layer != 'working' "
        f"AND fact_key IS NOT NULL GROUP BY fact_key, {group} HAVING count(DISTINCT fact_value) > 1"
    )
    return [FactGroup(*row) for row in rows]


def claims(db: apsw.Connection, key: str, group: str) -> list[Claim]:
    """The active long-term statements of a fact in one privacy group, latest made (visibility.STATED_AT)
    first; of two made at once, the one stored last."""
    return select(
        # INDEXED BY: left to itself the planner walks the (status, occurred_at) index to skip the sort,
        # that is every active memory for each fact (bench/NOTES.md).
        db,
        Claim,
        f"status = 'active' AND layer != 'working' AND fact_key = ? AND {privacy_group()} = ?",
        (key, group),
        hint="INDEXED BY memories_fact",
        order=f"{stated_at()} DESC, rowid DESC",
    )


class Freed(NamedTuple):
    """A memory superseded by one that is leaving, with what its fact is compared by."""

    id: str
    successor: str
    fact_key: str | None
    scope: str
    client: str


def replaced_by(db: apsw.Connection, successors: frozenset[str]) -> list[Freed]:
    """Memories superseded by one of `successors` (and not among them) that are not copies merged
    into it: the statements it contradicted and the evidence it consolidated."""
    found: list[Freed] = []
    for chunk in values.chunks(sorted(successors)):
        found += [
            Freed(*row)
            for row in db.execute(
                "SELECT m.id, m.superseded_by, m.fact_key, m.scope, m.client FROM memories m "
                f"WHERE m.superseded_by IN ({values.marks(chunk)}) AND m.status = 'superseded' "
                "AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.source_id = m.superseded_by "
                "AND r.target_id = m.id AND r.type = 'merged_from') ORDER BY m.rowid",
                chunk,
            )
        ]
    return [f for f in found if f.id not in successors]


def misjudged_supersessions(db: apsw.Connection) -> list[Freed]:
    """Memories superseded, as a contradiction, by a memory of another privacy group, or by one that
    won only by a time after its own writing (it was made before them: visibility.STATED_AT)."""
    rows = db.execute(
        "SELECT m.id, m.superseded_by, m.fact_key, m.scope, m.client FROM memories m JOIN memories s "
        f"ON s.id = m.superseded_by WHERE m.status = 'superseded' AND ({privacy_group('m')} != {privacy_group('s')} "
        f"OR (s.occurred_at > s.created_at AND {stated_at('s')} < {stated_at('m')})) "
        "AND EXISTS (SELECT 1 FROM relations r WHERE r.source_id = s.id AND r.target_id = m.id "
        "AND r.type = 'supersedes') ORDER BY m.rowid"
    )
    return [Freed(*row) for row in rows]


class FactOf(NamedTuple):
    status: str
    fact_key: str | None
    scope: str
    client: str


def fact_of(db: apsw.Connection, memory_id: str) -> FactOf | None:
    row = db.execute("SELECT status, fact_key, scope, client FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return None if row is None else FactOf(*row)


def free_evidence(db: apsw.Connection, semantic_id: str) -> list[str]:
    """Active statements a consolidated fact made them evidence of (linked `derived_from` and listed in
    its `consolidated_from`, same writer and scope, as consolidation does: a link anyone can make by
    hand never reaches another's memory) that no other active consolidated fact holds."""
    rows = db.execute(
        "SELECT m.id FROM memories s JOIN relations r ON r.source_id = s.id AND r.type = 'derived_from' "
        "JOIN memories m ON m.id = r.target_id WHERE s.id = ? AND s.layer = 'semantic' AND m.status = 'active' "
        "AND m.client = s.client AND m.scope = s.scope "
        "AND EXISTS (SELECT 1 FROM json_each(s.metadata, '$.consolidated_from') WHERE value = m.id) "
        "AND NOT EXISTS (SELECT 1 FROM relations o JOIN memories t ON t.id = o.source_id WHERE o.target_id = m.id "
        "AND o.type = 'derived_from' AND o.source_id != s.id AND t.status = 'active') ORDER BY m.rowid",
        (semantic_id,),
    )
    return [str(i) for (i,) in rows]


def occasions(db: apsw.Connection, rowids: list[int]) -> int:
    """Distinct occasions (sessions, or days for memories without a session) among the memories."""
    marks = values.marks(rowids)
    return values.number(
        db,
        "SELECT count(DISTINCT coalesce(session_id, substr(occurred_at, 1, 10))) "
        f"FROM memories WHERE rowid IN ({marks})",
        rowids,
    )


def id_of(db: apsw.Connection, rowid: int) -> str:
    row = db.execute("SELECT id FROM memories WHERE rowid = ?", (rowid,)).fetchone()
    if row is None:
        raise KeyError(f"no memory at rowid {rowid}")
    return str(row[0])


def strengthen(db: apsw.Connection, rowid: int, metadata: dict[str, Any], importance: float, at: str) -> None:
    """New metadata and importance for a memory (a consolidated fact that gained evidence)."""
    db.execute(
        "UPDATE memories SET metadata = ?, importance = ?, updated_at = ? WHERE rowid = ?",
        (json.dumps(metadata, ensure_ascii=False), importance, at, rowid),
    )


def insert_semantic(
    db: apsw.Connection,
    *,
    memory_id: str,
    content: str,
    summary: str,
    type: str,
    importance: float,
    client: str,
    scope: str,
    at: str,
    occurred_at: str,
    entities: str,
    metadata: str,
    content_hash: str,
    fact_key: str | None,
    fact_value: str | None,
) -> int:
    """A new semantic memory (`entities` and `metadata` as JSON text); its rowid."""
    db.execute(
        "INSERT INTO memories (id, content, summary, layer, type, importance, client, scope, created_at, occurred_at, "
        "updated_at, entities, metadata, content_hash, fact_key, fact_value) "
        "VALUES (?, ?, ?, 'semantic', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory_id,
            content,
            summary,
            type,
            importance,
            client,
            scope,
            at,
            occurred_at,
            at,
            entities,
            metadata,
            content_hash,
            fact_key,
            fact_value,
        ),
    )
    return int(db.last_insert_rowid())


def repeated_facts(db: apsw.Connection, min_evidence: int) -> list[RepeatedFact]:
    """Groups of at least `min_evidence` active episodic statements of the same fact (key and value), by
    client and scope, none of them evidence of an active semantic memory already."""
    rows = db.execute(
        "SELECT client, scope, group_concat(rowid) FROM memories m WHERE status = 'active' AND layer = 'episodic' "
        "AND fact_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM relations r JOIN memories s ON s.id = r.source_id "
        "WHERE r.target_id = m.id AND r.type = 'derived_from' AND s.status = 'active') "
        "GROUP BY fact_key, fact_value, client, scope HAVING count(*) >= ?",
        (min_evidence,),
    )
    return [RepeatedFact(client, scope, [int(r) for r in rowids.split(",")]) for client, scope, rowids in rows]


def merge_into(
    db: apsw.Connection,
    rowid: int,
    *,
    entities: str,
    access_count: int,
    importance: float,
    pinned: int,
    last_accessed_at: str | None,
    stability: float,
    metadata: str,
    at: str,
) -> None:
    """A merge survivor's fields after absorbing a near-duplicate (`entities`, `metadata` as JSON text)."""
    db.execute(
        "UPDATE memories SET entities = ?, access_count = ?, importance = ?, pinned = ?, last_accessed_at = ?, "
        "stability = ?, metadata = ?, updated_at = ? WHERE rowid = ?",
        (entities, access_count, importance, pinned, last_accessed_at, stability, metadata, at, rowid),
    )


def active_after(db: apsw.Connection, after: int, limit: int) -> list[int]:
    """Up to `limit` rowids of active long-term memories past rowid `after`, in rowid order."""
    # NOT INDEXED: by rowid from the cursor, not every active memory sorted again for each batch.
    rows = db.execute(
        "SELECT rowid FROM memories NOT INDEXED WHERE rowid > ? AND status = 'active' "
        "AND layer != 'working' ORDER BY rowid LIMIT ?",
        (after, limit),
    )
    return [int(r) for (r,) in rows]


def forget_matches(
    db: apsw.Connection,
    *,
    viewer: str | None,
    rowids: list[int] | None = None,
    occurred_before: str | None = None,
    layer: str | None = None,
    type: str | None = None,
    below_importance: float | None = None,
    written_by: str | None = None,
    include_archived: bool = False,
    include_pinned: bool = False,
) -> list[ForgetMatch]:
    """Memories `viewer` may see meeting every given condition, oldest (by when it happened) first."""
    where, vis = visible_to(viewer)
    clauses, args = ["1", where], list[Any](vis)
    if rowids is not None:
        clauses.append(f"m.rowid IN ({values.marks(rowids)})")
        args.extend(rowids)
    for clause, value in (
        (f"{stated_at('m')} < ?", occurred_before),
        ("m.layer = ?", layer),
        ("m.type = ?", type),
        ("m.importance < ?", below_importance),
        ("m.client = ?", written_by),
    ):
        if value is not None:
            clauses.append(clause)
            args.append(value)
    if not include_archived:
        clauses.append("m.status != 'archived'")
    if not include_pinned:
        clauses.append("m.pinned = 0")
    rows = db.execute(
        f"SELECT m.rowid, m.id, m.client, m.pinned FROM memories m WHERE {' AND '.join(clauses)} "
        "ORDER BY m.occurred_at, m.rowid",
        args,
    )
    return [ForgetMatch(*row) for row in rows]


def field_row_by_id(db: apsw.Connection, record: type[Fields], memory_id: str) -> Fields | None:
    """As `field_row`, for the memory with this id."""
    row = db.execute(f"SELECT {_columns(record)} FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return None if row is None else record(*row)


def unpoint(db: apsw.Connection, memory_id: str) -> None:
    """Memories superseded by `memory_id` point at nothing any more (it is being purged)."""
    db.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?", (memory_id,))


def delete_row(db: apsw.Connection, rowid: int) -> int:
    """Delete the memory's own row (its indexes, links and events are the caller's); 1 if it was there."""
    db.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
    return db.changes()


def set_derived(db: apsw.Connection, rowid: int, entities: str, metadata: str) -> None:
    """A memory's entities and metadata (JSON text), derived again."""
    db.execute("UPDATE memories SET entities = ?, metadata = ? WHERE rowid = ?", (entities, metadata, rowid))


def count_all(db: apsw.Connection) -> int:
    return values.number(db, "SELECT count(*) FROM memories")


def columns_after(
    db: apsw.Connection, filters: MemoryFilter | None, columns: tuple[str, ...], after: int, limit: int
) -> list[tuple[Any, ...]]:
    """Up to `limit` memories matching `filters` past rowid `after`, in rowid order: (rowid, *columns)."""
    where, args = (filters or MemoryFilter()).sql()
    names = ", ".join(f"m.{c}" for c in columns)
    # NOT INDEXED: each chunk walks on by rowid; a status or client index would make SQLite read and
    # sort every match again for each chunk of a 100k export.
    return db.execute(
        f"SELECT m.rowid, {names} FROM memories m NOT INDEXED WHERE {where} AND m.rowid > ? ORDER BY m.rowid LIMIT ?",
        (*args, after, limit),
    ).fetchall()


def present(db: apsw.Connection, ids: list[str]) -> set[str]:
    """Those of the ids that name a stored memory."""
    found: set[str] = set()
    for chunk in values.chunks(ids):
        found.update(r for (r,) in db.execute(f"SELECT id FROM memories WHERE id IN ({values.marks(chunk)})", chunk))
    return found


def exists(db: apsw.Connection, memory_id: str) -> bool:
    return db.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone() is not None


def insert_row(db: apsw.Connection, row: dict[str, Any]) -> int:
    """A memory row as given, column by column (an own-format import); its rowid."""
    db.execute(f"INSERT INTO memories ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", tuple(row.values()))
    return int(db.last_insert_rowid())
