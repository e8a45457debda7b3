"""The sync folder's layout: where each file goes, which names are ours, atomic writes.

    <FOLDER>/hindsight-sync/folder.hsf                      key check, written once by `sync setup`
    <FOLDER>/hindsight-sync/devices/<device>.hsd            a device's record, rewritten only by that device
    <FOLDER>/hindsight-sync/changes/<device>/<seq>.hsc      a batch of changes, written once by its device
    <FOLDER>/hindsight-sync/snapshots/<device>/<seq>.hss    a device's whole synced state as of its file <seq>

Anything else is ignored: names starting with "." (our temp files, Syncthing's `.syncthing.*.tmp`) and
conflict copies (`*.sync-conflict-*`, which never arise when each device writes only its own files).
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from hindsight_desktop.core.errors import SyncFolderUnavailable

ROOT = "hindsight-sync"
FOLDER_FILE = "folder.hsf"
DEVICE_ID = re.compile(r"[0-9a-f]{16}")
_SEQ_DIGITS = 10
_NAME = re.compile(r"([0-9]{10})\.(hsc|hss)")
SUFFIX = {"changes": "hsc", "snapshot": "hss"}
SUBDIR = {"changes": "changes", "snapshot": "snapshots"}


def new_device_id() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class SyncFile:
    kind: str  # "changes" or "snapshot"
    device: str
    seq: int
    path: Path

    @property
    def name(self) -> str:
        """As reports show it: relative to the sync root."""
        return f"{SUBDIR[self.kind]}/{self.device}/{self.path.name}"


class Folder:
    """One sync folder, as the person chose it."""

    def __init__(self, chosen: Path) -> None:
        self.chosen = Path(chosen).expanduser()
        self.root = self.chosen / ROOT

    def check_reachable(self) -> None:
        if not self.chosen.is_dir():
            raise SyncFolderUnavailable(
                f"the sync folder {self.chosen} is not there (an unmounted drive or a moved folder?); "
                "nothing is lost: sync again once it is back"
            )

    def reachable(self) -> bool:
        return self.chosen.is_dir()

    @property
    def folder_file(self) -> Path:
        return self.root / FOLDER_FILE

    def device_file(self, device: str) -> Path:
        return self.root / "devices" / f"{device}.hsd"

    def file_path(self, kind: str, device: str, seq: int) -> Path:
        return self.root / SUBDIR[kind] / device / f"{seq:0{_SEQ_DIGITS}d}.{SUFFIX[kind]}"

    def device_ids(self) -> list[str]:
        """Devices with a record in the folder."""
        found = []
        for path in _entries(self.root / "devices"):
            stem, dot, suffix = path.name.partition(".")
            if suffix == "hsd" and dot and DEVICE_ID.fullmatch(stem):
                found.append(stem)
        return sorted(found)

    def files(self, kind: str) -> list[SyncFile]:
        """Every change (or snapshot) file in the folder, by device and sequence."""
        out = []
        for device_dir in _entries(self.root / SUBDIR[kind]):
            if not DEVICE_ID.fullmatch(device_dir.name) or not device_dir.is_dir():
                continue
            for path in _entries(device_dir):
                match = _NAME.fullmatch(path.name)
                if match and match.group(2) == SUFFIX[kind]:
                    out.append(SyncFile(kind, device_dir.name, int(match.group(1)), path))
        return sorted(out, key=lambda f: (f.device, f.seq))


def _ignored(name: str) -> bool:
    return name.startswith(".") or ".sync-conflict-" in name


def _entries(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if not _ignored(p.name)]
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise SyncFolderUnavailable(f"cannot read the sync folder {directory}: {exc}") from exc


def write_atomically(path: Path, data: bytes) -> None:
    """Write under a temporary name the readers ignore, flush it to disk, then rename: a sync service
    or a reader sees the whole file or none of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".hs-{secrets.token_hex(6)}.tmp")
    try:
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
