"""Purge: delete memories for good, with every copy that was derived from them.

A purge receipt must be true, so a purge reaches past the memory's own row:
- its FTS rows, its vectors in every model's vec0 table (zeroed before the delete), entity rows,
  links, and every event filed under it;
- memories merged into it (near-duplicates it absorbed): they are copies of the same words, and go too;
- a consolidated (semantic) memory whose text is the purged memory's text verbatim (the "most central
  statement" of its group): purged too, and its other statements become active again, so the fact
  they state is still recalled in their own words (the next maintenance may consolidate them anew);
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
from typing import Any

import apsw

from hindsight_desktop.core import keyword, spaces
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.extract import extract_entities
from hindsight_desktop.core.models import Entity, ForgetReceipt
from hindsight_desktop.core.rows import log_event
from hindsight_desktop.core.runs import replace_ids, scrub_purged
from hindsight_desktop.core.timeutil import from_db, to_db
from hindsight_desktop.core.vectors import clear_vector
from hindsight_desktop.core.writer import index_entities

# Event detail keys in which versions before this one stored memory text.
LEGACY_TEXT_KEYS = ("absorbed_content", "previous_content", "fact", "value", "new_value", "content")
_ROW = "SELECT rowid, id, content, client, layer, occurred_at, metadata FROM memories WHERE id = ?"
_UNDATED = ("date", "time")
# A semantic memory `m` that consolidation made from the memory id bound to the next parameter.
_CONSOLIDATED_FROM = ("m.layer = 'semantic' AND EXISTS (SELECT 1 FROM json_each(m.metadata, '$.consolidated_from') "
                      "WHERE value = ?)")


def purge(parts: Parts, db: apsw.Connection, targets: list[tuple[int, str]], client: str,
          now: datetime) -> ForgetReceipt:
    """Delete the targets and their copies from every table and index. Events keep only that a purge
    happened, never the text. Runs inside the caller's write transaction."""
    removed = dict.fromkeys(("memories", "copies", "fts", "vectors", "entities", "relations", "events",
                             "event_details", "run_reports", "rederived", "reactivated"), 0)
    if not targets:
        return ForgetReceipt(forgotten=[], mode="purge", removed=removed)
    rows = _with_copies(db, [mid for _, mid in targets])
    ids = set(rows)
    removed["copies"] = len(ids) - len({mid for _, mid in targets})
    borrowers = _borrowers(db, rows)
    removed["reactivated"] = _reactivate_evidence(db, ids, now)
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
        spaces.forget_cached(parts.vectors)  # the caches may have dropped rows the rollback keeps
        raise
    _forget_embeddings(parts.embed, [row[2] for row in rows.values()])
    return ForgetReceipt(forgotten=list(rows), mode="purge", removed=removed)


def _with_copies(db: apsw.Connection, ids: list[str]) -> dict[str, tuple]:
    """The targets' rows plus, to a fixed point, the copies that go with them: memories merged into a
    purged one, and semantic memories whose text is a purged one's verbatim (same client only)."""
    rows: dict[str, tuple] = {}
    todo = list(dict.fromkeys(ids))
    while todo:
        memory_id = todo.pop()
        if memory_id in rows:
            continue
        row = db.execute(_ROW, (memory_id,)).fetchone()
        if row is None:
            continue
        rows[memory_id] = row
        absorbed = db.execute(
            "SELECT m.id FROM relations r JOIN memories m ON m.id = r.target_id WHERE r.source_id = ? "
            "AND r.type = 'merged_from' AND m.superseded_by = ? AND m.client = ?", (memory_id, memory_id, row[3]))
        todo.extend(i for (i,) in absorbed)
        text = row[2].strip()
        semantic = db.execute(
            f"SELECT m.id, m.content FROM relations r JOIN memories m ON m.id = r.source_id WHERE r.target_id = ? "
            f"AND r.type = 'derived_from' AND m.client = ? AND {_CONSOLIDATED_FROM}", (memory_id, row[3], memory_id))
        todo.extend(i for i, content in semantic if text and text in content)
    return rows


def _borrowers(db: apsw.Connection, rows: dict[str, tuple]) -> list[int]:
    """Rowids of memories that stay but took entities or metadata from a purged one: merge survivors
    (merged_from) and semantic memories (derived_from) written in their own words."""
    out: set[int] = set()
    for memory_id in rows:
        # Maintenance made these links within one client; one made by hand (memory_link) names no
        # borrowing, so the survivor must be the one the purged memory was merged into, or a semantic
        # memory that lists it as evidence.
        out.update(r for (r,) in db.execute(
            f"SELECT m.rowid FROM relations r JOIN memories m ON m.id = r.source_id JOIN memories p ON p.id = ? "
            f"WHERE r.target_id = p.id AND m.client = p.client AND ((r.type = 'merged_from' AND "
            f"p.superseded_by = m.id) OR (r.type = 'derived_from' AND {_CONSOLIDATED_FROM}))",
            (memory_id, memory_id)))
    return sorted(out - {row[0] for row in rows.values()})


def _reactivate_evidence(db: apsw.Connection, ids: set[str], now: datetime) -> int:
    """Statements consolidated into a purged semantic memory are its evidence, not copies: they stay,
    and become active again (otherwise they would be superseded by nothing, out of recall)."""
    count = 0
    for memory_id in ids:
        evidence = [i for (i,) in db.execute(
            "SELECT m.id FROM relations r JOIN memories m ON m.id = r.target_id WHERE r.source_id = ? "
            "AND r.type = 'derived_from' AND m.superseded_by = ? AND m.status = 'superseded'",
            (memory_id, memory_id)) if i not in ids]
        for member in evidence:
            db.execute("UPDATE memories SET status = 'active', superseded_by = NULL, updated_at = ? WHERE id = ?",
                       (to_db(now), member))
        count += len(evidence)
    return count


def _delete_memory(parts: Parts, db: apsw.Connection, row: tuple, removed: dict[str, int]) -> None:
    rowid, memory_id = row[0], row[1]
    removed["fts"] += keyword.delete(db, rowid)
    removed["vectors"] += _delete_vectors(parts, db, rowid)
    removed["entities"] += _changes(db, "DELETE FROM entity_index WHERE memory_rowid = ?", (rowid,))
    removed["relations"] += _changes(
        db, "DELETE FROM relations WHERE source_id = ? OR target_id = ?", (memory_id, memory_id))
    removed["events"] += _changes(db, "DELETE FROM events WHERE memory_id = ?", (memory_id,))
    db.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?", (memory_id,))
    removed["memories"] += _changes(db, "DELETE FROM memories WHERE rowid = ?", (rowid,))


def _delete_vectors(parts: Parts, db: apsw.Connection, rowid: int) -> int:
    """Zero and delete the vector in the engine's index(es), then in any other model's table still in
    the file (a retired model whose table was not dropped yet); drop it from the search caches now."""
    count = parts.vectors.delete(db, rowid)
    covered = set()
    for index in spaces.indexes(parts.vectors):
        index.discard_cached(rowid)
        covered.add(index.table)
    for num, dim in db.execute("SELECT num, dim FROM models").fetchall():
        table = f"vec_{num}"
        if table not in covered and spaces.table_exists(db, table):
            count += clear_vector(db, table, dim, rowid)
    return count


def _rederive(db: apsw.Connection, rowid: int, purged: dict[str, tuple]) -> None:
    """Entities and metadata of a memory that stays, derived again from its own text and from the
    relatives it still has, so nothing it took from a purged memory remains (FTS terms included)."""
    memory_id, content, layer, occurred_at, metadata_json, client = db.execute(
        "SELECT id, content, layer, occurred_at, metadata, client FROM memories WHERE rowid = ?", (rowid,)).fetchone()
    occurred = from_db(occurred_at)
    own = extract_entities(content, occurred)
    if layer == "semantic":  # a fact is not about any one day (as consolidation wrote it)
        own = [e for e in own if e.kind not in _UNDATED]
    evidence = json.loads(metadata_json).get("consolidated_from") or []
    relatives = [  # the purged ones' links are gone already: these are the relatives that stay
        (ents, meta, kind) for ents, meta, kind, rel_id, rel_client, superseded_by in db.execute(
            "SELECT m.entities, m.metadata, r.type, m.id, m.client, m.superseded_by FROM relations r "
            "JOIN memories m ON m.id = r.target_id WHERE r.source_id = ? AND r.type IN ('merged_from', "
            "'derived_from')", (memory_id,))
        if rel_client == client and (superseded_by == memory_id if kind == "merged_from" else rel_id in evidence)]
    entities: dict[tuple[str, str], Entity] = {(e.kind, e.value): e for e in own}
    for rel_entities, _, kind in relatives:
        for e in json.loads(rel_entities):
            if kind == "merged_from" or e["kind"] not in _UNDATED:
                entities.setdefault((e["kind"], e["value"]), Entity(**e))
    final = list(entities.values())
    metadata = _metadata_without(json.loads(metadata_json), purged,
                                 [json.loads(m) for _, m, kind in relatives if kind == "merged_from"])
    db.execute("UPDATE memories SET entities = ?, metadata = ? WHERE rowid = ?",
               (json.dumps([asdict(e) for e in final], ensure_ascii=False),
                json.dumps(metadata, ensure_ascii=False), rowid))
    db.execute("DELETE FROM entity_index WHERE memory_rowid = ?", (rowid,))
    if layer != "working":
        index_entities(db, rowid, final, occurred)
        keyword.delete(db, rowid)
        keyword.add(db, rowid, content, [(e.kind, e.value) for e in final], occurred)


def _metadata_without(metadata: dict[str, Any], purged: dict[str, tuple],
                      merged: list[dict[str, Any]]) -> dict[str, Any]:
    """Drop purged ids from `consolidated_from`, and the values a merge copied in from a purged memory
    (same key, same value; kept when a memory still merged into this one has it too)."""
    out = dict(metadata)
    if isinstance(out.get("consolidated_from"), list):
        out["consolidated_from"] = [i for i in out["consolidated_from"] if i not in purged]
    for row in purged.values():
        for key, value in json.loads(row[6]).items():
            if key not in ("consolidated_from", "method") and key in out and out[key] == value \
                    and not any(m.get(key) == value for m in merged):
                del out[key]
    return out


def _scrub_events(db: apsw.Connection, ids: set[str]) -> int:
    """Events of other memories that name a purged one (a merge, a supersession, a link): the id
    becomes "(purged)" and any text field an older version stored goes. Returns how many changed."""
    found: dict[int, str] = {}
    listed = sorted(ids)
    for start in range(0, len(listed), 500):  # SQLite caps the parameters of one statement
        chunk = listed[start:start + 500]
        named = " OR ".join(["instr(detail, ?) > 0"] * len(chunk))
        found.update(db.execute(f"SELECT id, detail FROM events WHERE {named}", chunk))
    for event_id, text in found.items():
        detail = {k: v for k, v in json.loads(text).items() if k not in LEGACY_TEXT_KEYS}
        clean = replace_ids(detail, ids)
        db.execute("UPDATE events SET detail = ? WHERE id = ?", (json.dumps(clean, ensure_ascii=False), event_id))
    return len(found)


def _forget_embeddings(embed: Any, texts: list[str]) -> None:
    """Drop cached embeddings of the purged texts from the recent-embeddings cache (context.EmbedCache)."""
    discard = getattr(embed, "discard", None)
    if discard is not None:
        discard([t for t in texts if t])


def _changes(db: apsw.Connection, sql: str, args: tuple) -> int:
    db.execute(sql, args)
    return db.changes()
