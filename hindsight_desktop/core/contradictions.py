"""Contradictions the write path could not see: same subject and attribute, different value.

The write path supersedes an older statement when a newer one arrives, but memories can become
active later without passing through it (an edit changes the text, a restore brings one back, an
import restores records as they were). This pass first refreshes the fact key of memories changed
since its last run, then resolves every group of active statements that disagree: the newest
statement (by when it happened) wins, the others are superseded and point to it. Nothing is deleted.

Groups never cross a privacy boundary: shared memories form one group per fact; a client's private
memories are only compared with each other.
"""

from __future__ import annotations

from collections.abc import Iterator

import apsw

from hindsight_desktop.core.extract import fact_key
from hindsight_desktop.core.passes import RunContext, get_meta, set_meta
from hindsight_desktop.core.rows import log_event

CHECKED_UNTIL = "reflect.facts_checked_until"
_GROUP = "CASE WHEN scope = 'shared' THEN 'shared' ELSE 'private:' || client END"


def contradictions_pass(ctx: RunContext) -> Iterator[None]:
    yield from _refresh_fact_keys(ctx)
    with ctx.parts.store.read() as db:
        groups = db.execute(
            f"SELECT fact_key, {_GROUP} FROM memories WHERE status = 'active' AND layer != 'working' "
            f"AND fact_key IS NOT NULL GROUP BY fact_key, {_GROUP} HAVING count(DISTINCT fact_value) > 1").fetchall()
    for start in range(0, len(groups), ctx.policy.batch):
        with ctx.parts.store.write() as db:
            for key, group in groups[start:start + ctx.policy.batch]:
                _resolve(db, ctx, key, group)
        yield


def _refresh_fact_keys(ctx: RunContext) -> Iterator[None]:
    """Memories updated since the last run get their fact key recomputed from their current text.

    The cursor is (updated_at, rowid): an import stamps thousands of rows with one instant. The changed
    rows are listed once per run: nothing indexes updated_at, so asking again for every batch walked and
    sorted the whole table each time (75 s of a 100k-memory first run)."""
    with ctx.parts.store.read() as db:
        since, _, after = get_meta(db, CHECKED_UNTIL, "|0").partition("|")
        changed = db.execute(
            "SELECT updated_at, rowid FROM memories WHERE (updated_at > ?1 OR (updated_at = ?1 AND rowid > ?2)) "
            "AND status = 'active' AND layer != 'working' ORDER BY updated_at, rowid", (since, int(after))).fetchall()
    for start in range(0, len(changed), ctx.policy.batch):
        chunk = changed[start:start + ctx.policy.batch]
        with ctx.parts.store.write() as db:
            marks = ",".join("?" * len(chunk))
            rows = db.execute(  # still active now: a write in between may have superseded one
                f"SELECT rowid, content, fact_key, fact_value FROM memories NOT INDEXED WHERE rowid IN ({marks}) "
                f"AND status = 'active' AND layer != 'working'", [rowid for _, rowid in chunk]).fetchall()
            for rowid, content, old_key, old_value in rows:
                found = fact_key(content)
                key, value = (f"{found[0]}|{found[1]}", found[2]) if found else (None, None)
                if (key, value) != (old_key, old_value):
                    db.execute("UPDATE memories SET fact_key = ?, fact_value = ? WHERE rowid = ?", (key, value, rowid))
            set_meta(db, CHECKED_UNTIL, f"{chunk[-1][0]}|{chunk[-1][1]}")
        yield


def _resolve(db: apsw.Connection, ctx: RunContext, key: str, group: str) -> None:
    rows = db.execute(
        # INDEXED BY: left to itself the planner walks the (status, occurred_at) index to skip the sort,
        # that is every active memory for each fact (29 ms a group at 30k memories, against 1 ms).
        f"SELECT id, fact_value FROM memories INDEXED BY memories_fact WHERE status = 'active' "
        f"AND layer != 'working' AND fact_key = ? AND {_GROUP} = ? ORDER BY occurred_at DESC, rowid DESC",
        (key, group)).fetchall()
    if len({value for _, value in rows}) < 2:
        return  # resolved meanwhile by a write in another process
    winner, winning_value = rows[0]
    for loser, value in rows[1:]:
        if value == winning_value:
            continue  # the same statement again: a duplicate, not a contradiction
        db.execute("UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE id = ?",
                   (winner, ctx.now_db, loser))
        db.execute("INSERT OR REPLACE INTO relations (source_id, target_id, type, strength, created_at) "
                   "VALUES (?, ?, 'supersedes', 1.0, ?)", (winner, loser, ctx.now_db))
        # No fact wording or values: they are the memories' text, which a purge must take with it.
        log_event(db, ctx.now_db, "supersede", loser, ctx.client, {"superseded_by": winner, "why": "contradiction"})
        ctx.count("contradictions")
        ctx.note("supersessions", {"winner": winner, "superseded": loser, "fact": key})
