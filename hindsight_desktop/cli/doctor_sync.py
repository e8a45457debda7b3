"""The doctor's sync checks: the sync folder reachable and writable, its files readable with the key, and
devices lagging behind. Read through the engine's sync operations; nothing here syncs or changes memories.

A device not set up for sync gets one skipped line: sync is optional.
"""

from __future__ import annotations

import contextlib
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.records import Finding

SYNC_DIR = "hindsight-sync"  # the sync core's folder inside the chosen one (docs/ARCHITECTURE.md, Sync)
AWAY = timedelta(days=14)  # a device unseen this long is worth a word: it holds back pruning
SYNC_FIX_LATER = "run `hindsight-desktop sync now` (or wait for the app's next sync)"


def check_sync(engine: MemoryEngine, now: datetime | None = None) -> list[Finding]:
    """The sync findings, in the order a problem would show."""
    try:
        status = engine.sync_status()
    except Exception as exc:  # whatever the sync core raises, the doctor reports it instead of stopping
        return [
            Finding("sync", False, f"the sync state could not be read: {exc}", "run `hindsight-desktop sync status`")
        ]
    if not status.get("set_up"):
        return [
            Finding(
                "sync",
                True,
                "sync is not set up on this device (optional)",
                "to sync with another computer: `hindsight-desktop sync setup FOLDER` (or Settings → Sync)",
                skipped=True,
            )
        ]
    folder = Path(str(status.get("folder")))
    reachable = check_reachable(folder, bool(status.get("folder_reachable", True)))
    if not reachable.ok:
        return [reachable]
    return [
        reachable,
        check_writable(folder),
        check_files(status),
        check_devices(status.get("devices") or [], now or datetime.now(UTC)),
    ]


def check_reachable(folder: Path, reachable: bool) -> Finding:
    if reachable and (folder / SYNC_DIR).is_dir():
        return Finding("sync folder", True, f"{folder} is reachable", data={"folder": str(folder)})
    return Finding(
        "sync folder",
        False,
        f"the sync folder {folder} cannot be reached (or its {SYNC_DIR} folder is missing)",
        "connect the drive or start the sync service that holds it; nothing is lost meanwhile, changes wait "
        "here. If the folder moved, `hindsight-desktop sync leave` and join again in the new place",
        data={"folder": str(folder)},
    )


def check_writable(folder: Path) -> Finding:
    """Write and remove a scratch file whose dot name the sync core (and Syncthing) ignore."""
    target = folder / SYNC_DIR
    try:
        with tempfile.NamedTemporaryFile(dir=target, prefix=".hs-doctor-", suffix=".tmp") as probe:
            probe.write(b"probe")
            probe.flush()
    except OSError as exc:
        return Finding(
            "sync folder writable",
            False,
            f"{target} does not take a new file: {exc}",
            f"give yourself write access to {target}, or free space on its drive",
        )
    return Finding("sync folder writable", True, f"{target} takes new files")


def check_files(status: dict[str, Any]) -> Finding:
    """Files the last sync refused (a damaged, foreign or too new file), by name."""
    refused = list(status.get("refused") or [])
    last = status.get("last_sync") or {}
    if status.get("last_error"):
        return Finding("sync files", False, f"the last sync failed: {status['last_error']}", SYNC_FIX_LATER)
    if not last:
        return Finding("sync files", True, "no sync has run on this device yet", SYNC_FIX_LATER, skipped=True)
    if not refused:
        read = last.get("files_read")
        counted = f"read {read} file(s) and " if read is not None else ""
        return Finding("sync files", True, f"the last sync {counted}refused none", data={"refused": []})
    lines = [f"{r.get('file', '?')} ({r.get('reason', 'unreadable')})" for r in refused[:5]]
    more = f" and {len(refused) - 5} more" if len(refused) > 5 else ""
    newer = any("newer" in str(r.get("reason", "")) for r in refused)
    fix = (
        "update Hindsight Desktop on this device: another device writes a newer sync format"
        if newer
        else "a refused file is skipped and never applied: if it came from one of your devices, run "
        "`hindsight-desktop sync now` there so it writes its changes again; remove files you do not know"
    )
    return Finding(
        "sync files", False, f"refused {len(refused)} file(s): {'; '.join(lines)}{more}", fix, data={"refused": refused}
    )


def _seen(device: dict[str, Any]) -> datetime | None:
    value = device.get("last_seen")
    if not value:
        return None
    with contextlib.suppress(ValueError):
        seen = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        return seen if seen.tzinfo else seen.replace(tzinfo=UTC)
    return None


def check_devices(devices: list[dict[str, Any]], now: datetime) -> Finding:
    """Other devices that have not applied this device's changes, or have not been seen for a while."""
    others = [d for d in devices if not d.get("this_device") and not d.get("removed") and not d.get("left")]
    if not others:
        return Finding("sync devices", True, "no other device has joined yet", data={"devices": devices})
    lagging, away = [], []
    for device in others:
        name = str(device.get("name") or device.get("device_id"))
        seen = _seen(device)
        if seen is None or now - seen > AWAY:
            when = "never" if seen is None else f"{(now - seen).days} days ago"
            away.append(f"{name} (last seen {when})")
        elif device.get("behind"):
            lagging.append(f"{name} ({device['behind']} change(s) behind)")
    if away:
        return Finding(
            "sync devices",
            False,
            "not seen for a while: " + ", ".join(away) + (f"; behind: {', '.join(lagging)}" if lagging else ""),
            "start Hindsight Desktop on that device; if it is gone for good, remove it "
            "(`hindsight-desktop sync remove-device ID` or Settings → Sync) so the folder can be pruned",
            data={"devices": devices},
        )
    names = ", ".join(str(d.get("name") or d.get("device_id")) for d in others)
    detail = f"{len(others)} other device(s): {names}"
    if lagging:
        # Behind but recently seen: its sync service has not delivered yet, or it has not synced since.
        detail += f"; catching up: {', '.join(lagging)}"
    return Finding("sync devices", True, detail, data={"devices": devices})
