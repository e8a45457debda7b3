"""Merging near-duplicates: the survivor keeps the union of what both had; the other is superseded.

Nothing is deleted: the absorbed memory stays (status superseded, pointing at the survivor), its
events stay under its own id, and a `merged_from` link plus a `merge` event record what happened.
"""

from __future__ import annotations

import json
from typing import NamedTuple

import apsw

from hindsight_desktop.core.maintenance.passes import RunContext
from hindsight_desktop.core.store import entities, relations, upkeep
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.memories import field_row, supersede
from hindsight_desktop.core.text import overlap


class Owner(NamedTuple):
    """Where a memory belongs: merges never cross a client, a scope or a layer."""

    rowid: int
    client: str
    scope: str
    layer: str


class _Candidate(NamedTuple):
    client: str
    scope: str
    layer: str
    status: str
    content: str


class _Merging(NamedTuple):
    rowid: int
    id: str
    entities: str
    access_count: int
    importance: float
    pinned: int
    last_accessed_at: str | None
    stability: float
    metadata: str
    content: str


def candidates(
    db: apsw.Connection, me: Owner, text: str, neighbours: list[tuple[int, float]], threshold: float
) -> list[tuple[int, float]]:
    """Neighbours close enough to merge with `me` whose text is `text`: same layer, never across a
    privacy boundary (a memory merges only with its own client's, of the same scope), and saying the
    same thing in nearly the same words with the same numbers (a model may place "I live in Beijing"
    next to "I live in Shanghai"; those are a contradiction, not a duplicate)."""
    out = []
    for other, similarity in neighbours:
        if other == me.rowid or similarity < threshold:
            continue
        row = field_row(db, _Candidate, other)
        if (
            row is not None
            and row.status == "active"
            and (row.client, row.scope, row.layer) == (me.client, me.scope, me.layer)
            and overlap.same_statement(text, row.content)
        ):
            out.append((other, similarity))
    return out


def absorb(db: apsw.Connection, ctx: RunContext, survivor_rowid: int, absorbed_rowid: int, similarity: float) -> None:
    s = field_row(db, _Merging, survivor_rowid)
    a = field_row(db, _Merging, absorbed_rowid)
    assert s is not None and a is not None  # both read active a moment ago, in this transaction
    now = ctx.now_db
    named = json.loads(s.entities)
    named += [e for e in json.loads(a.entities) if e not in named]
    metadata = {**json.loads(a.metadata), **json.loads(s.metadata)}  # the survivor's own values win
    last_used = max((t for t in (s.last_accessed_at, a.last_accessed_at) if t), default=None)
    upkeep.merge_into(
        db,
        survivor_rowid,
        entities=json.dumps(named, ensure_ascii=False),
        access_count=s.access_count + a.access_count,
        importance=max(s.importance, a.importance),
        pinned=max(s.pinned, a.pinned),
        last_accessed_at=last_used,
        stability=max(s.stability, a.stability),
        metadata=json.dumps(metadata, ensure_ascii=False),
        at=now,
    )
    entities.copy_index(db, survivor_rowid, absorbed_rowid)
    # Links of the absorbed memory now also point at the survivor (the originals stay as history).
    relations.copy_links(db, s.id, a.id)
    supersede(db, a.id, s.id, now)
    relations.link(db, s.id, a.id, "merged_from", round(similarity, 4), now, replace=True)
    # Ids and sizes only: the absorbed text stays in its own row, so a purge of it leaves no copy here.
    log_event(
        db,
        now,
        "merge",
        s.id,
        ctx.client,
        {"absorbed": a.id, "similarity": round(similarity, 4), "absorbed_chars": len(a.content)},
    )
    ctx.count("merged")
    ctx.note("merges", {"survivor": s.id, "absorbed": a.id, "similarity": round(similarity, 4)})
