"""Merging near-duplicates: the survivor keeps the union of what both had; the other is superseded.

Nothing is deleted: the absorbed memory stays (status superseded, pointing at the survivor), its
events stay under its own id, and a `merged_from` link plus a `merge` event record what happened.
"""

from __future__ import annotations

import json

import apsw

from hindsight_desktop.core import overlap
from hindsight_desktop.core.passes import RunContext
from hindsight_desktop.core.rows import log_event

_FIELDS = "rowid, id, entities, access_count, importance, pinned, last_accessed_at, stability, metadata, content"


def candidates(db: apsw.Connection, me: tuple, text: str, neighbours: list[tuple[int, float]],
               threshold: float) -> list[tuple[int, float]]:
    """Neighbours close enough to merge with `me` (rowid, client, scope, layer) whose text is `text`:
    same layer, never across a privacy boundary (a private memory merges only with its own client's),
    and saying the same thing in nearly the same words with the same numbers (a model may place "I
    live in Beijing" next to "I live in Shanghai"; those are a contradiction, not a duplicate)."""
    rowid, client, scope, layer = me
    out = []
    for other, similarity in neighbours:
        if other == rowid or similarity < threshold:
            continue
        row = db.execute("SELECT client, scope, layer, status, content FROM memories WHERE rowid = ?",
                         (other,)).fetchone()
        if row is not None and row[3] == "active" and (row[0], row[1], row[2]) == (client, scope, layer) \
                and overlap.same_statement(text, row[4]):
            out.append((other, similarity))
    return out


def absorb(db: apsw.Connection, ctx: RunContext, survivor_rowid: int, absorbed_rowid: int,
           similarity: float) -> None:
    s = db.execute(f"SELECT {_FIELDS} FROM memories WHERE rowid = ?", (survivor_rowid,)).fetchone()
    a = db.execute(f"SELECT {_FIELDS} FROM memories WHERE rowid = ?", (absorbed_rowid,)).fetchone()
    survivor, absorbed, now = s[1], a[1], ctx.now_db
    entities = json.loads(s[2])
    entities += [e for e in json.loads(a[2]) if e not in entities]
    metadata = {**json.loads(a[8]), **json.loads(s[8])}  # the survivor's own values win
    last_used = max((t for t in (s[6], a[6]) if t), default=None)
    db.execute(
        "UPDATE memories SET entities = ?, access_count = ?, importance = ?, pinned = ?, last_accessed_at = ?, "
        "stability = ?, metadata = ?, updated_at = ? WHERE rowid = ?",
        (json.dumps(entities, ensure_ascii=False), s[3] + a[3], max(s[4], a[4]), max(s[5], a[5]), last_used,
         max(s[7], a[7]), json.dumps(metadata, ensure_ascii=False), now, survivor_rowid))
    db.execute("INSERT OR IGNORE INTO entity_index (value, kind, memory_rowid) "
               "SELECT value, kind, ? FROM entity_index WHERE memory_rowid = ?", (survivor_rowid, absorbed_rowid))
    _move_links(db, survivor, absorbed)
    db.execute("UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE rowid = ?",
               (survivor, now, absorbed_rowid))
    db.execute("INSERT OR REPLACE INTO relations (source_id, target_id, type, strength, created_at) "
               "VALUES (?, ?, 'merged_from', ?, ?)", (survivor, absorbed, round(similarity, 4), now))
    # Ids and sizes only: the absorbed text stays in its own row, so a purge of it leaves no copy here.
    log_event(db, now, "merge", survivor, ctx.client,
              {"absorbed": absorbed, "similarity": round(similarity, 4), "absorbed_chars": len(a[9])})
    ctx.count("merged")
    ctx.note("merges", {"survivor": survivor, "absorbed": absorbed, "similarity": round(similarity, 4)})


def _move_links(db: apsw.Connection, survivor: str, absorbed: str) -> None:
    """Links of the absorbed memory now also point at the survivor (the originals stay as history)."""
    db.execute("INSERT OR IGNORE INTO relations (source_id, target_id, type, strength, created_at) "
               "SELECT ?, target_id, type, strength, created_at FROM relations "
               "WHERE source_id = ? AND target_id != ?", (survivor, absorbed, survivor))
    db.execute("INSERT OR IGNORE INTO relations (source_id, target_id, type, strength, created_at) "
               "SELECT source_id, ?, type, strength, created_at FROM relations "
               "WHERE target_id = ? AND source_id != ?", (survivor, absorbed, survivor))
