"""The pass that looks at each memory's nearest neighbours once, for two jobs: merging near-duplicates
and spotting repeated episodic statements to consolidate.

Its cursor is kept across runs, so each memory is examined once, when it is new, against everything
stored; a stopped run resumes after the last finished batch. It waits while the embedding model is
being switched, so that two memories are only ever compared within one vector space.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import NamedTuple

import apsw

from hindsight_desktop.core.maintenance import merge
from hindsight_desktop.core.maintenance.consolidate import Cluster, Summarizer, attach, occasions, promote
from hindsight_desktop.core.maintenance.passes import RunContext
from hindsight_desktop.core.store import entities, meta, relations, upkeep
from hindsight_desktop.core.store.memories import field_row
from hindsight_desktop.core.text.language import dominant_language

CURSOR = "reflect.duplicate_cursor"  # the key the first version of reflect used: existing files resume


class _Examined(NamedTuple):
    rowid: int
    client: str
    scope: str
    layer: str
    status: str
    id: str
    content: str


class _Near(NamedTuple):
    id: str
    client: str
    scope: str
    layer: str
    status: str


class _Facts(NamedTuple):
    fact_key: str | None
    fact_value: str | None
    entities: str


def neighbours_pass(ctx: RunContext, summarizer: Summarizer | None = None) -> Iterator[None]:
    if ctx.switching:
        ctx.report.setdefault("deferred", []).append("merge and consolidation wait for the model switch")
        return
    batch = ctx.policy.batch
    while True:
        clusters: list[Cluster] = []
        with ctx.parts.store.write() as db:
            cursor = int(meta.get(db, CURSOR, "0"))
            rows = upkeep.active_after(db, cursor, batch)
            claimed: set[int] = set()
            for rowid in rows:
                cluster = _examine(db, ctx, rowid, claimed)
                if cluster is not None:
                    clusters.append(cluster)
                    claimed.update(cluster.rowids)
            if rows:
                meta.put(db, CURSOR, str(rows[-1]))
        for cluster in clusters:  # each in its own transaction, after the text is written (and embedded)
            promote(ctx, cluster, summarizer)
        yield
        if len(rows) < batch:
            return


def _examine(db: apsw.Connection, ctx: RunContext, rowid: int, claimed: set[int]) -> Cluster | None:
    vectors = ctx.parts.vectors
    mine = vectors.vectors(db, [rowid]).get(rowid)
    me = field_row(db, _Examined, rowid)
    if mine is None or me is None or me.status != "active":
        return None  # absorbed earlier in this batch, or not indexed yet (repair will index it)
    # Cosines on the model's measured scale (0 unrelated, 1 identical), so the policy's thresholds
    # mean the same for every model and script.
    scale, language = ctx.parts.calibration, dominant_language(me.content)
    near = [
        (other, scale.closeness(cosine, language))
        for other, cosine in vectors.nearest(db, mine, ctx.policy.neighbours + 1)
    ]
    owner = merge.Owner(me.rowid, me.client, me.scope, me.layer)
    for other, similarity in merge.candidates(db, owner, me.content, near, ctx.policy.duplicate_similarity):
        merge.absorb(db, ctx, rowid, other, similarity)
    if me.layer != "episodic" or rowid in claimed or relations.evidence_for(db, me.id) is not None:
        return None
    return _cluster(db, ctx, me, near, claimed)


def _cluster(
    db: apsw.Connection, ctx: RunContext, me: _Examined, near: list[tuple[int, float]], claimed: set[int]
) -> Cluster | None:
    """Attach to a fact already consolidated, or gather a new group of repeated statements."""
    rowid, client, scope = me.rowid, me.client, me.scope
    seed = _facts(db, rowid)
    members: dict[int, float] = {rowid: 1.0}
    for other, similarity in near:
        if other == rowid or similarity < ctx.policy.consolidation_similarity or other in claimed:
            continue
        row = field_row(db, _Near, other)
        if row is None or (row.client, row.scope) != (client, scope) or not _compatible(seed, _facts(db, other)):
            continue
        if row.status == "active" and row.layer == "semantic" and relations.has_evidence(db, row.id):
            semantic: int | None = other
        else:  # a statement that is already evidence of a fact
            semantic = relations.evidence_for(db, row.id) if row.status == "superseded" else None
        if semantic is not None:
            attach(db, ctx, semantic, rowid, similarity)
            return None
        if row.status == "active" and row.layer == "episodic":
            members[other] = similarity
    if len(members) < ctx.policy.consolidation_min_evidence or occasions(db, list(members)) < 2:
        return None
    return Cluster(list(members), client, scope, members)


class Statement(NamedTuple):
    """What must agree for two similar statements to be one fact."""

    key: str | None  # subject and attribute (the fact extractor's key)
    value: str | None
    exact: frozenset[tuple[str, str]]  # (kind, value) of the entities whose values must agree


def _facts(db: apsw.Connection, rowid: int) -> Statement:
    row = field_row(db, _Facts, rowid)
    assert row is not None  # a neighbour read a moment ago, in this transaction
    exact = frozenset((e["kind"], e["value"]) for e in json.loads(row.entities) if e["kind"] in entities.MUST_AGREE)
    return Statement(row.fact_key, row.fact_value, exact)


def _compatible(a: Statement, b: Statement) -> bool:
    """Whether two similar statements may be the same fact: no conflicting value, same exact details."""
    if a.key is not None and a.key == b.key and a.value != b.value:
        return False  # same subject and attribute, different value: a contradiction, not a repetition
    return a.exact == b.exact
