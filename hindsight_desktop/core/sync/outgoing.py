"""This device's changes: the capture triggers' log (store/sync_capture.py) folded into Change records.

Runs inside a write transaction, before another device's changes are merged, so the clocks of every
local write are known to the merge. A memory's change carries its whole synced row and every group's
clock (a state, not a diff), so a device that missed earlier files still gets a complete memory; the
groups changed here get this device's clock, the others keep the clock that set them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import apsw
import numpy as np

from hindsight_desktop.core.store import sync_state
from hindsight_desktop.core.store.sync_capture import GROUPS
from hindsight_desktop.core.sync.wire import Change, Clock

BATCH = 50_000  # outbox rows folded per change file
# (rowid) -> (vector bytes, model id) of a memory's vector in the model in use, when one can travel
VectorSource = Callable[[apsw.Connection, int], tuple[bytes, str] | None]


@dataclass
class _Touched:
    groups: dict[str, int] = field(default_factory=dict)  # group -> newest local clock
    purged: int | None = None


def collect(db: apsw.Connection, device: str, vector_of: VectorSource) -> tuple[list[Change], int]:
    """(the changes logged since the last call, the last outbox row they cover); the outbox is emptied
    up to it and the per-memory clocks updated."""
    rows = sync_state.outbox(db, BATCH)
    if not rows:
        return [], 0
    memories: dict[str, _Touched] = {}
    links: dict[tuple[str, str, str], int] = {}
    for row in rows:
        if row.kind == "link":
            key = (row.memory_id, row.target_id or "", row.rel_type or "")
            links[key] = max(links.get(key, 0), row.hlc)
            continue
        touched = memories.setdefault(row.memory_id, _Touched())
        if row.kind == "purge":
            touched.purged = max(touched.purged or 0, row.hlc)
            continue
        for group in GROUPS if row.groups == ["*"] else row.groups:
            if group in GROUPS:
                touched.groups[group] = max(touched.groups.get(group, 0), row.hlc)
    changes = [c for mid, t in memories.items() if (c := _memory_change(db, device, mid, t, vector_of))]
    changes += [c for key, hlc in links.items() if (c := _link_change(db, device, key, hlc))]
    sync_state.drop_outbox(db, rows[-1].seq)
    return changes, rows[-1].seq


def _memory_change(
    db: apsw.Connection, device: str, memory_id: str, touched: _Touched, vector_of: VectorSource
) -> Change | None:
    before = sync_state.version(db, memory_id)
    if before is not None and before.purged is not None:
        return None  # a tombstone is final
    found = sync_state.memory_row(db, memory_id)
    if touched.purged is not None or found is None:
        # Gone here (a purge, or a deletion by maintenance): the tombstone carries no text.
        hlc = touched.purged or max(touched.groups.values(), default=0)
        sync_state.save_version(db, memory_id, sync_state.Version({}, None, hlc))
        sync_state.drop_link_states_of(db, memory_id)
        return Change("purge", memory_id, {"purge": (hlc, device)})
    rowid, body = found
    clocks: dict[str, Clock] = dict(before.clocks) if before else {}
    newest = max(touched.groups.values(), default=0)
    for group in GROUPS:
        stamp = touched.groups.get(group)
        if stamp is None and group in clocks:
            continue
        if group == "content" and group in clocks and stamp is not None:
            clocks["content_base"] = clocks[group]  # what this edit replaced: tells a conflict from a sequel
        clocks[group] = (stamp or newest, device)
    superseded_by = body["superseded_by"]
    if "status" not in touched.groups and before is not None and superseded_by is None:
        superseded_by = before.superseded_by  # its successor may not have arrived here yet
    body["superseded_by"] = superseded_by
    sync_state.save_version(db, memory_id, sync_state.Version(clocks, superseded_by, None))
    change = Change("memory", memory_id, clocks, body)
    if "content" in touched.groups:
        carried = vector_of(db, rowid)
        if carried is not None:
            change.vector, change.model = carried
    return change


def _link_change(db: apsw.Connection, device: str, key: tuple[str, str, str], hlc: int) -> Change | None:
    source, target, kind = key
    for end in (source, target):
        v = sync_state.version(db, end)
        if v is not None and v.purged is not None:
            return None  # went with a purged memory: the tombstone says so
    now = sync_state.relation(db, source, target, kind)
    before = sync_state.link_state(db, source, target, kind)
    strength, created = now if now else ((before.strength, before.created_at) if before else (1.0, ""))
    state = sync_state.LinkState(source, target, kind, hlc, device, now is not None, strength, created)
    sync_state.save_link_state(db, state)
    body = {"target_id": target, "type": kind, "present": now is not None, "strength": strength, "created_at": created}
    return Change("link", source, {"link": (hlc, device)}, body)


def vector_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()
