"""Where the app keeps its files, and the little it remembers between runs (not memories: those
live in the engine's database)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hindsight_desktop.config import SETTINGS_FILE, Settings, default_config_dir, default_data_dir

STATE_FILE = "app-state.json"


@dataclass(frozen=True)
class AppPaths:
    """The config dir (settings, app state) and the data dir (the memory file). Injectable for tests."""

    config_dir: Path
    data_dir: Path

    @classmethod
    def default(cls, config_dir: Path | None = None, data_dir: Path | None = None) -> AppPaths:
        return cls(Path(config_dir or default_config_dir()), Path(data_dir or default_data_dir()))

    @property
    def settings_file(self) -> Path:
        return self.config_dir / SETTINGS_FILE

    @property
    def state_file(self) -> Path:
        return self.config_dir / STATE_FILE

    def instance_key(self) -> str:
        """One running app per user and memory file: the local socket's name."""
        digest = hashlib.sha256(str(self.data_dir.resolve()).encode("utf-8")).hexdigest()[:16]
        user = os.environ.get("USER") or os.environ.get("USERNAME") or "user"
        return f"hindsight-desktop-{user}-{digest}"

    def load_settings(self) -> Settings:
        return Settings.load(self.settings_file)


@dataclass
class AppState:
    """Small facts the tray shows across restarts: the last maintenance and which clients it has seen."""

    last_maintenance: str | None = None  # ISO 8601 UTC
    last_report: dict[str, Any] = field(default_factory=dict)
    known_clients: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> AppState:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(raw, dict):
            return cls()
        return cls(
            last_maintenance=raw.get("last_maintenance"),
            last_report=dict(raw.get("last_report") or {}),
            known_clients=[str(c) for c in raw.get("known_clients") or []],
        )

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".app-state-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(self), handle, indent=2)
        os.replace(tmp, path)
