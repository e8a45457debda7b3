"""Where data lives, and the settings the engine and app read. One place for every default."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import platformdirs

from hindsight_desktop.core.errors import InvalidInput

APP_NAME = "hindsight-desktop"
DATA_DIR_ENV = "HINDSIGHT_DATA_DIR"
CONFIG_DIR_ENV = "HINDSIGHT_CONFIG_DIR"
DB_FILE = "memory.sqlite3"
SETTINGS_FILE = "settings.json"


def default_data_dir() -> Path:
    """HINDSIGHT_DATA_DIR when set, else the platform's user data folder."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_config_dir() -> Path:
    """HINDSIGHT_CONFIG_DIR when set, else the platform's user config folder."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def load_settings() -> Settings:
    """The settings the person saved in the app, so the CLI and MCP processes follow them too."""
    return Settings.load(default_config_dir() / SETTINGS_FILE)


@dataclass
class Settings:
    """Every tunable, with its default. Saved as JSON; unknown keys are ignored on load."""

    write_threshold: float = 0.6
    signal_weights: dict[str, float] = field(
        default_factory=lambda: {"density": 0.25, "novelty": 0.20, "relevance": 0.30, "emotion": 0.10, "explicit": 0.15}
    )
    recall_half_life_days: float = 14.0
    # Similarities below are on each model's measured scale (core/calibration.py, `closeness`): 0 is as
    # close as unrelated texts land, 1 identical; typical paraphrases land near 0.78 for the models measured.
    # A duplicate must also say the same thing in nearly the same words with the same numbers
    # (overlap.same_statement), so this bar only has to rule out texts that are merely on one topic.
    duplicate_similarity: float = 0.9
    working_ttl_hours: float = 24.0
    archive_after_days: int = 30
    archive_importance_floor: float = 0.3
    decay_half_life_days: float = 60.0  # how fast an unused memory's strength halves (events; facts x2)
    reinforcement_growth: float = 2.0  # a spaced re-use multiplies the half-life by this
    reinforcement_spacing_days: float = 1.0  # uses closer together than this count once
    consolidation_similarity: float = 0.75  # repeated episodic statements this alike become one fact
    consolidation_min_evidence: int = 3
    maintenance_batch: int = 500  # memories per short transaction; maintenance can stop between batches
    capacity_per_client: int = 0  # 0 = no cap
    # Assistants may delete for good (by id) only what they wrote; True lets them purge any memory they see.
    assistants_purge_any: bool = False
    idle_minutes: int = 10
    maintenance_every_hours: int = 24
    http_port: int = 8765
    embedding_model: str | None = None  # path of a GGUF file; None = the packaged default
    paused: bool = False
    # Secrets are always redacted. Personal identifiers (resident ID/身份证, passport, IBAN and phone
    # numbers) are kept by default, because people ask assistants to remember them; True redacts them too.
    redact_personal_ids: bool = False

    def validate(self) -> Settings:
        if not 0.0 <= self.write_threshold <= 1.0:
            raise InvalidInput("write_threshold must be between 0 and 1")
        if self.recall_half_life_days <= 0:
            raise InvalidInput("recall_half_life_days must be positive")
        if not 0.5 <= self.duplicate_similarity <= 1.0:
            raise InvalidInput("duplicate_similarity must be between 0.5 and 1")
        if not 1 <= self.http_port <= 65535:
            raise InvalidInput("http_port must be between 1 and 65535")
        if self.decay_half_life_days <= 0 or self.reinforcement_growth < 1:
            raise InvalidInput("decay_half_life_days must be positive and reinforcement_growth at least 1")
        if not 0.5 <= self.consolidation_similarity <= 1.0 or self.consolidation_min_evidence < 2:
            raise InvalidInput("consolidation_similarity must be in [0.5, 1] and consolidation_min_evidence >= 2")
        if self.capacity_per_client < 0:
            raise InvalidInput("capacity_per_client must be 0 (no cap) or more")
        if not isinstance(self.redact_personal_ids, bool):
            raise InvalidInput("redact_personal_ids must be true or false")
        if not isinstance(self.assistants_purge_any, bool):  # a string "no" must not read as yes
            raise InvalidInput("assistants_purge_any must be true or false")
        return self

    @classmethod
    def load(cls, path: Path) -> Settings:
        if not path.is_file():
            return cls()
        try:
            raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidInput(f"settings file {path} is unreadable: {exc}") from exc
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known}).validate()

    def save(self, path: Path) -> None:
        """Write atomically so a crash never leaves half a settings file."""
        self.validate()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(self), handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
