"""Fading: strength falls with time since last use, spaced use strengthens, faded memories and memories
over a client's cap move to cold storage (archived, restorable), expired working memory is dropped.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta

import apsw

from hindsight_desktop.core.maintenance.passes import RunContext, scan, stored_time
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy
from hindsight_desktop.core.store import upkeep
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.upkeep import FadeCandidate
from hindsight_desktop.core.timeutil import to_db


def record_access(db: apsw.Connection, ids: list[str], now: datetime, policy: MaintenancePolicy) -> None:
    """A use: resets the fading clock and, when it comes after a gap, makes the memory fade more slowly.

    Uses in one sitting (within the spacing) count once, as in spaced-repetition learning.
    """
    spaced = to_db(now - timedelta(days=policy.reinforce_spacing_days))
    upkeep.record_uses(db, ids, to_db(now), spaced, policy.max_stability, policy.reinforce_growth)


def drop_expired(ctx: RunContext) -> Iterator[None]:
    """Working memory past its expiry is deleted (it was never long-term memory)."""
    while True:
        with ctx.parts.store.write() as db:
            removed = upkeep.drop_expired_working(db, ctx.now_db, ctx.policy.batch)
        ctx.count("expired_working", removed)
        yield
        if removed < ctx.policy.batch:
            return


def archive_faded(ctx: RunContext) -> Iterator[None]:
    """Unpinned memories unused for the policy's days whose strength fell under the floor."""
    policy = ctx.policy
    cutoff = to_db(ctx.now - timedelta(days=policy.archive_after_days))

    def fetch(db: apsw.Connection, after: int, limit: int) -> list[FadeCandidate]:
        return upkeep.fade_candidates(db, cutoff, after, limit)

    def handle(db: apsw.Connection, rows: Sequence[FadeCandidate]) -> None:
        for row in rows:
            idle = (ctx.now - stored_time(row.last_used)).total_seconds() / 86400
            if policy.fades(row.importance, row.layer, row.stability, idle):
                _archive(db, row.rowid, row.id, ctx, "faded")
                ctx.count("archived")

    yield from scan(ctx, "faded", fetch, handle)


def enforce_capacity(ctx: RunContext) -> Iterator[None]:
    """Over a client's cap, the weakest (least important, least recently used) active memories are archived."""
    cap = ctx.policy.capacity_per_client
    if cap <= 0:
        return
    policy = ctx.policy
    with ctx.parts.store.read() as db:
        over = upkeep.over_capacity(db, cap)
    for owner, excess in over:
        while excess > 0:
            with ctx.parts.store.write() as db:
                rows = upkeep.weakest(
                    db, owner, ctx.now_db, min(excess, policy.batch), policy.half_life_days, policy.layer_factors
                )
                for rowid, memory_id in rows:
                    _archive(db, rowid, memory_id, ctx, "capacity")
            ctx.count("capacity_archived", len(rows))
            excess = excess - len(rows) if rows else 0
            yield


def _archive(db: apsw.Connection, rowid: int, memory_id: str, ctx: RunContext, why: str) -> None:
    upkeep.archive(db, [rowid], ctx.now_db)
    log_event(db, ctx.now_db, "forget", memory_id, ctx.client, {"mode": "archive", "why": why})
