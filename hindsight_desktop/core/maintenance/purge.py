"""Purge: delete memories for good, with every copy that was derived from them.

A purge receipt must be true, so a purge reaches past the memory's own row:
- its FTS rows, its vectors in every model's vec0 table (zeroed before the delete), entity rows,
  links, and every event filed under it;
- memories merged into it (near-duplicates it absorbed): they are copies of the same words, and go too;
- a consolidated (semantic) memory whose text is the purged memory's text verbatim (the "most central
  statement" of its group): purged too, and its other statements become active again, so the fact
  they state is still recalled in their own words (the next maintenance may consolidate them anew);
- statements a purged memory superseded become current again, unless one still standing in their
  privacy group is newer (store/supersession.py); the event log says so, by id only;
- relatives that merely borrowed from it (a merge survivor, a semantic memory written in other words)
  keep their own text, but the entities and metadata they took from it are derived again without it;
- events and maintenance-run reports that name it: its id becomes "(purged)", and text fields an
  older version stored there (absorbed_content, fact values) are dropped;
- this process's caches: the vector search cache and the recent-embeddings cache forget it at once.
Freed pages are zeroed (the store runs with secure_delete) and the caller checkpoints the WAL.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any, NamedTuple

import apsw

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.maintenance.passes import stored_time
from hindsight_desktop.core.model import switching
from hindsight_desktop.core.records import Entity, ForgetReceipt
from hindsight_desktop.core.store import entities as entity_index
from hindsight_desktop.core.store import events, models, relations, supersession, upkeep
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.memories import field_row
from hindsight_desktop.core.store.runs import replace_ids, scrub_purged
from hindsight_desktop.core.store.upkeep import field_row_by_id
from hindsight_desktop.core.store.vectors import clear_vector
from hindsight_desktop.core.text.extract import extract_entities
from hindsight_desktop.core.timeutil import to_db

# Event detail keys in which versions before this one stored memory text.
LEGACY_TEXT_KEYS = ("absorbed_content", "previous_content", "fact", "value", "new_value", "content")


class _Target(NamedTuple):
    """A memory about to be purged, as read before anything is deleted."""

    rowid: int
    id: str
    content: str
    client: str
    layer: str
    occurred_at: str
    metadata: str


class _Kept(NamedTuple):
    """A memory that stays but borrowed from a purged one, as re-deriving reads it."""

    id: str
    content: str
    layer: str
    occurred_at: str
    metadata: str
    client: str


def purge(
    parts: Parts, db: apsw.Connection, targets: list[tuple[int, str]], client: str, now: datetime
) -> ForgetReceipt:
    """Delete the targets and their copies from every table and index. Events keep only that a purge
    happened, never the text. Runs inside the caller's write transaction."""
    removed = dict.fromkeys(
        (
            "memories",
            "copies",
            "fts",
            "vectors",
            "entities",
            "relations",
            "events",
            "event_details",
            "run_reports",
            "rederived",
            "reactivated",
        ),
        0,
    )
    if not targets:
        return ForgetReceipt(forgotten=[], mode="purge", removed=removed)
    rows = _with_copies(db, [mid for _, mid in targets])
    ids = set(rows)
    removed["copies"] = len(ids) - len({mid for _, mid in targets})
    borrowers = _borrowers(db, rows)
    # What the purged memories replaced (contradicted statements, consolidated evidence) is current
    # again unless a statement still standing replaces it; copies merged into them go with them.
    removed["reactivated"] = len(supersession.release(db, ids, to_db(now), client, "its successor was deleted"))
    try:
        for memory_id, row in rows.items():
            _delete_memory(parts, db, row, removed)
            log_event(db, to_db(now), "purge", memory_id, client, {})
        for rowid in borrowers:
            _rederive(db, rowid, rows)
        removed["rederived"] = len(borrowers)
        removed["event_details"] = _scrub_events(db, ids)
        removed["run_reports"] = scrub_purged(db, ids)
        keyword.optimize(db)  # merges FTS segments, so the deleted terms leave the index pages
    except BaseException:
        switching.forget_cached(parts.vectors)  # the caches may have dropped rows the rollback keeps
        raise
    _forget_embeddings(parts.embed, [row.content for row in rows.values()])
    return ForgetReceipt(forgotten=list(rows), mode="purge", removed=removed)


def _with_copies(db: apsw.Connection, ids: list[str]) -> dict[str, _Target]:
    """The targets' rows plus, to a fixed point, the copies that go with them: memories merged into a
    purged one, and semantic memories whose text is a purged one's verbatim (same client only)."""
    rows: dict[str, _Target] = {}
    todo = list(dict.fromkeys(ids))
    while todo:
        memory_id = todo.pop()
        if memory_id in rows:
            continue
        found = field_row_by_id(db, _Target, memory_id)
        if found is None:
            continue
        row = rows[memory_id] = found
        todo.extend(relations.absorbed_by(db, memory_id, row.client))
        text = row.content.strip()
        todo.extend(s.id for s in relations.consolidated_from(db, memory_id, row.client) if text and text in s.content)
    return rows


def _borrowers(db: apsw.Connection, rows: dict[str, _Target]) -> list[int]:
    """Rowids of memories that stay but took entities or metadata from a purged one: merge survivors
    (merged_from) and semantic memories (derived_from) written in their own words."""
    out: set[int] = set()
    for memory_id in rows:
        # Maintenance made these links within one client; one made by hand (memory_link) names no
        # borrowing, so the survivor must be the one the purged memory was merged into, or a semantic
        # memory that lists it as evidence.
        out.update(relations.borrowers(db, memory_id))
    return sorted(out - {row.rowid for row in rows.values()})


def _delete_memory(parts: Parts, db: apsw.Connection, row: _Target, removed: dict[str, int]) -> None:
    rowid, memory_id = row.rowid, row.id
    removed["fts"] += keyword.delete(db, rowid)
    removed["vectors"] += _delete_vectors(parts, db, rowid)
    removed["entities"] += entity_index.unindex(db, rowid)
    removed["relations"] += relations.unlink_all(db, memory_id)
    removed["events"] += events.delete_for(db, memory_id)
    upkeep.unpoint(db, memory_id)
    removed["memories"] += upkeep.delete_row(db, rowid)


def _delete_vectors(parts: Parts, db: apsw.Connection, rowid: int) -> int:
    """Zero and delete the vector in the engine's index(es), then in any other model's table still in
    the file (a retired model whose table was not dropped yet); drop it from the search caches now."""
    count = parts.vectors.delete(db, rowid)
    covered = set()
    for index in switching.indexes(parts.vectors):
        index.discard_cached(rowid)
        covered.add(index.table)
    for model in models.every(db):
        if model.table not in covered and models.table_exists(db, model.table):
            count += clear_vector(db, model.table, model.dim, rowid)
    return count


def _rederive(db: apsw.Connection, rowid: int, purged: dict[str, _Target]) -> None:
    """Entities and metadata of a memory that stays, derived again from its own text and from the
    relatives it still has, so nothing it took from a purged memory remains (FTS terms included)."""
    kept = field_row(db, _Kept, rowid)
    assert kept is not None  # listed a moment ago, in this transaction, and not purged
    memory_id, content, layer, metadata_json, client = kept.id, kept.content, kept.layer, kept.metadata, kept.client
    occurred = stored_time(kept.occurred_at)
    own = extract_entities(content, occurred)
    if layer == "semantic":  # a fact is not about any one day (as consolidation wrote it)
        own = entity_index.undated(own)
    evidence = json.loads(metadata_json).get("consolidated_from") or []
    relatives = [  # the purged ones' links are gone already: these are the relatives that stay
        (r.entities, r.metadata, r.type)
        for r in relations.merged_or_derived(db, memory_id)
        if r.client == client and (r.superseded_by == memory_id if r.type == "merged_from" else r.id in evidence)
    ]
    entities: dict[tuple[str, str], Entity] = {(e.kind, e.value): e for e in own}
    for rel_entities, _, kind in relatives:
        for e in json.loads(rel_entities):
            if kind == "merged_from" or e["kind"] not in entity_index.DATED:
                entities.setdefault((e["kind"], e["value"]), Entity(**e))
    final = list(entities.values())
    metadata = _metadata_without(
        json.loads(metadata_json), purged, [json.loads(m) for _, m, kind in relatives if kind == "merged_from"]
    )
    upkeep.set_derived(
        db, rowid, json.dumps([asdict(e) for e in final], ensure_ascii=False), json.dumps(metadata, ensure_ascii=False)
    )
    entity_index.unindex(db, rowid)
    if layer != "working":
        entity_index.index(db, rowid, final, occurred)
        keyword.delete(db, rowid)
        keyword.add(db, rowid, content, [(e.kind, e.value) for e in final], occurred)


def _metadata_without(
    metadata: dict[str, Any], purged: dict[str, _Target], merged: list[dict[str, Any]]
) -> dict[str, Any]:
    """Drop purged ids from `consolidated_from`, and the values a merge copied in from a purged memory
    (same key, same value; kept when a memory still merged into this one has it too)."""
    out = dict(metadata)
    if isinstance(out.get("consolidated_from"), list):
        out["consolidated_from"] = [i for i in out["consolidated_from"] if i not in purged]
    for row in purged.values():
        for key, value in json.loads(row.metadata).items():
            if (
                key not in ("consolidated_from", "method")
                and key in out
                and out[key] == value
                and not any(m.get(key) == value for m in merged)
            ):
                del out[key]
    return out


def _scrub_events(db: apsw.Connection, ids: set[str]) -> int:
    """Events of other memories that name a purged one (a merge, a supersession, a link): the id
    becomes "(purged)" and any text field an older version stored goes. Returns how many changed."""
    found = events.naming(db, ids)
    for event_id, text in found.items():
        detail = {k: v for k, v in json.loads(text).items() if k not in LEGACY_TEXT_KEYS}
        events.set_detail(db, event_id, replace_ids(detail, ids))
    return len(found)


def _forget_embeddings(embed: Any, texts: list[str]) -> None:
    """Drop cached embeddings of the purged texts from the recent-embeddings cache (context.EmbedCache)."""
    discard = getattr(embed, "discard", None)
    if discard is not None:
        discard([t for t in texts if t])
