"""The device registry: each device's record in the folder, sealed, rewritten only by that device.

A record says who the device is (id, name), which sync format it writes, when it last synced, how far it
has applied every other device's files (for pruning), its latest snapshot and what that covers, the
devices it removed, and whether it left. A device without a readable record is not in the folder: its
files are refused.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from hindsight_desktop.core.sync import crypto
from hindsight_desktop.core.sync.folder import Folder, write_atomically
from hindsight_desktop.core.timeutil import from_db, to_db

FORMAT = 1  # the sync format this program writes and reads (file contents, record fields)
STALE_AFTER = timedelta(days=90)  # a device not seen for this long stops holding pruning back


@dataclass
class DeviceRecord:
    device_id: str
    name: str
    format: int = FORMAT
    last_seen: str | None = None
    sent: int = 0  # its own change files, 1..sent
    applied: dict[str, int] = field(default_factory=dict)  # device -> all its files up to n applied
    snapshot: int | None = None  # the seq of its latest snapshot
    snapshot_covers: dict[str, int] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    left: bool = False

    def active(self, now: datetime) -> bool:
        """Whether it still holds back pruning."""
        seen = from_db(self.last_seen) if self.last_seen else None
        return not self.left and (seen is None or now - seen < STALE_AFTER)


def _sealed(device: str) -> crypto.Sealed:
    return crypto.Sealed("device", device, 0)


def write(folder: Folder, key: bytes, record: DeviceRecord) -> None:
    data = json.dumps(asdict(record), sort_keys=True).encode()
    write_atomically(folder.device_file(record.device_id), crypto.seal(key, _sealed(record.device_id), data, FORMAT))


def read(folder: Folder, key: bytes, device: str) -> DeviceRecord:
    """The device's record; crypto.Unreadable with the reason when it cannot be used."""
    try:
        data = folder.device_file(device).read_bytes()
    except OSError as exc:
        raise crypto.Unreadable(f"cannot be read ({exc.strerror or exc})") from None
    plain = crypto.open_sealed(key, _sealed(device), data, FORMAT)
    try:
        fields = json.loads(plain)
        record = DeviceRecord(**fields)
    except (ValueError, TypeError):
        raise crypto.Unreadable("not a device record") from None
    if record.device_id != device:
        raise crypto.Unreadable("names another device")
    return record


def read_all(folder: Folder, key: bytes) -> tuple[dict[str, DeviceRecord], dict[str, str]]:
    """(readable records by device id, refused record files by name with the reason)."""
    records: dict[str, DeviceRecord] = {}
    refused: dict[str, str] = {}
    for device in folder.device_ids():
        try:
            records[device] = read(folder, key, device)
        except crypto.Unreadable as exc:
            refused[f"devices/{device}.hsd"] = str(exc)
    return records, refused


def stamp(record: DeviceRecord, now: datetime) -> DeviceRecord:
    record.last_seen = to_db(now)
    return record
