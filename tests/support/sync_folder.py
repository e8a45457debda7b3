"""Looking inside sync folders and synced memory files, for the sync tests (tests/unit/core/sync, e2e)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import apsw

from hindsight_desktop.core.keys.keystore import KeyStore
from hindsight_desktop.core.store import sync_state
from hindsight_desktop.core.sync import crypto
from hindsight_desktop.core.sync.folder import ROOT, Folder


def sync_key(engine: Any) -> bytes:
    with engine.store.read() as db:
        device = sync_state.get_local(db, "device_id")
    key = KeyStore(engine.store.path).load(f"sync-{device}")
    assert key is not None
    return key


def device_id(engine: Any) -> str:
    with engine.store.read() as db:
        found = sync_state.get_local(db, "device_id")
    assert found is not None
    return found


def plaintexts(folder: Path, key: bytes) -> dict[str, bytes]:
    """Every file of the sync folder, decrypted (the check that a purge left no text in any of them)."""
    view = Folder(folder)
    out = {"folder.hsf": crypto.open_sealed(key, crypto.Sealed("folder", "-", 0), view.folder_file.read_bytes(), 99)}
    for device in view.device_ids():
        sealed = crypto.Sealed("device", device, 0)
        out[f"devices/{device}.hsd"] = crypto.open_sealed(key, sealed, view.device_file(device).read_bytes(), 99)
    for kind in ("changes", "snapshot"):
        for f in view.files(kind):
            out[f.name] = crypto.open_sealed(key, crypto.Sealed(kind, f.device, f.seq), f.path.read_bytes(), 99)
    return out


def raw_bytes(folder: Path) -> bytes:
    """Everything in the folder as it lies on disk, concatenated."""
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def memory_state(engine: Any) -> tuple[dict[str, tuple], set[tuple[str, str, str]]]:
    """What must be the same on every device: each long-term memory's synced fields, and the links."""
    with engine.store.read() as db:
        rows = db.execute(
            "SELECT id, content, summary, status, superseded_by, pinned, importance, type, layer, client, scope, "
            "occurred_at FROM memories WHERE layer != 'working'"
        ).fetchall()
        links = {tuple(r) for r in db.execute("SELECT source_id, target_id, type FROM relations")}
    return {r[0]: tuple(r[1:]) for r in rows}, links


def tables_holding(engine: Any, text: str) -> list[str]:
    """The tables (and columns) of the decrypted memory file where `text` still appears, as text or bytes."""
    needle = text.encode()
    found = []
    with engine.store.read() as db:
        tables = [
            r[0]
            for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            )
        ]
        for table in tables:
            columns = [r[1] for r in db.execute(f"PRAGMA table_info('{table}')")]
            for column in columns:
                try:
                    rows = db.execute(f'SELECT "{column}" FROM "{table}"')
                    for (value,) in rows:
                        if (isinstance(value, str) and text in value) or (isinstance(value, bytes) and needle in value):
                            found.append(f"{table}.{column}")
                            break
                except apsw.Error:
                    continue
    return found


def mirror(source: Path, target: Path) -> None:
    """What a sync service does between two devices' copies of the folder, all at once."""
    shutil.copytree(source / ROOT, target / ROOT, dirs_exist_ok=True)
