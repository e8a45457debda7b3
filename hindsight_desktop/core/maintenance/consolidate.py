"""Consolidation: the same fact stated in several episodic memories, on different occasions, becomes one
semantic memory that links to each statement (`derived_from`). The statements are kept as its
evidence, with their own dates; they are marked superseded by the semantic memory, so recall shows
the fact first and the episodes after it, and they no longer count against a client's cap.

Without a language model the semantic memory's text is the most central statement of the group
(the one most similar to all the others), so no new wording is invented. A `Summarizer` (any callable
taking the statements, oldest first, and returning one sentence or None) may write the text instead.
The intended one is a small local instruct GGUF run by llama.cpp with a JSON-schema constrained
reply, e.g. `llm.create_chat_completion(messages, response_format={"type": "json_object", "schema":
{"type": "object", "properties": {"fact": {"type": "string"}}, "required": ["fact"]}})`, so a small
model cannot break the format; it is called outside any write transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import NamedTuple

import apsw
import numpy as np

from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.maintenance.passes import RunContext, stored_time
from hindsight_desktop.core.records import Entity
from hindsight_desktop.core.store import entities as entity_index
from hindsight_desktop.core.store import relations, upkeep
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.ids import content_hash, new_id
from hindsight_desktop.core.store.memories import field_row, supersede

Summarizer = Callable[[list[str]], "str | None"]


class Member(NamedTuple):
    """A statement of a fact, as consolidation reads it."""

    rowid: int
    id: str
    content: str
    type: str
    importance: float
    occurred_at: str
    session_id: str | None
    entities: str
    fact_key: str | None
    fact_value: str | None
    client: str
    scope: str


class _Semantic(NamedTuple):
    id: str
    metadata: str
    importance: float


class _Free(NamedTuple):
    status: str
    layer: str
    content: str


@dataclass
class Cluster:
    rowids: list[int]
    client: str
    scope: str
    similarity: dict[int, float]  # member -> similarity to the seed (1.0 for the seed)


def occasions(db: apsw.Connection, rowids: list[int]) -> int:
    """Distinct occasions (sessions, or days for memories without a session) among the statements."""
    return upkeep.occasions(db, rowids)


def attach(db: apsw.Connection, ctx: RunContext, semantic_rowid: int, rowid: int, similarity: float) -> None:
    """One more statement of an already consolidated fact: link it as evidence and strengthen the fact."""
    semantic = field_row(db, _Semantic, semantic_rowid)
    assert semantic is not None  # read a moment ago, in this transaction
    member_id = upkeep.id_of(db, rowid)
    metadata = json.loads(semantic.metadata)
    metadata["consolidated_from"] = [*metadata.get("consolidated_from", []), member_id]
    upkeep.strengthen(db, semantic_rowid, metadata, min(1.0, semantic.importance + 0.02), ctx.now_db)
    relations.link(db, semantic.id, member_id, "derived_from", round(similarity, 4), ctx.now_db)
    _subsume(db, ctx, semantic.id, [member_id])
    log_event(db, ctx.now_db, "consolidate", semantic.id, ctx.client, {"evidence_added": member_id})
    ctx.count("evidence_added")


def _subsume(db: apsw.Connection, ctx: RunContext, semantic_id: str, evidence: list[str]) -> None:
    for member in evidence:
        supersede(db, member, semantic_id, ctx.now_db)
        log_event(
            db, ctx.now_db, "supersede", member, ctx.client, {"superseded_by": semantic_id, "why": "consolidated"}
        )


def promote(ctx: RunContext, cluster: Cluster, summarizer: Summarizer | None) -> str | None:
    """Write the semantic memory for a cluster; None when the cluster fell apart meanwhile."""
    parts = ctx.parts
    with parts.store.read() as db:
        members = [m for r in cluster.rowids if (m := field_row(db, Member, r)) is not None]
        centre = _centre(parts.vectors.vectors(db, cluster.rowids), members)
    members.sort(key=lambda m: m.occurred_at)  # oldest first
    text = summarizer([m.content for m in members]) if summarizer is not None else None
    method = "summarizer" if text else "most central statement"
    text = (text or centre.content).strip()
    vector = parts.embed([text])[0]  # outside the write lock
    with parts.store.write() as db:
        live = [m for m in members if _still_free(db, m)]
        if len(live) < ctx.policy.consolidation_min_evidence or occasions(db, [m.rowid for m in live]) < 2:
            return None
        return _insert(db, ctx, live, centre, text, vector, method, cluster.similarity)


def _still_free(db: apsw.Connection, member: Member) -> bool:
    current = field_row(db, _Free, member.rowid)  # unchanged since the text was chosen, and still free
    return (
        current is not None
        and (current.status, current.layer, current.content) == ("active", "episodic", member.content)
        and relations.evidence_for(db, member.id) is None
    )


def _centre(vectors: dict[int, np.ndarray], members: list[Member]) -> Member:
    """The statement most similar to all the others (the newest when vectors are missing). A statement
    tied to a day ("this morning") loses a little, since the semantic memory is meant to be timeless."""
    usable = [m for m in members if m.rowid in vectors]
    if len(usable) < 2:
        return max(members, key=lambda m: m.occurred_at)
    matrix = np.stack([vectors[m.rowid] for m in usable])
    totals = (matrix @ matrix.T).mean(axis=1)
    dated = [any(e["kind"] in entity_index.DATED for e in json.loads(m.entities)) for m in usable]
    best = max(range(len(usable)), key=lambda i: (round(float(totals[i]) - 0.05 * dated[i], 4), usable[i].occurred_at))
    return usable[best]


def _insert(
    db: apsw.Connection,
    ctx: RunContext,
    members: list[Member],
    centre: Member,
    text: str,
    vector: np.ndarray,
    method: str,
    similarity: dict[int, float],
) -> str:
    now = ctx.now_db
    entities = _union_entities(members)
    occurred = max(m.occurred_at for m in members)  # the fact holds as of its latest statement
    first, last = members[0].occurred_at[:10], members[-1].occurred_at[:10]
    summary = f"Stated {len(members)} times, {first} to {last}."
    importance = min(1.0, max(m.importance for m in members) + 0.05 * (len(members) - 1))
    ids = [m.id for m in members]
    semantic_id = new_id()
    rowid = upkeep.insert_semantic(
        db,
        memory_id=semantic_id,
        content=text,
        summary=summary,
        type=centre.type,
        importance=round(importance, 3),
        client=centre.client,
        scope=centre.scope,
        at=now,
        occurred_at=occurred,
        entities=json.dumps([asdict(e) for e in entities], ensure_ascii=False),
        metadata=json.dumps({"consolidated_from": ids, "method": method}, ensure_ascii=False),
        content_hash=content_hash(text),
        fact_key=centre.fact_key,
        fact_value=centre.fact_value,
    )
    when = stored_time(occurred)
    keyword.add(db, rowid, text, [(e.kind, e.value) for e in entities], when)
    ctx.parts.vectors.add(db, rowid, vector)
    entity_index.index(db, rowid, entities, when)
    relations.link_many(
        db, [(semantic_id, m.id, "derived_from", round(similarity.get(m.rowid, 1.0), 4), now) for m in members]
    )
    _subsume(db, ctx, semantic_id, ids)
    log_event(db, now, "consolidate", semantic_id, ctx.client, {"evidence": ids, "method": method})
    ctx.count("consolidated")
    ctx.note("consolidations", {"semantic": semantic_id, "evidence": ids})  # ids only: the text is in the row
    return semantic_id


def _union_entities(members: list[Member]) -> list[Entity]:
    """What the statements name, without their days: the fact is not about any one day."""
    seen: dict[tuple[str, str], Entity] = {}
    for m in members:
        for e in entity_index.undated(Entity(**e) for e in json.loads(m.entities)):
            seen.setdefault((e.kind, e.value), e)
    return list(seen.values())


def consolidate_facts(ctx: RunContext, summarizer: Summarizer | None = None) -> Iterator[None]:
    """Groups of episodic statements with the same subject, attribute and value (from the fact extractor).
    Waits during a model switch: choosing the most central statement compares vectors."""
    if ctx.switching:
        return
    with ctx.parts.store.read() as db:
        groups = upkeep.repeated_facts(db, ctx.policy.consolidation_min_evidence)
    for group in groups:
        promote(ctx, Cluster(group.rowids, group.client, group.scope, {}), summarizer)
        yield
