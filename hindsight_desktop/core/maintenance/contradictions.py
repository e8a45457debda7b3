"""Contradictions the write path could not see: same subject and attribute, different value.

The write path supersedes an older statement when a newer one arrives, but memories can become
active later without passing through it (an edit changes the text, a restore brings one back, an
import restores records as they were). This pass first refreshes the fact key of memories changed
since its last run, then resolves every group of active statements that disagree: the newest
statement (by when it was made: store/supersession.py) wins, the others are superseded and point to
it. Nothing is deleted.

Groups never cross a privacy boundary: shared memories form one group per fact; a client's private
memories are only compared with each other.
"""

from __future__ import annotations

from collections.abc import Iterator

import apsw

from hindsight_desktop.core.maintenance.passes import RunContext
from hindsight_desktop.core.store import meta, supersession, upkeep
from hindsight_desktop.core.store.memories import stored_fact
from hindsight_desktop.core.text.extract import fact_key

CHECKED_UNTIL = "reflect.facts_checked_until"


def contradictions_pass(ctx: RunContext) -> Iterator[None]:
    yield from _refresh_fact_keys(ctx)
    with ctx.parts.store.write() as db:
        # An older version let a private statement, or one dated ahead, supersede: such a fact is given back.
        supersession.repair(db, ctx.now_db, ctx.client)
    yield
    with ctx.parts.store.read() as db:
        groups = upkeep.contradicted_facts(db)
    for start in range(0, len(groups), ctx.policy.batch):
        with ctx.parts.store.write() as db:
            for key, group in groups[start : start + ctx.policy.batch]:
                _resolve(db, ctx, key, group)
        yield


def _refresh_fact_keys(ctx: RunContext) -> Iterator[None]:
    """Memories updated since the last run get their fact key recomputed from their current text.

    The cursor is (updated_at, rowid): an import stamps thousands of rows with one instant. The changed
    rows are listed once per run: nothing indexes updated_at, so asking again for every batch walked and
    sorted the whole table each time (75 s of a 100k-memory first run)."""
    with ctx.parts.store.read() as db:
        since, _, after = meta.get(db, CHECKED_UNTIL, "|0").partition("|")
        changed = upkeep.changed_since(db, since, int(after))
    for start in range(0, len(changed), ctx.policy.batch):
        chunk = changed[start : start + ctx.policy.batch]
        with ctx.parts.store.write() as db:
            # Still active now: a write in between may have superseded one.
            for row in upkeep.stated_facts(db, [c.rowid for c in chunk]):
                key, value = stored_fact(fact_key(row.content))
                if (key, value) != (row.fact_key, row.fact_value):
                    upkeep.set_fact(db, row.rowid, key, value)
            meta.put(db, CHECKED_UNTIL, f"{chunk[-1].updated_at}|{chunk[-1].rowid}")
        yield


def _resolve(db: apsw.Connection, ctx: RunContext, key: str, group: str) -> None:
    # Nothing to do when a write in another process resolved it meanwhile.
    for loser, winner in supersession.resolve(db, key, group, ctx.now_db, ctx.client, "contradiction"):
        ctx.count("contradictions")
        ctx.note("supersessions", {"winner": winner, "superseded": loser, "fact": key})
