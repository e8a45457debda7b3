"""Snapshots (a device's whole synced state, sealed, in one file) and pruning of change files.

A snapshot lets a device that is new, or was away long enough for files to be pruned, catch up without
every change file ever written. A device keeps only its latest snapshot, and deletes its own change
files once a snapshot covers them and every active device has applied them (devices.STALE_AFTER).
"""

from __future__ import annotations

import apsw

from hindsight_desktop.core.store import sync_state
from hindsight_desktop.core.sync import crypto
from hindsight_desktop.core.sync.devices import FORMAT
from hindsight_desktop.core.sync.folder import Folder, write_atomically
from hindsight_desktop.core.sync.outgoing import VectorSource
from hindsight_desktop.core.sync.wire import Change, encode

EVERY = 200  # own change files between two snapshots


def state(db: apsw.Connection, device: str, vector_of: VectorSource) -> list[Change]:
    """Every memory (its synced row and clocks), tombstone and link this file knows."""
    out: list[Change] = []
    for memory_id, version in sync_state.all_versions(db):
        if version.purged is not None:
            out.append(Change("purge", memory_id, {"purge": (version.purged, device)}))
            continue
        found = sync_state.memory_row(db, memory_id)
        if found is None:
            continue
        rowid, body = found
        body["superseded_by"] = version.superseded_by
        change = Change("memory", memory_id, version.clocks, body)
        carried = vector_of(db, rowid)
        if carried is not None:
            change.vector, change.model = carried
        out.append(change)
    for link in sync_state.all_link_states(db):
        body = {
            "target_id": link.target_id,
            "type": link.type,
            "present": link.present,
            "strength": link.strength,
            "created_at": link.created_at,
        }
        out.append(Change("link", link.source_id, {"link": (link.hlc, link.device)}, body))
    return out


def write(folder: Folder, key: bytes, device: str, seq: int, changes: list[Change]) -> None:
    """Seal and write the snapshot as of this device's file `seq`; older snapshots of this device go."""
    path = folder.file_path("snapshot", device, seq)
    write_atomically(path, crypto.seal(key, crypto.Sealed("snapshot", device, seq), encode(changes), FORMAT))
    for old in folder.files("snapshot"):
        if old.device == device and old.seq != seq:
            old.path.unlink(missing_ok=True)


def read(folder: Folder, key: bytes, device: str, seq: int) -> bytes:
    data = folder.file_path("snapshot", device, seq).read_bytes()
    return crypto.open_sealed(key, crypto.Sealed("snapshot", device, seq), data, FORMAT)


def prune(folder: Folder, device: str, upto: int) -> int:
    """Delete this device's own change files up to `upto`; how many went."""
    gone = 0
    for old in folder.files("changes"):
        if old.device == device and old.seq <= upto:
            old.path.unlink(missing_ok=True)
            gone += 1
    return gone
