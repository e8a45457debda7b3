"""The pass that looks at each memory's nearest neighbours once, for two jobs: merging near-duplicates
and spotting repeated episodic statements to consolidate.

Its cursor is kept across runs, so each memory is examined once, when it is new, against everything
stored; a stopped run resumes after the last finished batch. It waits while the embedding model is
being switched, so that two memories are only ever compared within one vector space.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import apsw

from hindsight_desktop.core import merge
from hindsight_desktop.core.consolidate import Cluster, Summarizer, attach, evidence_of, occasions, promote
from hindsight_desktop.core.passes import RunContext, get_meta, set_meta
from hindsight_desktop.core.signals import dominant_language

CURSOR = "reflect.duplicate_cursor"  # the key the first version of reflect used: existing files resume


def neighbours_pass(ctx: RunContext, summarizer: Summarizer | None = None) -> Iterator[None]:
    if ctx.switching:
        ctx.report.setdefault("deferred", []).append("merge and consolidation wait for the model switch")
        return
    batch = ctx.policy.batch
    while True:
        clusters: list[Cluster] = []
        with ctx.parts.store.write() as db:
            cursor = int(get_meta(db, CURSOR, "0"))
            # NOT INDEXED: by rowid from the cursor, not every active memory sorted again for each batch.
            rows = db.execute("SELECT rowid FROM memories NOT INDEXED WHERE rowid > ? AND status = 'active' "
                              "AND layer != 'working' ORDER BY rowid LIMIT ?", (cursor, batch)).fetchall()
            claimed: set[int] = set()
            for (rowid,) in rows:
                cluster = _examine(db, ctx, rowid, claimed)
                if cluster is not None:
                    clusters.append(cluster)
                    claimed.update(cluster.rowids)
            if rows:
                set_meta(db, CURSOR, str(rows[-1][0]))
        for cluster in clusters:  # each in its own transaction, after the text is written (and embedded)
            promote(ctx, cluster, summarizer)
        yield
        if len(rows) < batch:
            return


def _examine(db: apsw.Connection, ctx: RunContext, rowid: int, claimed: set[int]) -> Cluster | None:
    vectors = ctx.parts.vectors
    mine = vectors.vectors(db, [rowid]).get(rowid)
    me = db.execute("SELECT rowid, client, scope, layer, status, id, content FROM memories WHERE rowid = ?",
                    (rowid,)).fetchone()
    if mine is None or me is None or me[4] != "active":
        return None  # absorbed earlier in this batch, or not indexed yet (repair will index it)
    # Cosines on the model's measured scale (0 unrelated, 1 identical), so the policy's thresholds
    # mean the same for every model and script.
    scale, language = ctx.parts.calibration, dominant_language(me[6])
    near = [(other, scale.closeness(cosine, language))
            for other, cosine in vectors.nearest(db, mine, ctx.policy.neighbours + 1)]
    for other, similarity in merge.candidates(db, me[:4], me[6], near, ctx.policy.duplicate_similarity):
        merge.absorb(db, ctx, rowid, other, similarity)
    if me[3] != "episodic" or rowid in claimed or evidence_of(db, me[5]) is not None:
        return None
    return _cluster(db, ctx, me, near, claimed)


def _cluster(db: apsw.Connection, ctx: RunContext, me: tuple, near: list[tuple[int, float]],
             claimed: set[int]) -> Cluster | None:
    """Attach to a fact already consolidated, or gather a new group of repeated statements."""
    rowid, client, scope = me[0], me[1], me[2]
    seed = _facts(db, rowid)
    members: dict[int, float] = {rowid: 1.0}
    for other, similarity in near:
        if other == rowid or similarity < ctx.policy.consolidation_similarity or other in claimed:
            continue
        row = db.execute("SELECT id, client, scope, layer, status FROM memories WHERE rowid = ?", (other,)).fetchone()
        if row is None or (row[1], row[2]) != (client, scope) or not _compatible(seed, _facts(db, other)):
            continue
        if row[4] == "active" and row[3] == "semantic" and _is_consolidated(db, row[0]):
            semantic: int | None = other
        else:  # a statement that is already evidence of a fact
            semantic = evidence_of(db, row[0]) if row[4] == "superseded" else None
        if semantic is not None:
            attach(db, ctx, semantic, rowid, similarity)
            return None
        if row[4] == "active" and row[3] == "episodic":
            members[other] = similarity
    if len(members) < ctx.policy.consolidation_min_evidence or occasions(db, list(members)) < 2:
        return None
    return Cluster(list(members), client, scope, members)


# Entity kinds whose values must agree for two statements to be the same fact: "my flight is at 7:10"
# and "my flight is at 9:40" are close in meaning but are not one fact stated twice. Dates may differ:
# a fact repeated on different days is exactly what consolidation looks for.
_EXACT = ("number", "code", "email", "phone", "url", "time")


def _facts(db: apsw.Connection, rowid: int) -> tuple[str | None, str | None, frozenset[tuple[str, str]]]:
    key, value, entities = db.execute("SELECT fact_key, fact_value, entities FROM memories WHERE rowid = ?",
                                      (rowid,)).fetchone()
    exact = frozenset((e["kind"], e["value"]) for e in json.loads(entities) if e["kind"] in _EXACT)
    return key, value, exact


def _compatible(a: tuple, b: tuple) -> bool:
    """Whether two similar statements may be the same fact: no conflicting value, same exact details."""
    if a[0] is not None and a[0] == b[0] and a[1] != b[1]:
        return False  # same subject and attribute, different value: a contradiction, not a repetition
    return a[2] == b[2]


def _is_consolidated(db: apsw.Connection, memory_id: str) -> bool:
    return db.execute("SELECT 1 FROM relations WHERE source_id = ? AND type = 'derived_from' LIMIT 1",
                      (memory_id,)).fetchone() is not None
