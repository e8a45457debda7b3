"""Fading: strength falls with time since last use, spaced use strengthens, faded memories and memories
over a client's cap move to cold storage (archived, restorable), expired working memory is dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import apsw

from hindsight_desktop.core.passes import RunContext, scan
from hindsight_desktop.core.policy import MaintenancePolicy
from hindsight_desktop.core.rows import log_event
from hindsight_desktop.core.timeutil import from_db, to_db


def record_access(db: apsw.Connection, ids: list[str], now: datetime, policy: MaintenancePolicy) -> None:
    """A use: resets the fading clock and, when it comes after a gap, makes the memory fade more slowly.

    Uses in one sitting (within the spacing) count once, as in spaced-repetition learning.
    """
    spaced = to_db(now - timedelta(days=policy.reinforce_spacing_days))
    db.executemany(
        "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?1, "
        "stability = CASE WHEN coalesce(reviewed_at, created_at) <= ?2 THEN min(?3, stability * ?4) "
        "ELSE stability END, "
        "reviewed_at = CASE WHEN coalesce(reviewed_at, created_at) <= ?2 THEN ?1 ELSE reviewed_at END "
        "WHERE id = ?5",
        [(to_db(now), spaced, policy.max_stability, policy.reinforce_growth, mid) for mid in ids],
    )


def drop_expired(ctx: RunContext) -> Iterator[None]:
    """Working memory past its expiry is deleted (it was never long-term memory)."""
    while True:
        with ctx.parts.store.write() as db:
            db.execute("DELETE FROM memories WHERE rowid IN (SELECT rowid FROM memories WHERE layer = 'working' "
                       "AND expires_at < ? LIMIT ?)", (ctx.now_db, ctx.policy.batch))
            removed = db.changes()
        ctx.count("expired_working", removed)
        yield
        if removed < ctx.policy.batch:
            return


def archive_faded(ctx: RunContext) -> Iterator[None]:
    """Unpinned memories unused for the policy's days whose strength fell under the floor."""
    policy = ctx.policy
    cutoff = to_db(ctx.now - timedelta(days=policy.archive_after_days))

    def handle(db: apsw.Connection, rows: list[tuple]) -> None:
        for rowid, memory_id, importance, layer, stability, last_used in rows:
            idle = (ctx.now - from_db(last_used)).total_seconds() / 86400
            if policy.fades(importance, layer, stability, idle):
                _archive(db, rowid, memory_id, ctx, "faded")
                ctx.count("archived")

    yield from scan(
        ctx, "faded",
        "SELECT m.rowid, m.id, m.importance, m.layer, m.stability, coalesce(m.last_accessed_at, m.created_at) "
        # NOT INDEXED: walk by rowid from the cursor. Through the status index SQLite would read and sort
        # every active memory for each batch (580 ms a batch at 100k memories, against 2 ms).
        "FROM memories m NOT INDEXED WHERE m.status = 'active' AND m.pinned = 0 AND m.layer != 'working' "
        "AND coalesce(m.last_accessed_at, m.created_at) < ? AND m.rowid > ? ORDER BY m.rowid LIMIT ?",
        (cutoff,), handle)


def enforce_capacity(ctx: RunContext) -> Iterator[None]:
    """Over a client's cap, the weakest (least important, least recently used) active memories are archived."""
    cap = ctx.policy.capacity_per_client
    if cap <= 0:
        return
    strength = ctx.policy.strength_sql()
    with ctx.parts.store.read() as db:
        over = db.execute("SELECT client, count(*) - ? FROM memories WHERE status = 'active' "
                          "AND layer != 'working' AND pinned = 0 GROUP BY client HAVING count(*) > ?",
                          (cap, cap)).fetchall()
    for owner, excess in over:
        while excess > 0:
            with ctx.parts.store.write() as db:
                rows = db.execute(
                    f"SELECT m.rowid, m.id FROM memories m WHERE m.client = ? AND m.status = 'active' "
                    f"AND m.layer != 'working' AND m.pinned = 0 ORDER BY {strength} ASC, m.rowid ASC LIMIT ?",
                    (owner, ctx.now_db, min(excess, ctx.policy.batch))).fetchall()
                for rowid, memory_id in rows:
                    _archive(db, rowid, memory_id, ctx, "capacity")
            ctx.count("capacity_archived", len(rows))
            excess = excess - len(rows) if rows else 0
            yield


def _archive(db: apsw.Connection, rowid: int, memory_id: str, ctx: RunContext, why: str) -> None:
    db.execute("UPDATE memories SET status = 'archived', updated_at = ? WHERE rowid = ?", (ctx.now_db, rowid))
    log_event(db, ctx.now_db, "forget", memory_id, ctx.client, {"mode": "archive", "why": why})
