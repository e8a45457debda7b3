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

import apsw
import numpy as np

from hindsight_desktop.core import keyword
from hindsight_desktop.core.models import Entity
from hindsight_desktop.core.passes import RunContext
from hindsight_desktop.core.rows import log_event
from hindsight_desktop.core.timeutil import from_db
from hindsight_desktop.core.writer import content_hash, index_entities, new_id

Summarizer = Callable[[list[str]], "str | None"]

EVIDENCE_OF = ("SELECT s.rowid FROM relations r JOIN memories s ON s.id = r.source_id "
               "WHERE r.target_id = ? AND r.type = 'derived_from' AND s.status = 'active' LIMIT 1")
_MEMBER = "SELECT rowid, id, content, type, importance, occurred_at, session_id, entities, fact_key, fact_value, " \
          "client, scope FROM memories WHERE rowid = ?"


@dataclass
class Cluster:
    rowids: list[int]
    client: str
    scope: str
    similarity: dict[int, float]  # member -> similarity to the seed (1.0 for the seed)


def evidence_of(db: apsw.Connection, memory_id: str) -> int | None:
    """The rowid of the active semantic memory this one is already evidence for, if any."""
    row = db.execute(EVIDENCE_OF, (memory_id,)).fetchone()
    return None if row is None else int(row[0])


def occasions(db: apsw.Connection, rowids: list[int]) -> int:
    """Distinct occasions (sessions, or days for memories without a session) among the statements."""
    marks = ",".join("?" * len(rowids))
    row = db.execute(f"SELECT count(DISTINCT coalesce(session_id, substr(occurred_at, 1, 10))) FROM memories "
                     f"WHERE rowid IN ({marks})", rowids).fetchone()
    return int(row[0])


def attach(db: apsw.Connection, ctx: RunContext, semantic_rowid: int, rowid: int, similarity: float) -> None:
    """One more statement of an already consolidated fact: link it as evidence and strengthen the fact."""
    sem_id, meta, importance = db.execute("SELECT id, metadata, importance FROM memories WHERE rowid = ?",
                                          (semantic_rowid,)).fetchone()
    member_id = db.execute("SELECT id FROM memories WHERE rowid = ?", (rowid,)).fetchone()[0]
    metadata = json.loads(meta)
    metadata["consolidated_from"] = [*metadata.get("consolidated_from", []), member_id]
    db.execute("UPDATE memories SET metadata = ?, importance = ?, updated_at = ? WHERE rowid = ?",
               (json.dumps(metadata, ensure_ascii=False), min(1.0, importance + 0.02), ctx.now_db, semantic_rowid))
    db.execute("INSERT OR IGNORE INTO relations (source_id, target_id, type, strength, created_at) "
               "VALUES (?, ?, 'derived_from', ?, ?)", (sem_id, member_id, round(similarity, 4), ctx.now_db))
    _subsume(db, ctx, sem_id, [member_id])
    log_event(db, ctx.now_db, "consolidate", sem_id, ctx.client, {"evidence_added": member_id})
    ctx.count("evidence_added")


def _subsume(db: apsw.Connection, ctx: RunContext, semantic_id: str, evidence: list[str]) -> None:
    for member in evidence:
        db.execute("UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE id = ?",
                   (semantic_id, ctx.now_db, member))
        log_event(db, ctx.now_db, "supersede", member, ctx.client, {"superseded_by": semantic_id,
                                                                     "why": "consolidated"})


def promote(ctx: RunContext, cluster: Cluster, summarizer: Summarizer | None) -> str | None:
    """Write the semantic memory for a cluster; None when the cluster fell apart meanwhile."""
    parts = ctx.parts
    with parts.store.read() as db:
        members = [db.execute(_MEMBER, (r,)).fetchone() for r in cluster.rowids]
        centre = _centre(parts.vectors.vectors(db, cluster.rowids), members)
    members.sort(key=lambda m: m[5])  # oldest first
    text = summarizer([m[2] for m in members]) if summarizer is not None else None
    method = "summarizer" if text else "most central statement"
    text = (text or centre[2]).strip()
    vector = parts.embed([text])[0]  # outside the write lock
    with parts.store.write() as db:
        live = [m for m in members if _still_free(db, m)]
        if len(live) < ctx.policy.consolidation_min_evidence or occasions(db, [m[0] for m in live]) < 2:
            return None
        return _insert(db, ctx, live, centre, text, vector, method, cluster.similarity)


def _still_free(db: apsw.Connection, member: tuple) -> bool:
    row = db.execute("SELECT status, layer, content FROM memories WHERE rowid = ?", (member[0],)).fetchone()
    return row == ("active", "episodic", member[2]) and evidence_of(db, member[1]) is None


def _centre(vectors: dict[int, np.ndarray], members: list[tuple]) -> tuple:
    """The statement most similar to all the others (the newest when vectors are missing). A statement
    tied to a day ("this morning") loses a little, since the semantic memory is meant to be timeless."""
    usable = [m for m in members if m[0] in vectors]
    if len(usable) < 2:
        return max(members, key=lambda m: m[5])
    matrix = np.stack([vectors[m[0]] for m in usable])
    totals = (matrix @ matrix.T).mean(axis=1)
    dated = [any(e["kind"] in ("date", "time") for e in json.loads(m[7])) for m in usable]
    best = max(range(len(usable)), key=lambda i: (round(float(totals[i]) - 0.05 * dated[i], 4), usable[i][5]))
    return usable[best]


def _insert(db: apsw.Connection, ctx: RunContext, members: list[tuple], centre: tuple, text: str,
            vector: np.ndarray, method: str, similarity: dict[int, float]) -> str:
    now = ctx.now_db
    entities = _union_entities(members)
    occurred = max(m[5] for m in members)  # the fact holds as of its latest statement
    first, last = members[0][5][:10], members[-1][5][:10]
    summary = f"Stated {len(members)} times, {first} to {last}."
    importance = min(1.0, max(m[4] for m in members) + 0.05 * (len(members) - 1))
    ids = [m[1] for m in members]
    semantic_id = new_id()
    db.execute(
        "INSERT INTO memories (id, content, summary, layer, type, importance, client, scope, created_at, occurred_at, "
        "updated_at, entities, metadata, content_hash, fact_key, fact_value) "
        "VALUES (?, ?, ?, 'semantic', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (semantic_id, text, summary, centre[3], round(importance, 3), centre[10], centre[11], now, occurred, now,
         json.dumps([asdict(e) for e in entities], ensure_ascii=False),
         json.dumps({"consolidated_from": ids, "method": method}, ensure_ascii=False), content_hash(text),
         centre[8], centre[9]))
    rowid = db.last_insert_rowid()
    when = from_db(occurred)
    keyword.add(db, rowid, text, [(e.kind, e.value) for e in entities], when)
    ctx.parts.vectors.add(db, rowid, vector)
    index_entities(db, rowid, entities, when)
    db.executemany("INSERT OR IGNORE INTO relations (source_id, target_id, type, strength, created_at) "
                   "VALUES (?, ?, 'derived_from', ?, ?)",
                   [(semantic_id, m[1], round(similarity.get(m[0], 1.0), 4), now) for m in members])
    _subsume(db, ctx, semantic_id, ids)
    log_event(db, now, "consolidate", semantic_id, ctx.client, {"evidence": ids, "method": method})
    ctx.count("consolidated")
    ctx.note("consolidations", {"semantic": semantic_id, "evidence": ids})  # ids only: the text is in the row
    return semantic_id


def _union_entities(members: list[tuple]) -> list[Entity]:
    """What the statements name, without their days: the fact is not about any one day."""
    seen: dict[tuple[str, str], Entity] = {}
    for m in members:
        for e in json.loads(m[7]):
            if e["kind"] not in ("date", "time"):
                seen.setdefault((e["kind"], e["value"]), Entity(**e))
    return list(seen.values())


def consolidate_facts(ctx: RunContext, summarizer: Summarizer | None = None) -> Iterator[None]:
    """Groups of episodic statements with the same subject, attribute and value (from the fact extractor).
    Waits during a model switch: choosing the most central statement compares vectors."""
    if ctx.switching:
        return
    with ctx.parts.store.read() as db:
        groups = db.execute(
            "SELECT client, scope, group_concat(rowid) FROM memories m WHERE status = 'active' AND layer = 'episodic' "
            "AND fact_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM relations r JOIN memories s ON s.id = r.source_id "
            "WHERE r.target_id = m.id AND r.type = 'derived_from' AND s.status = 'active') "
            "GROUP BY fact_key, fact_value, client, scope HAVING count(*) >= ?",
            (ctx.policy.consolidation_min_evidence,)).fetchall()
    for client, scope, rowids in groups:
        members = [int(r) for r in rowids.split(",")]
        promote(ctx, Cluster(members, client, scope, {}), summarizer)
        yield
