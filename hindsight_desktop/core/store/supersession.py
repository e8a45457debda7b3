"""Supersession, written once: which statement of a fact is current, and what happens to the ones it
replaced when it leaves (forget, purge) or comes back (restore, undo of a forget).

The rule every path keeps (the write path, event facts, imports through the pipeline, maintenance):
statements are compared only inside one privacy group (visibility.group_of): a shared statement
with shared ones, a client's private statement with that client's private ones. So a private write
never hides, or tells of, what others see, and no client's private words decide what another reads.
Inside a group the statement made latest wins (visibility.STATED_AT: the time it happened, never
later than when it was written; ties go to the one stored last); the others stay, superseded.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import apsw

from hindsight_desktop.core.store import relations, upkeep
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.memories import reactivate, supersede
from hindsight_desktop.core.store.visibility import group_of, privacy_group, stated_at


class Replaced(NamedTuple):
    loser: str
    winner: str


def resolve(
    db: apsw.Connection,
    fact_key: str,
    group: str,
    at: str,
    client: str,
    why: str,
    excluding: frozenset[str] = frozenset(),
) -> list[Replaced]:
    """Make the latest statement of `fact_key` in `group` the current one: every other active
    statement with a different value is superseded by it (a link and an event say so). Memories in
    `excluding` (leaving right now) take no part."""
    rows = [row for row in upkeep.claims(db, fact_key, group) if row.id not in excluding]
    if len({row.fact_value for row in rows}) < 2:
        return []
    winner, value = rows[0]
    replaced = [Replaced(loser, winner) for loser, other in rows[1:] if other != value]
    for loser, _ in replaced:
        supersede(db, loser, winner, at)
        relations.link(db, winner, loser, "supersedes", 1.0, at, replace=True)
        # Ids only: the values are the memories' text, which a purge must take with it.
        log_event(db, at, "supersede", loser, client, {"superseded_by": winner, "why": why})
    return replaced


def replace_changed(db: apsw.Connection, winner: str, loser: str, group: str, at: str, client: str) -> list[Replaced]:
    """`winner` says that what `loser` stated has changed (write/gate_change.py: the same thing in other
    words, and a change said), with no fact key to tie them: it supersedes `loser` when both are in
    `group` and `winner` was stated later. Returns what it replaced."""
    row = db.execute(
        f"SELECT {privacy_group('o')}, {stated_at('o')} < {stated_at('n')} FROM memories o, memories n "
        "WHERE o.id = ? AND n.id = ? AND o.status = 'active'",
        (loser, winner),
    ).fetchone()
    if row is None or row[0] != group or not row[1]:
        return []
    supersede(db, loser, winner, at)
    relations.link(db, winner, loser, "supersedes", 1.0, at, replace=True)
    log_event(db, at, "supersede", loser, client, {"superseded_by": winner, "why": "a statement that it changed"})
    return [Replaced(loser, winner)]


def release(db: apsw.Connection, leaving: Iterable[str], at: str, client: str, why: str) -> list[str]:
    """The memories `leaving` replaced (by a contradiction, or as consolidated evidence) become current
    again, unless a statement still standing in their group replaces them. Called when the successors
    are archived by a forget or about to be purged; returns the ids made active."""
    gone = frozenset(leaving)
    return _free(db, upkeep.replaced_by(db, gone), at, client, why, gone)


def repair(db: apsw.Connection, at: str, client: str) -> list[str]:
    """Undo supersessions made before the rules above held: across privacy groups (a client's private
    statement over a shared fact), or won by a claimed time after the successor's own writing. The
    replaced memory is current again unless a statement of its own group still replaces it (a wrongly
    winning one is then superseded by it). Returns the ids made active."""
    return _free(db, upkeep.misjudged_supersessions(db), at, client, "its successor should not have replaced it")


def _free(
    db: apsw.Connection,
    freed: list[upkeep.Freed],
    at: str,
    client: str,
    why: str,
    excluding: frozenset[str] = frozenset(),
) -> list[str]:
    for row in freed:
        reactivate(db, row.id, at)
        log_event(db, at, "restore", row.id, client, {"from": "superseded", "why": why, "successor": row.successor})
    for key, group in sorted({(r.fact_key, group_of(r.scope, r.client)) for r in freed if r.fact_key}):
        resolve(db, key, group, at, client, "a newer statement still stands", excluding)
    return [row.id for row in freed]


def reclaim(db: apsw.Connection, returning: Iterable[str], at: str, client: str) -> list[Replaced]:
    """Memories back from the archive take their place again: each one's fact is resolved in its group
    (a restored successor supersedes again what its forgetting had made current), and a consolidated
    fact takes back the statements it held as evidence that are active and evidence of nothing else."""
    replaced: list[Replaced] = []
    for memory_id in returning:
        row = upkeep.fact_of(db, memory_id)
        if row is None or row.status != "active":
            continue
        for member in upkeep.free_evidence(db, memory_id):
            supersede(db, member, memory_id, at)
            log_event(db, at, "supersede", member, client, {"superseded_by": memory_id, "why": "its fact was restored"})
            replaced.append(Replaced(member, memory_id))
        if row.fact_key:
            replaced += resolve(db, row.fact_key, group_of(row.scope, row.client), at, client, "a restored statement")
    return replaced
