"""Applying another device's changes to this memory file.

The rules (docs/ARCHITECTURE.md, "Sync"): for each group of columns of a memory, the change with the
larger (clock, device id) wins; a purge's tombstone wins over everything and is final; a link's last
change wins. Applying a change twice, or changes in any order, gives the same memory. The text of a
concurrent edit that lost is kept in the memory's history (an event, filed under the memory, so a purge
removes it too). What is derived is rebuilt here: keyword rows, entity index, vectors.
Runs inside the caller's write transaction with capture off (this device must not log them again).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

import apsw
import numpy as np

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.identities import SYSTEM
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.maintenance import purge as purging
from hindsight_desktop.core.records import Entity
from hindsight_desktop.core.store import entities as entity_index
from hindsight_desktop.core.store import sync_state
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.sync_capture import GROUPS
from hindsight_desktop.core.store.vectors import VectorIndex
from hindsight_desktop.core.sync.wire import Change, Clock
from hindsight_desktop.core.timeutil import from_db, to_db

CONFLICT_EVENT = "sync-conflict"
_REBUILD = ("content", "layer", "origin")  # groups whose change means the derived rows are rebuilt


@dataclass
class Merged:
    applied: int = 0  # changes that changed something here
    purged: set[str] = field(default_factory=set)
    conflicts: int = 0


def usable_vector(parts: Parts, change: Change) -> np.ndarray | None:
    """The carried vector, when it came from the model this file uses (else the text is embedded here)."""
    if not isinstance(parts.vectors, VectorIndex) or change.vector is None or change.model != parts.model_id:
        return None
    if len(change.vector) != parts.vectors.dim * 4:
        return None
    return np.frombuffer(change.vector, dtype=np.float32).copy()


def texts_to_embed(parts: Parts, changes: list[Change]) -> list[str]:
    return list(
        dict.fromkeys(
            c.body["content"]
            for c in changes
            if c.kind == "memory" and isinstance(c.body.get("content"), str) and usable_vector(parts, c) is None
        )
    )


def apply(
    parts: Parts, db: apsw.Connection, changes: list[Change], vectors: dict[str, np.ndarray], now: datetime
) -> Merged:
    """Merge `changes` (one file's) into the memory file; `vectors` embeds the texts that need it."""
    merged = Merged()
    for change in changes:
        for stamp, _device in change.clocks.values():
            sync_state.observe_clock(db, stamp)
        if change.kind == "purge":
            _purge(parts, db, change, now, merged)
        elif change.kind == "memory":
            _memory(parts, db, change, vectors, now, merged)
        else:
            _link(db, change, merged)
    sync_state.point_superseded(db)
    sync_state.materialize_links(db)
    return merged


def _purge(parts: Parts, db: apsw.Connection, change: Change, now: datetime, merged: Merged) -> None:
    before = sync_state.version(db, change.memory_id)
    if before is not None and before.purged is not None:
        return
    stamp = change.clocks["purge"][0]
    found = sync_state.memory_row(db, change.memory_id)
    gone = [change.memory_id]
    if found is not None:
        receipt = purging.purge(parts, db, [(found[0], change.memory_id)], SYSTEM, now)
        gone += [m for m in receipt.forgotten if m != change.memory_id]
    for memory_id in gone:
        sync_state.save_version(db, memory_id, sync_state.Version({}, None, stamp))
        sync_state.drop_link_states_of(db, memory_id)
        if memory_id != change.memory_id:
            # A copy purged with it here (merged into it): its tombstone travels from here too.
            sync_state.log_purge(db, memory_id, stamp)
    merged.purged.update(gone)
    merged.applied += 1


def _memory(
    parts: Parts,
    db: apsw.Connection,
    change: Change,
    vectors: dict[str, np.ndarray],
    now: datetime,
    merged: Merged,
) -> None:
    before = sync_state.version(db, change.memory_id)
    if before is not None and before.purged is not None:
        return  # purged here: nothing brings it back
    local = sync_state.memory_row(db, change.memory_id)
    mine: dict[str, Clock] = dict(before.clocks) if before else {}
    wins = [g for g in GROUPS if g in change.clocks and (g not in mine or change.clocks[g] > mine[g])]
    if not wins and local is not None:
        _maybe_keep_loser(db, change, mine, local[1], now, merged)
        return
    body = change.body
    superseded_by = body.get("superseded_by") if "status" in wins or before is None else before.superseded_by
    clocks = dict(mine)
    for group in wins:
        clocks[group] = change.clocks[group]
    if "content" in wins and "content_base" in change.clocks:
        clocks["content_base"] = change.clocks["content_base"]
    elif "content" in wins:
        clocks.pop("content_base", None)
    values = {c: body.get(c) for g in (GROUPS if local is None else wins) for c in GROUPS[g]}
    if "superseded_by" in values:
        values["superseded_by"] = superseded_by if sync_state.existing(db, [superseded_by or ""]) else None
    if local is None:
        rowid = sync_state.insert_memory(db, change.memory_id, values)
    else:
        rowid = local[0]
        if "content" in wins:
            _maybe_keep_displaced(db, change, mine, local[1], now, merged)
        sync_state.update_memory(db, rowid, values)
    sync_state.save_version(db, change.memory_id, sync_state.Version(clocks, superseded_by, None))
    if local is None or any(g in wins for g in _REBUILD):
        _rebuild(parts, db, rowid, change, vectors, fresh=local is None)
    merged.applied += 1


def _rebuild(
    parts: Parts, db: apsw.Connection, rowid: int, change: Change, vectors: dict[str, np.ndarray], fresh: bool
) -> None:
    row = sync_state.memory_row(db, change.memory_id)
    assert row is not None
    values = row[1]
    if not fresh:
        keyword.delete(db, rowid)
        entity_index.unindex(db, rowid)
        parts.vectors.delete(db, rowid)
    if values["layer"] == "working":
        return
    occurred = from_db(values["occurred_at"])
    found = [Entity(**e) for e in json.loads(values["entities"] or "[]")]
    keyword.add(db, rowid, values["content"], [(e.kind, e.value) for e in found], occurred)
    vector = usable_vector(parts, change) if change.body.get("content") == values["content"] else None
    if vector is None:
        vector = vectors.get(values["content"])
    if vector is None:
        vector = parts.embed([values["content"]])[0]
    parts.vectors.add(db, rowid, vector)
    entity_index.index(db, rowid, found, occurred)


def _concurrent(edit: Clock, base: Clock | None, other: Clock) -> bool:
    """Whether `edit` was made without `other` in view: its device's text before it was older."""
    return base is None or base < other


def _maybe_keep_displaced(
    db: apsw.Connection, change: Change, mine: dict[str, Clock], local: dict, now: datetime, merged: Merged
) -> None:
    """The remote text wins; the local one it replaces is kept in history when the two were concurrent."""
    here = mine.get("content")
    if here is None or local["content"] == change.body.get("content"):
        return
    if _concurrent(change.clocks["content"], change.clocks.get("content_base"), here):
        _keep(db, change.memory_id, local["content"], here, now, merged)


def _maybe_keep_loser(
    db: apsw.Connection, change: Change, mine: dict[str, Clock], local: dict, now: datetime, merged: Merged
) -> None:
    """The local text wins; the remote one is kept in history when it was a concurrent edit."""
    theirs, here = change.clocks.get("content"), mine.get("content")
    if theirs is None or here is None or theirs == here or local["content"] == change.body.get("content"):
        return
    if _concurrent(here, mine.get("content_base"), theirs):
        _keep(db, change.memory_id, str(change.body.get("content")), theirs, now, merged)


def _keep(db: apsw.Connection, memory_id: str, text: str, clock: Clock, now: datetime, merged: Merged) -> None:
    if sync_state.conflict_kept(db, memory_id, list(clock)):
        return
    detail = {"lost_content": text, "clock": list(clock), "device": clock[1]}
    log_event(db, to_db(now), CONFLICT_EVENT, memory_id, SYSTEM, detail)
    merged.conflicts += 1


def _link(db: apsw.Connection, change: Change, merged: Merged) -> None:
    body = change.body
    source, target, kind = change.memory_id, str(body["target_id"]), str(body["type"])
    for end in (source, target):
        v = sync_state.version(db, end)
        if v is not None and v.purged is not None:
            return
    stamp = change.clocks["link"]
    before = sync_state.link_state(db, source, target, kind)
    if before is not None and (before.hlc, before.device) >= stamp:
        return
    state = sync_state.LinkState(
        source,
        target,
        kind,
        stamp[0],
        stamp[1],
        bool(body["present"]),
        float(body["strength"]),
        str(body["created_at"]),
    )
    sync_state.save_link_state(db, state)
    merged.applied += 1
