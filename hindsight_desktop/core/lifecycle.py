"""Maintenance ("reflect"): drop expired working memory, archive what faded, merge near-duplicates,
enforce capacity, and repair the indexes. Work is done in bounded batches; the duplicate pass keeps a
cursor in the meta table so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import apsw

from hindsight_desktop.core import keyword
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.rows import log_event
from hindsight_desktop.core.timeutil import from_db, to_db

BATCH = 200
DUP_CURSOR = "reflect.duplicate_cursor"


def reflect(parts: Parts, client: str) -> dict[str, Any]:
    started = time.perf_counter()
    report = {"expired_working": _drop_expired(parts), "archived": _archive_faded(parts, client),
              "merged": _merge_duplicates(parts, client), "capacity_archived": _enforce_capacity(parts, client)}
    report.update(_repair(parts))
    report["seconds"] = round(time.perf_counter() - started, 3)
    with parts.store.write() as db:
        log_event(db, to_db(parts.clock()), "reflect", None, client, report)
    return report


def _drop_expired(parts: Parts) -> int:
    with parts.store.write() as db:
        db.execute("DELETE FROM memories WHERE layer = 'working' AND expires_at < ?", (to_db(parts.clock()),))
        return db.changes()


def _archive_faded(parts: Parts, client: str) -> int:
    """Unpinned memories unused for N days and below the importance floor go to cold storage."""
    s = parts.settings
    now = parts.clock()
    cutoff = to_db(now - timedelta(days=s.archive_after_days))
    total = 0
    while True:
        with parts.store.write() as db:
            rows = db.execute(
                "SELECT rowid, id FROM memories WHERE status = 'active' AND pinned = 0 AND layer != 'working' "
                "AND importance < ? AND coalesce(last_accessed_at, created_at) < ? LIMIT ?",
                (s.archive_importance_floor, cutoff, BATCH)).fetchall()
            for rowid, memory_id in rows:
                db.execute("UPDATE memories SET status = 'archived', updated_at = ? WHERE rowid = ?",
                           (to_db(now), rowid))
                log_event(db, to_db(now), "forget", memory_id, client, {"mode": "archive", "why": "faded"})
        total += len(rows)
        if len(rows) < BATCH:
            return total


def _merge_duplicates(parts: Parts, client: str) -> int:
    """Near-duplicate active memories become one: the survivor keeps links, access counts and entities."""
    merged = 0
    while True:
        with parts.store.write() as db:
            cursor = int(_meta(db, DUP_CURSOR, "0"))
            rows = db.execute("SELECT rowid FROM memories WHERE rowid > ? AND status = 'active' "
                              "AND layer != 'working' ORDER BY rowid LIMIT ?", (cursor, BATCH)).fetchall()
            for (rowid,) in rows:
                merged += _merge_one(parts, db, rowid, client)
            if rows:
                _set_meta(db, DUP_CURSOR, str(rows[-1][0]))
        if len(rows) < BATCH:
            return merged


def _merge_one(parts: Parts, db: apsw.Connection, rowid: int, client: str) -> int:
    mine = parts.vectors.vectors(db, [rowid]).get(rowid)
    if mine is None:
        return 0
    me = db.execute("SELECT id, client, scope, status FROM memories WHERE rowid = ?", (rowid,)).fetchone()
    if me is None or me[3] != "active":
        return 0
    count = 0
    for other_rowid, similarity in parts.vectors.nearest(db, mine, 4):
        if other_rowid == rowid or similarity < parts.settings.duplicate_similarity:
            continue
        other = db.execute("SELECT id, client, scope, status FROM memories WHERE rowid = ?",
                           (other_rowid,)).fetchone()
        # Never merge across privacy boundaries: a private memory only merges with its own client's.
        if other is None or other[3] != "active" or (other[1], other[2]) != (me[1], me[2]):
            continue
        _absorb(db, survivor=me[0], absorbed=other[0], client=client, now=to_db(parts.clock()))
        count += 1
    return count


def _absorb(db: apsw.Connection, survivor: str, absorbed: str, client: str, now: str) -> None:
    s_row = db.execute("SELECT entities, access_count, importance FROM memories WHERE id = ?", (survivor,)).fetchone()
    a_row = db.execute("SELECT entities, access_count, importance FROM memories WHERE id = ?", (absorbed,)).fetchone()
    entities = json.loads(s_row[0])
    entities += [e for e in json.loads(a_row[0]) if e not in entities]
    db.execute("UPDATE memories SET entities = ?, access_count = ?, importance = ?, updated_at = ? WHERE id = ?",
               (json.dumps(entities, ensure_ascii=False), s_row[1] + a_row[1], max(s_row[2], a_row[2]), now,
                survivor))
    # Links of the absorbed memory now point at the survivor.
    db.execute("INSERT OR IGNORE INTO relations (source_id, target_id, type, strength, created_at) "
               "SELECT ?, target_id, type, strength, created_at FROM relations WHERE source_id = ? AND target_id != ?",
               (survivor, absorbed, survivor))
    db.execute("INSERT OR IGNORE INTO relations (source_id, target_id, type, strength, created_at) "
               "SELECT source_id, ?, type, strength, created_at FROM relations WHERE target_id = ? AND source_id != ?",
               (survivor, absorbed, survivor))
    db.execute("UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE id = ?",
               (survivor, now, absorbed))
    db.execute("INSERT OR REPLACE INTO relations (source_id, target_id, type, strength, created_at) "
               "VALUES (?, ?, 'merged_from', 1.0, ?)", (survivor, absorbed, now))
    log_event(db, now, "merge", survivor, client, {"absorbed": absorbed})


def _enforce_capacity(parts: Parts, client: str) -> int:
    cap = parts.settings.capacity_per_client
    if cap <= 0:
        return 0
    now = to_db(parts.clock())
    total = 0
    with parts.store.write() as db:
        over = db.execute("SELECT client, count(*) - ? FROM memories WHERE status = 'active' AND layer != 'working' "
                          "AND pinned = 0 GROUP BY client HAVING count(*) > ?", (cap, cap)).fetchall()
        for owner, excess in over:
            rows = db.execute(
                "SELECT rowid, id FROM memories WHERE client = ? AND status = 'active' AND layer != 'working' "
                "AND pinned = 0 ORDER BY importance ASC, coalesce(last_accessed_at, created_at) ASC LIMIT ?",
                (owner, excess)).fetchall()
            for rowid, memory_id in rows:
                db.execute("UPDATE memories SET status = 'archived', updated_at = ? WHERE rowid = ?", (now, rowid))
                log_event(db, now, "forget", memory_id, client, {"mode": "archive", "why": "capacity"})
            total += len(rows)
    return total


def _repair(parts: Parts) -> dict[str, int]:
    """Index rows whose memory is gone are removed; memories missing from an index are re-indexed."""
    table = parts.vectors.table
    with parts.store.write() as db:
        orphans = [r for (r,) in db.execute(
            f"SELECT rowid FROM {table} WHERE rowid NOT IN "
            "(SELECT rowid FROM memories WHERE layer != 'working')")]
        for rowid in orphans:
            parts.vectors.delete(db, rowid)
        fts_orphans = [r for (r,) in db.execute(
            "SELECT rowid FROM fts_words WHERE rowid NOT IN (SELECT rowid FROM memories WHERE layer != 'working')")]
        for rowid in fts_orphans:
            keyword.delete(db, rowid)
        missing = db.execute(
            f"SELECT rowid, content, entities, occurred_at FROM memories WHERE layer != 'working' AND "
            f"(rowid NOT IN (SELECT rowid FROM {table}) OR rowid NOT IN (SELECT rowid FROM fts_words))").fetchall()
        db.execute("DELETE FROM relations WHERE source_id NOT IN (SELECT id FROM memories) "
                   "OR target_id NOT IN (SELECT id FROM memories)")
        dead_links = db.changes()
    repaired = 0
    for rowid, content, entities, occurred in missing:
        vector = parts.embed([content])[0]
        with parts.store.write() as db:
            keyword.delete(db, rowid)
            pairs = [(e["kind"], e["value"]) for e in json.loads(entities)]
            keyword.add(db, rowid, content, pairs, from_db(occurred))
            parts.vectors.add(db, rowid, vector)
        repaired += 1
    return {"orphan_index_rows": len(orphans) + len(fts_orphans), "repaired": repaired, "dead_links": dead_links}


def _meta(db: apsw.Connection, key: str, default: str) -> str:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def _set_meta(db: apsw.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
