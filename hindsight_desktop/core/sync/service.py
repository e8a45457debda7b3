"""Sync set up, run and reported: the operations the engine's sync methods hand over to.

`now` is one pass: this device's new changes go to the folder (one sealed change file), every new file
of the other devices is applied (each in its own transaction, together with the record that it was
applied, so a crash never applies one twice or loses one), then this device's record, a snapshot when
due, and pruning. A file that cannot be used is refused by name in the report and the rest go on.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import apsw
import numpy as np

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import PairingCodeInvalid, SyncError, SyncFolderUnavailable, SyncNotSetUp
from hindsight_desktop.core.identities import SYSTEM
from hindsight_desktop.core.keys.keystore import KeyStore, KeystoreUnavailable
from hindsight_desktop.core.store import sync_state
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.vectors import VectorIndex
from hindsight_desktop.core.sync import crypto, devices, merge, outgoing, pairing, snapshots
from hindsight_desktop.core.sync.devices import FORMAT, DeviceRecord
from hindsight_desktop.core.sync.folder import Folder, SyncFile, new_device_id, write_atomically
from hindsight_desktop.core.sync.wire import BadChanges, Change, decode, encode
from hindsight_desktop.core.timeutil import to_db

_EMBED_BATCH = 64
_FOLDER_SEAL = crypto.Sealed("folder", "-", 0)
SYNC_EVENT = "sync"  # the event of a batch of changes applied from other devices
UNKNOWN_DEVICE = (
    "from a device that is not in this sync folder (no record of it here: if the sync service has not brought "
    "it yet, the next sync reads the file)"
)


@dataclass
class Report:
    sent: int = 0
    applied: int = 0
    files_written: int = 0
    files_read: int = 0
    pruned: int = 0
    conflicts: int = 0
    snapshot: str | None = None
    refused: list[dict[str, str]] = field(default_factory=list)
    at: str = ""
    ok: bool = True

    def refuse(self, name: str, device: str, reason: str) -> None:
        self.refused.append({"file": name, "device": device, "reason": reason})
        self.ok = False


@dataclass(frozen=True)
class Config:
    device_id: str
    name: str
    folder: Folder
    removed: frozenset[str]


class SyncService:
    """Sync for one memory file."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ---- configuration ---------------------------------------------------------------------------
    def config(self) -> Config | None:
        with self.store.read() as db:
            device = sync_state.get_local(db, "device_id")
            if device is None:
                return None
            removed = json.loads(sync_state.get_local(db, "removed") or "[]")
            return Config(
                device,
                sync_state.get_local(db, "device_name") or device,
                Folder(Path(sync_state.get_local(db, "folder") or "")),
                frozenset(removed),
            )

    def _config(self) -> Config:
        found = self.config()
        if found is None:
            raise SyncNotSetUp(
                "sync is not set up on this device; run `hindsight-desktop sync setup FOLDER` on the first device "
                "and `hindsight-desktop sync join FOLDER --code CODE` on the others"
            )
        return found

    def _key_name(self, device: str) -> str:
        return f"sync-{device}"

    def _key(self, cfg: Config) -> bytes:
        try:
            key = KeyStore(self.store.path).load(self._key_name(cfg.device_id))
        except KeystoreUnavailable as exc:
            raise SyncError(f"the keyring holding the sync key did not answer ({exc}); unlock it and retry") from None
        if key is None:
            raise SyncError(
                "the sync key of this device is missing from the keyring; run `hindsight-desktop sync leave`, "
                "then `sync join FOLDER --code CODE` with the code from another device"
            )
        return key

    def setup(self, chosen: Path, name: str | None, now: datetime) -> dict[str, Any]:
        self._refuse_if_set_up()
        folder = Folder(chosen)
        folder.check_reachable()
        if folder.folder_file.exists():
            raise SyncError(
                f"{folder.chosen} already holds a Hindsight sync folder; join it with "
                f"`hindsight-desktop sync join {folder.chosen} --code CODE` (the code `sync setup` showed)"
            )
        key = crypto.new_key()
        marker = json.dumps({"format": FORMAT, "created_at": to_db(now)}).encode()
        write_atomically(folder.folder_file, crypto.seal(key, _FOLDER_SEAL, marker, FORMAT))
        started = self._start(folder, key, name)
        return {"code": pairing.encode(key), **started}

    def join(self, chosen: Path, code: str, name: str | None) -> dict[str, Any]:
        key = pairing.decode(code)
        self._refuse_if_set_up()
        folder = Folder(chosen)
        folder.check_reachable()
        try:
            data = folder.folder_file.read_bytes()
        except FileNotFoundError:
            raise SyncError(
                f"{folder.chosen} holds no Hindsight sync folder (yet): run `sync setup` on the first device, "
                "and let the sync service copy the folder here before joining"
            ) from None
        try:
            crypto.open_sealed(key, _FOLDER_SEAL, data, FORMAT)
        except crypto.TooNew as exc:
            raise SyncError(f"the sync folder {folder.chosen} was {exc}") from None
        except crypto.Unreadable:
            raise PairingCodeInvalid(
                f"this pairing code is not the one of the sync folder {folder.chosen}; copy the code again from "
                "the device that set the folder up"
            ) from None
        started = self._start(folder, key, name)
        return {**started, "devices": len(folder.device_ids())}

    def _refuse_if_set_up(self) -> None:
        cfg = self.config()
        if cfg is not None:
            raise SyncError(
                f"sync is already set up on this device (folder {cfg.folder.chosen}); "
                "run `hindsight-desktop sync leave` first to use another folder"
            )

    def _start(self, folder: Folder, key: bytes, name: str | None) -> dict[str, Any]:
        device = new_device_id()
        label = (name or socket.gethostname() or device).strip()[:64] or device
        KeyStore(self.store.path).save(self._key_name(device), key)
        with self.store.write() as db:
            for k, v in (("device_id", device), ("device_name", label), ("folder", str(folder.chosen.resolve()))):
                sync_state.set_local(db, k, v)
            sync_state.set_local(db, "hlc", "0")
            sync_state.set_local(db, "own_seq", "0")
            sync_state.set_capture(db, True)
            # What this file already holds travels too (a device joining merges its memories in).
            sync_state.log_everything(db, sync_state.tick(db, _now_ms()))
        devices.write(folder, key, DeviceRecord(device, label))
        return {"device_id": device, "device_name": label, "folder": str(folder.chosen)}

    # ---- one sync pass ---------------------------------------------------------------------------
    def now(self, parts: Parts) -> dict[str, Any]:
        cfg = self._config()
        report = Report(at=to_db(parts.clock()))
        try:
            self._now(parts, cfg, report)
        except SyncFolderUnavailable as exc:
            self._save_report(report, str(exc))
            raise
        except OSError as exc:
            self._save_report(report, f"the sync folder could not be used: {exc}")
            raise SyncFolderUnavailable(
                f"the sync folder {cfg.folder.chosen} could not be used ({exc}); nothing is lost: sync again"
            ) from exc
        self._save_report(report, None)
        return asdict(report)

    def _now(self, parts: Parts, cfg: Config, report: Report) -> None:
        folder = cfg.folder
        folder.check_reachable()
        if not folder.folder_file.exists():
            raise SyncFolderUnavailable(
                f"the sync folder {folder.chosen} no longer holds Hindsight's files (hindsight-sync/); "
                "is it the right folder, fully synced? Nothing is lost: sync again once it is back"
            )
        key = self._key(cfg)
        me = cfg.device_id
        records, bad_records = devices.read_all(folder, key)
        for name, reason in bad_records.items():
            report.refuse(name, name.split("/")[-1].split(".")[0], reason)
        removed = set(cfg.removed)
        for record in records.values():
            if record.device_id != me:
                removed.update(record.removed)
        removed.discard(me)

        self._send(parts, me, report)
        self._write_own(folder, key, me, report)
        files = folder.files("changes")
        self._catch_up(parts, folder, key, me, records, removed, files, report)
        for sync_file in files:
            if sync_file.device == me or sync_file.device in removed:
                continue
            self._apply_file(parts, folder, key, me, sync_file, records, report)
        self._write_own(folder, key, me, report)
        self._snapshot_and_prune(parts, folder, key, cfg, records, removed, report)

    def _send(self, parts: Parts, me: str, report: Report) -> None:
        vector_of = _vector_source(parts)
        while True:
            with self.store.write() as db:
                changes, upto = outgoing.collect(db, me, vector_of)
                self._keep_own(db, changes)
                report.sent += len(changes)
            if upto == 0 or len(changes) < outgoing.BATCH:
                return

    def _keep_own(self, db: apsw.Connection, changes: list[Change]) -> None:
        """Store a new own change file (written to the folder next) and drop purged text from older ones."""
        if not changes:
            return
        seq = int(sync_state.get_local(db, "own_seq") or 0) + 1
        sync_state.add_own_file(db, seq, encode(changes))
        sync_state.set_local(db, "own_seq", str(seq))
        purged = {c.memory_id for c in changes if c.kind == "purge"}
        if purged:
            _scrub_own(db, purged)
            sync_state.set_local(db, "snapshot_dirty", "1")

    def _write_own(self, folder: Folder, key: bytes, me: str, report: Report) -> None:
        with self.store.read() as db:
            pending = sync_state.own_files(db, unwritten=True)
        for seq, payload in pending:
            sealed = crypto.seal(key, crypto.Sealed("changes", me, seq), payload, FORMAT)
            write_atomically(folder.file_path("changes", me, seq), sealed)
            with self.store.write() as db:
                sync_state.set_own_file(db, seq, payload, True)
            report.files_written += 1

    def _read(self, key: bytes, sync_file: SyncFile, report: Report) -> list[Change] | None:
        try:
            data = sync_file.path.read_bytes()
            sealed = crypto.Sealed(sync_file.kind, sync_file.device, sync_file.seq)
            return decode(crypto.open_sealed(key, sealed, data, FORMAT))
        except FileNotFoundError:
            return None  # pruned by its device while we listed: it was applied here or a snapshot covers it
        except crypto.Unreadable as exc:
            report.refuse(sync_file.name, sync_file.device, str(exc))
        except BadChanges as exc:
            report.refuse(sync_file.name, sync_file.device, str(exc))
        return None

    def _apply_file(
        self,
        parts: Parts,
        folder: Folder,
        key: bytes,
        me: str,
        sync_file: SyncFile,
        records: dict[str, DeviceRecord],
        report: Report,
    ) -> None:
        with self.store.read() as db:
            if sync_state.is_applied(db, sync_file.device, sync_file.seq):
                return
        if sync_file.device not in records:
            report.refuse(sync_file.name, sync_file.device, UNKNOWN_DEVICE)
            return
        changes = self._read(key, sync_file, report)
        if changes is None:
            return
        self._merge(parts, me, changes, [(sync_file.device, sync_file.seq)], report)
        report.files_read += 1

    def _merge(
        self,
        parts: Parts,
        me: str,
        changes: list[Change],
        marks: list[tuple[str, int]],
        report: Report,
        upto: bool = False,
    ) -> None:
        vectors = _embed(parts, merge.texts_to_embed(parts, changes))
        with self.store.write() as db:
            if not upto and all(sync_state.is_applied(db, d, n) for d, n in marks):
                return  # another process of this data folder applied it meanwhile
            # This device's own writes since the last fold first, so the merge sees their clocks.
            local, _ = outgoing.collect(db, me, _vector_source(parts))
            self._keep_own(db, local)
            report.sent += len(local)
            sync_state.set_capture(db, False)
            merged = merge.apply(parts, db, changes, vectors, parts.clock())
            sync_state.set_capture(db, True)
            for device, seq in marks:
                if upto:
                    sync_state.mark_applied_upto(db, device, seq)
                else:
                    sync_state.mark_applied(db, device, seq)
            if merged.purged:
                _scrub_own(db, merged.purged)
                sync_state.set_local(db, "snapshot_dirty", "1")
            if merged.applied:
                # One event per applied batch (counts only): what follows the event log (the app's views, a
                # server's resource subscribers) hears of memories that arrived.
                detail = {
                    "applied": merged.applied,
                    "from": sorted({d for d, _ in marks}),
                    "purged": len(merged.purged),
                }
                log_event(db, to_db(parts.clock()), SYNC_EVENT, None, SYSTEM, detail)
        if merged.purged:
            self.store.checkpoint()  # no page of the purged text lingers in the WAL
        report.applied += merged.applied
        report.conflicts += merged.conflicts

    def _catch_up(
        self,
        parts: Parts,
        folder: Folder,
        key: bytes,
        me: str,
        records: dict[str, DeviceRecord],
        removed: set[str],
        files: list[SyncFile],
        report: Report,
    ) -> None:
        """Apply snapshots while another device's files this one still needs were pruned: each time the one
        that covers most of what is missing."""
        present = {(f.device, f.seq) for f in files}
        for _ in range(len(records)):
            with self.store.read() as db:
                upto = sync_state.applied_upto(db)
            missing = [
                d
                for d, r in records.items()
                if d != me and d not in removed and upto.get(d, 0) < r.sent and (d, upto.get(d, 0) + 1) not in present
            ]

            def gain(r: DeviceRecord, upto: dict[str, int] = upto, missing: list[str] = missing) -> int:
                return sum(max(0, r.snapshot_covers.get(d, 0) - upto.get(d, 0)) for d in missing)

            candidates = [r for r in records.values() if r.device_id != me and r.snapshot is not None and gain(r) > 0]
            if not candidates:
                return
            best = max(candidates, key=gain)
            assert best.snapshot is not None
            name = f"snapshots/{best.device_id}/{best.snapshot:010d}.hss"
            try:
                changes = decode(snapshots.read(folder, key, best.device_id, best.snapshot))
            except FileNotFoundError:
                return  # replaced by a newer one since its record was read: the next sync uses that
            except (crypto.Unreadable, BadChanges) as exc:
                report.refuse(name, best.device_id, str(exc))
                return
            covers = [(d, n) for d, n in best.snapshot_covers.items() if d != me and n > upto.get(d, 0)]
            self._merge(parts, me, changes, covers, report, upto=True)
            report.files_read += 1

    def _snapshot_and_prune(
        self,
        parts: Parts,
        folder: Folder,
        key: bytes,
        cfg: Config,
        records: dict[str, DeviceRecord],
        removed: set[str],
        report: Report,
    ) -> None:
        me = cfg.device_id
        now = parts.clock()
        with self.store.read() as db:
            own_seq = int(sync_state.get_local(db, "own_seq") or 0)
            snap = sync_state.get_local(db, "snapshot_seq")
            dirty = sync_state.get_local(db, "snapshot_dirty") == "1"
            applied = {d: n for d, n in sync_state.applied_upto(db).items() if d != me}
        snap_seq = int(snap) if snap is not None else None
        if own_seq and (snap_seq is None or dirty or own_seq - snap_seq >= snapshots.EVERY):
            with self.store.read() as db:
                state = snapshots.state(db, me, _vector_source(parts))
            snapshots.write(folder, key, me, own_seq, state)
            with self.store.write() as db:
                sync_state.set_local(db, "snapshot_seq", str(own_seq))
                sync_state.set_local(db, "snapshot_covers", json.dumps(applied))
                sync_state.set_local(db, "snapshot_dirty", "0")
            snap_seq = own_seq
            report.snapshot = f"snapshots/{me}/{own_seq:010d}.hss"
        with self.store.read() as db:
            covers = json.loads(sync_state.get_local(db, "snapshot_covers") or "{}")
        others = [r for d, r in records.items() if d != me and d not in removed and r.active(now)]
        if snap_seq:
            safe = min([snap_seq, *(r.applied.get(me, 0) for r in others)])
            if safe > 0:
                report.pruned += snapshots.prune(folder, me, safe)
                with self.store.write() as db:
                    sync_state.drop_own_files_upto(db, safe)
        record = DeviceRecord(
            me,
            cfg.name,
            last_seen=to_db(now),
            sent=own_seq,
            applied=applied,
            snapshot=snap_seq,
            snapshot_covers={**covers, me: snap_seq} if snap_seq else {},
            removed=sorted(cfg.removed),
        )
        devices.write(folder, key, record)

    def _save_report(self, report: Report, error: str | None) -> None:
        with self.store.write() as db:
            sync_state.set_local(db, "last_report", json.dumps(asdict(report)))
            sync_state.set_local(db, "last_error", error or "")

    # ---- what the app and the CLI show ------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        cfg = self.config()
        if cfg is None:
            return {
                "set_up": False,
                "folder": None,
                "folder_reachable": False,
                "device_id": None,
                "device_name": None,
                "pending": 0,
                "last_sync": None,
                "last_error": None,
                "refused": [],
                "devices": [],
                "incoming_dirs": [],
            }
        with self.store.read() as db:
            pending = sync_state.outbox_count(db) + len(sync_state.own_files(db, unwritten=True))
            last = sync_state.get_local(db, "last_report")
            error = sync_state.get_local(db, "last_error") or None
        last_report = json.loads(last) if last else None
        reachable = cfg.folder.reachable()
        return {
            "set_up": True,
            "folder": str(cfg.folder.chosen),
            "folder_reachable": reachable,
            "device_id": cfg.device_id,
            "device_name": cfg.name,
            "pending": pending,
            "last_sync": last_report,
            "last_error": error,
            "refused": last_report["refused"] if last_report else [],
            "devices": self.devices() if reachable else [],
            # Where other devices' files arrive (the app watches these to sync when they change).
            "incoming_dirs": self._incoming_dirs(cfg) if reachable else [],
        }

    def _incoming_dirs(self, cfg: Config) -> list[str]:
        changes = cfg.folder.root / "changes"
        dirs = [changes] + [changes / d for d in cfg.folder.device_ids() if d != cfg.device_id]
        return [str(d) for d in dirs]

    def devices(self) -> list[dict[str, Any]]:
        cfg = self._config()
        records, _ = devices.read_all(cfg.folder, self._key(cfg))
        with self.store.read() as db:
            upto = sync_state.applied_upto(db)
            own_seq = int(sync_state.get_local(db, "own_seq") or 0)
        removed = set(cfg.removed)
        for record in records.values():
            if record.device_id != cfg.device_id:
                removed.update(record.removed)
        out = []
        for device, r in sorted(records.items(), key=lambda item: (item[0] != cfg.device_id, item[1].name)):
            mine = device == cfg.device_id
            out.append(
                {
                    "device_id": device,
                    "name": r.name,
                    "this_device": mine,
                    "last_seen": r.last_seen,
                    "schema": r.format,
                    "removed": device in removed and not mine,
                    "left": r.left,
                    # Change files of this device that device has not applied yet (it lags), and
                    # change files of that device not applied here yet.
                    "behind": 0 if mine else max(0, own_seq - r.applied.get(cfg.device_id, 0)),
                    "not_applied_here": 0 if mine else max(0, r.sent - upto.get(device, 0)),
                }
            )
        return out

    def remove_device(self, device: str) -> dict[str, Any]:
        cfg = self._config()
        device = (device or "").strip().lower()
        if device == cfg.device_id:
            raise SyncError("that is this device; to stop syncing here, run `hindsight-desktop sync leave`")
        if device not in cfg.folder.device_ids() and device not in cfg.removed:
            raise SyncError(f"no device {device!r} in the sync folder; `hindsight-desktop sync devices` lists them")
        with self.store.write() as db:
            sync_state.set_local(db, "removed", json.dumps(sorted({*cfg.removed, device})))
        return {"removed": device}

    def leave(self) -> dict[str, Any]:
        cfg = self._config()
        try:
            key = self._key(cfg)
            if cfg.folder.reachable() and cfg.folder.root.is_dir():
                record = devices.read(cfg.folder, key, cfg.device_id)
                record.left = True
                devices.write(cfg.folder, key, record)
        except (SyncError, crypto.Unreadable, OSError):
            pass  # leaving works without the folder or the key: the others stop waiting after STALE_AFTER
        KeyStore(self.store.path).delete(self._key_name(cfg.device_id))
        with self.store.write() as db:
            sync_state.forget_everything(db)
        return {"left": True, "device_id": cfg.device_id}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _vector_source(parts: Parts) -> outgoing.VectorSource:
    vectors = parts.vectors
    if not isinstance(vectors, VectorIndex):  # a model switch in progress: receivers embed the text
        return lambda db, rowid: None

    def vector_of(db: apsw.Connection, rowid: int) -> tuple[bytes, str] | None:
        found = vectors.vectors(db, [rowid]).get(rowid)
        return None if found is None else (outgoing.vector_bytes(found), parts.model_id)

    return vector_of


def _embed(parts: Parts, texts: list[str]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for start in range(0, len(texts), _EMBED_BATCH):
        chunk = texts[start : start + _EMBED_BATCH]
        out.update(zip(chunk, parts.embed(chunk), strict=True))
    return out


def _scrub_own(db: apsw.Connection, purged: set[str]) -> None:
    """This device's files in the folder lose every change that carried a purged memory's text (they are
    written again); its tombstone stays."""
    for seq, payload in sync_state.own_files(db):
        changes = decode(payload)
        kept = [c for c in changes if not (c.kind == "memory" and c.memory_id in purged)]
        if len(kept) != len(changes):
            sync_state.set_own_file(db, seq, encode(kept), False)
