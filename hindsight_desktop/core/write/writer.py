"""The write pipeline: redact, extract, embed, score, then reinforce, supersede or store, with links."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import apsw
import numpy as np

from hindsight_desktop.core import validate
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.records import Entity, WriteResult
from hindsight_desktop.core.redact.records import redact_session_id, redact_tree
from hindsight_desktop.core.redact.text import redact_secrets
from hindsight_desktop.core.store import entities as entity_index
from hindsight_desktop.core.store import memories, relations, supersession
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.ids import content_hash, new_id
from hindsight_desktop.core.store.memories import stored_fact
from hindsight_desktop.core.store.visibility import group_of
from hindsight_desktop.core.text import overlap
from hindsight_desktop.core.text.extract import extract_entities, fact_key
from hindsight_desktop.core.text.language import dominant_language
from hindsight_desktop.core.timeutil import from_db, to_db
from hindsight_desktop.core.write.gate import WriteScore
from hindsight_desktop.core.write.gate_change import changed_neighbour, restated_closeness


class Neighbour(NamedTuple):
    """A stored memory near the new text, with its closeness on the calibrated scale."""

    id: str
    closeness: float
    rowid: int


SIMILAR_LINK = 0.79  # on the calibrated closeness scale (all-MiniLM's raw 0.80 in English)
NEAREST = 8  # neighbours a write weighs for novelty, duplicates and similarity links
MAX_ENTITY_LINKS = 5
# Entity links are chosen among this many latest-written memories naming the entity: a name in 10k
# memories must not cost a 10k-row sort on every write.
ENTITY_LINK_WINDOW = 50
SESSION_LINK_STRENGTHS = (1.0, 0.7, 0.4)


@dataclass
class WriteRequest:
    content: str
    client: str
    type: str | None = None
    importance: float | None = None
    metadata: dict[str, Any] | None = None
    occurred_at: datetime | None = None  # parsed and in UTC already (engine.write parses what a caller gives)
    session_id: str | None = None
    scope: str = "shared"
    layer: str | None = None
    explicit: bool = False  # a person added it by hand: always stored
    gate: bool = True  # False for imports of history: every item is stored


def check_request(req: WriteRequest) -> WriteRequest:
    return WriteRequest(
        content=unicodedata.normalize("NFC", validate.content(req.content)),
        client=validate.client_name(req.client),
        type=validate.label(req.type, "type"),
        importance=validate.unit_interval(req.importance, "importance"),
        metadata=validate.metadata(req.metadata),
        occurred_at=req.occurred_at,
        session_id=validate.optional_text(req.session_id, "session_id"),
        scope=validate.scope(req.scope),
        layer=validate.layer(req.layer),
        explicit=bool(req.explicit),
        gate=bool(req.gate),
    )


@dataclass
class Prepared:
    """A write as every kept form of it starts (a memory, or an inbox item): the request checked, with its
    metadata and session id redacted; the content redacted; how many secrets were found; and its times."""

    req: WriteRequest
    text: str
    redactions: int
    now: datetime
    occurred: datetime


def prepare(parts: Parts, request: WriteRequest) -> Prepared:
    """Check the request, refuse a time ahead of the clock, and redact everything that will be kept."""
    req = check_request(request)
    now = parts.clock()
    occurred = req.occurred_at or now
    validate.not_ahead(occurred, now, "timestamp")
    personal = parts.settings.redact_personal_ids
    text, redacted = redact_secrets(req.content, personal)
    # The metadata and the session id are stored too, so no secret may stay in them either.
    req.metadata, in_metadata = redact_tree(req.metadata or {}, personal)
    req.session_id, in_session = redact_session_id(req.session_id, personal)
    return Prepared(req, text, len(redacted) + len(in_metadata) + len(in_session), now, occurred)


def write(parts: Parts, request: WriteRequest) -> WriteResult:
    p = prepare(parts, request)
    entities = extract_entities(p.text, p.occurred)
    vector = parts.embed([p.text])[0]  # the model runs before the write lock is taken
    with parts.store.write() as db:
        return _write_locked(parts, db, p.req, p.text, p.redactions, entities, vector, p.now, p.occurred)


def _write_locked(
    parts: Parts,
    db: apsw.Connection,
    req: WriteRequest,
    text: str,
    redactions: int,
    entities: list[Entity],
    vector: np.ndarray,
    now: datetime,
    occurred: datetime,
) -> WriteResult:
    digest = content_hash(text)
    language = dominant_language(text)
    # Cosines on the model's measured scale (calibration.closeness: 0 unrelated, 1 identical), so
    # novelty, duplicates and links mean the same for every model and script.
    nearest = [
        Neighbour(mid, parts.calibration.closeness(cosine, language), rowid)
        for mid, cosine, rowid in _nearest_active(parts, db, vector, req)
    ]
    neighbours = memories.contents(db, [n.rowid for n in nearest[:3]])
    restated = restated_closeness(text, [(n.closeness, neighbours[n.rowid]) for n in nearest if n.rowid in neighbours])
    verdict = parts.scorer.score(
        text,
        novelty=_novelty(text, nearest, neighbours),
        importance=req.importance,
        entity_count=len(entities),
        related=restated,
        written=occurred,
    )
    duplicate = _find_duplicate(db, digest, nearest, neighbours, req, text, parts.settings.duplicate_similarity)
    if duplicate is not None:
        return _reinforce(db, duplicate, req, verdict, now, redactions)

    key = fact_key(text)
    fact_column, fact_value = stored_fact(key)
    # A statement that sets a personal attribute (where I live, my job, my name) is always worth keeping.
    stored = verdict.passed or req.explicit or not req.gate or key is not None
    layer = req.layer or (verdict.layer if stored else "working")
    if not stored:
        layer = "working"
    mtype = req.type or (verdict.type if verdict.type not in ("chatter", "question") else "note")
    importance = req.importance if req.importance is not None else round(min(1.0, verdict.score), 3)
    expires = now + timedelta(hours=parts.settings.working_ttl_hours) if layer == "working" else None
    memory_id = new_id()
    rowid = memories.insert(
        db,
        id=memory_id,
        content=text,
        layer=layer,
        type=mtype,
        importance=importance,
        client=req.client,
        scope=req.scope,
        session_id=req.session_id,
        created_at=to_db(now),
        occurred_at=to_db(occurred),
        updated_at=to_db(now),
        expires_at=to_db(expires) if expires else None,
        entities=json.dumps([asdict(e) for e in entities], ensure_ascii=False),
        metadata=json.dumps(req.metadata or {}, ensure_ascii=False),
        content_hash=digest,
        fact_key=fact_column,
        fact_value=fact_value,
    )
    supersedes: list[str] = []
    if layer != "working":  # working memory never enters long-term recall
        _index(parts, db, rowid, text, entities, vector, occurred)
        supersedes = _supersede(db, memory_id, fact_column, req, now)
        if not supersedes:  # no fact key tied it to what it replaces: judged by meaning (gate_change.py)
            supersedes = _supersede_changed(db, memory_id, text, nearest, neighbours, req, now)
        _auto_link(db, memory_id, rowid, entities, nearest, req, occurred, now)
    log_event(
        db,
        to_db(now),
        "write",
        memory_id,
        req.client,
        {
            "layer": layer,
            "type": mtype,
            "score": round(verdict.score, 4),
            "stored": stored,
            "redactions": redactions,
            "supersedes": supersedes,
        },
    )
    return WriteResult(
        id=memory_id,
        stored=stored,
        layer=layer,
        score=round(verdict.score, 4),
        signals={k: round(v, 4) for k, v in verdict.signals.items()},
        supersedes=supersedes,
        redactions=redactions,
        reason=_reason(verdict, req, key),
    )


def _reason(verdict: WriteScore, req: WriteRequest, key: tuple[str, str, str] | None) -> str:
    if verdict.passed:
        return verdict.reason
    if req.explicit or not req.gate:
        return "Kept because it was added or imported on purpose."
    if key is not None:
        _, attribute, _ = key
        return f"Kept: it states your {attribute.replace('_', ' ')}."
    return verdict.reason


def _index(
    parts: Parts,
    db: apsw.Connection,
    rowid: int,
    text: str,
    entities: list[Entity],
    vector: np.ndarray,
    occurred: datetime,
) -> None:
    keyword.add(db, rowid, text, [(e.kind, e.value) for e in entities], occurred)
    parts.vectors.add(db, rowid, vector)
    entity_index.index(db, rowid, entities, occurred)


def _nearest_active(
    parts: Parts, db: apsw.Connection, vector: np.ndarray, req: WriteRequest
) -> list[tuple[str, float, int]]:
    """Active memories most similar to the new text that this client may see: (id, cosine, rowid).

    Other clients' private memories are skipped and more neighbours fetched in their place, so they
    neither lower this write's novelty nor hide its real nearest neighbour from the duplicate check."""
    k = NEAREST
    while True:
        pairs = parts.vectors.nearest(db, vector, k)
        if not pairs:
            return []
        sims = dict(pairs)
        rows = memories.statuses_visible(db, sims, req.client)
        seen = [(mid, sims[rowid], rowid, status) for rowid, mid, status in rows]
        if len(seen) >= NEAREST or len(pairs) < k:
            found = [(mid, sim, rowid) for mid, sim, rowid, status in seen if status == "active"]
            return sorted(found, key=lambda item: -item[1])[:NEAREST]
        k *= 2


def _novelty(text: str, nearest: list[Neighbour], neighbours: dict[int, str]) -> float:
    """How much the text adds to what is stored: the larger of two readings.

    By vector: 1 minus its closeness to the nearest memory, on the model's measured scale. By words:
    the share of its terms that the most similar of its nearest memories lacks. A model places a
    new fact near older ones on the same topic ("the kindergarten teacher is Ms Chen" near "he
    started kindergarten"), and an English-only model places every Chinese sentence near every
    other; the new names and numbers still count as new. A repeat in other words reads as new by
    words, which costs a redundant memory, not a lost one.
    """
    if not nearest:
        return 1.0
    by_vector = 1.0 - nearest[0].closeness
    mine = overlap.surface_terms(text)
    if not mine:
        return round(by_vector, 4)
    by_words = min((len(mine - overlap.surface_terms(other)) / len(mine) for other in neighbours.values()), default=1.0)
    return round(max(by_vector, by_words), 4)


def _find_duplicate(
    db: apsw.Connection,
    digest: str,
    nearest: list[Neighbour],
    neighbours: dict[int, str],
    req: WriteRequest,
    text: str,
    bar: float,
) -> str | None:
    same = memories.active_copy(db, digest, req.client)
    if same is not None:
        return same
    if not (req.gate and nearest):
        return None
    # Near on the model's scale is not enough: a model may place "I live in Beijing" next to "I live
    # in Shanghai". A duplicate must also share its wording and every number with the memory.
    memory_id, closeness, rowid = nearest[0]
    if closeness < bar:
        return None
    if rowid in neighbours and overlap.same_statement(text, neighbours[rowid]):
        return memory_id
    return None


def _reinforce(
    db: apsw.Connection, memory_id: str, req: WriteRequest, verdict: WriteScore, now: datetime, redactions: int
) -> WriteResult:
    """A repeat strengthens what is already there instead of piling up a copy. A repeat by its own
    writer may add metadata and raise its importance; another writer's repeat is one more use of it
    and an event naming who repeated it, nothing more: no one rewrites a memory they did not write."""
    _, found = memories.load_memory(db, memory_id)
    if found.client == req.client:
        merged = {**found.metadata, **(req.metadata or {})}
        boosted = min(1.0, max(float(found.importance), req.importance or 0.0) + 0.05)
        memories.reinforce(db, memory_id, boosted, json.dumps(merged, ensure_ascii=False), to_db(now))
        detail: dict[str, Any] = {"importance": boosted}
    else:
        # A private repeat counts no use: everyone sees the use count (recall's access signal), so it
        # would tell them that someone privately said the same.
        if req.scope == "shared":
            memories.repeated(db, memory_id, to_db(now))
        detail = {"repeated_by": req.client, "writer": found.client}
    log_event(db, to_db(now), "reinforce", memory_id, req.client, detail)
    return WriteResult(
        id=memory_id,
        stored=True,
        layer=found.layer,
        score=round(verdict.score, 4),
        signals={k: round(v, 4) for k, v in verdict.signals.items()},
        duplicate_of=memory_id,
        redactions=redactions,
        reason="a near-duplicate of an existing memory, which was reinforced",
    )


def _supersede(db: apsw.Connection, memory_id: str, key: str | None, req: WriteRequest, now: datetime) -> list[str]:
    """Same subject and attribute, different value, in the write's own privacy group: the statement
    made latest wins and the others are kept as history (store/supersession.py)."""
    if key is None:
        return []
    replaced = supersession.resolve(
        db, key, group_of(req.scope, req.client), to_db(now), req.client, "a newer statement"
    )
    return [loser for loser, winner in replaced if winner == memory_id]


def _supersede_changed(
    db: apsw.Connection,
    memory_id: str,
    text: str,
    nearest: list[Neighbour],
    neighbours: dict[int, str],
    req: WriteRequest,
    now: datetime,
) -> list[str]:
    """A text that says a stored memory near it has changed supersedes that memory (same privacy group)."""
    near = [(n.id, n.closeness, neighbours[n.rowid]) for n in nearest if n.rowid in neighbours]
    changed = changed_neighbour(text, near)
    if changed is None:
        return []
    group = group_of(req.scope, req.client)
    replaced = supersession.replace_changed(db, memory_id, changed, group, to_db(now), req.client)
    return [loser for loser, _ in replaced]


def _auto_link(
    db: apsw.Connection,
    memory_id: str,
    rowid: int,
    entities: list[Entity],
    nearest: list[Neighbour],
    req: WriteRequest,
    occurred: datetime,
    now: datetime,
) -> None:
    """Links to related memories this client may see: never to another client's private memory, whose
    existence a link would reveal (and which a guessed session id or a shared name would otherwise reach)."""
    links: dict[tuple[str, str], float] = {}
    for entity in entities:
        if entity.kind not in entity_index.LINKING:
            continue
        # The most recently stored that name it; of those, the ones closest in time to this memory.
        rows = entity_index.recent_sharing(db, entity.value, entity.kind, rowid, req.client, ENTITY_LINK_WINDOW)
        when = occurred.timestamp()
        rows.sort(key=lambda row: abs(from_db(row[1]).timestamp() - when))  # (id, occurred_at)
        for other, _ in rows[:MAX_ENTITY_LINKS]:
            key = (other, "shares_entity")
            links[key] = min(1.0, links.get(key, 0.0) + 0.5)
    if req.session_id:
        # The few memories just before this one in the same session are its context; nearer ones count more.
        before = memories.session_before(
            db, req.session_id, memory_id, to_db(occurred), req.client, len(SESSION_LINK_STRENGTHS)
        )
        for other, strength in zip(before, SESSION_LINK_STRENGTHS, strict=False):
            links[(other, "same_session")] = strength
    for other, similarity, _ in nearest[:3]:
        if similarity >= SIMILAR_LINK:
            links[(other, "similar")] = round(similarity, 3)
    relations.link_many(
        db, [(memory_id, other, kind, strength, to_db(now)) for (other, kind), strength in links.items()]
    )
