"""Where data lives, and the settings the engine and the app read.

Every option is declared once, below, as a field of `Settings` made with `setting(...)`: its type,
default, allowed values, the settings window's words for it and when a change takes effect. The
settings file, validation, the maintenance policy, the write gate's defaults and the settings
window's widgets are all derived from these declarations (through `OPTIONS`); see settings_schema.py.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import platformdirs

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.settings_schema import Effect, Option, options, setting

APP_NAME = "hindsight-desktop"
DATA_DIR_ENV = "HINDSIGHT_DATA_DIR"
CONFIG_DIR_ENV = "HINDSIGHT_CONFIG_DIR"
CACHE_DIR_ENV = "HINDSIGHT_CACHE_DIR"
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


def default_cache_dir() -> Path:
    """HINDSIGHT_CACHE_DIR when set, else the platform's user cache folder. It holds what is built from
    packages once per computer (the converted default model, the cross-language lexicon): public
    data only, never anything the person wrote, and safe to delete."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return _platform_cache_dir(*(os.environ.get(name) for name in _CACHE_DIR_INPUTS))


# What platformdirs reads to place the cache folder. It is looked up on every search (the lexicon's
# place), and platformdirs takes longer than the rest of that look-up, so it is kept per these values.
_CACHE_DIR_INPUTS = ("XDG_CACHE_HOME", "HOME", "LOCALAPPDATA", "USERPROFILE")


@functools.lru_cache(maxsize=8)
def _platform_cache_dir(*_inputs: str | None) -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def load_settings() -> Settings:
    """The settings the person saved in the app, so the CLI and MCP processes follow them too."""
    return Settings.load(default_config_dir() / SETTINGS_FILE)


# The settings window's groups (None in a declaration: kept in the file only, for those who tune by hand).
SERVER = "Server and maintenance"
MODEL = "Embedding model"
RECALL = "Recall and remembering"
FORGETTING = "Forgetting"
PRIVACY = "Privacy"
APPEARANCE = "Appearance"


@dataclass
class Settings:
    """Every option, declared once, in the order the settings file lists them. Saved as JSON; keys the
    file has that are not declared here (such as `paused` from older versions) are ignored on load."""

    write_threshold: float = setting(
        0.6,
        low=0.0,
        high=1.0,
        step=0.05,
        section=RECALL,
        label="Keep a memory when its score reaches",
        help="A write is kept when its score (the weighted signals below) reaches this. "
        "An explicit request to remember is always kept.",
    )
    signal_weights: dict[str, float] = setting(
        {"density": 0.25, "novelty": 0.20, "relevance": 0.30, "emotion": 0.10, "explicit": 0.15},
        keys={
            "density": "Information density",
            "novelty": "Novelty",
            "relevance": "Personal relevance",
            "emotion": "Emotion",
            "explicit": "Asked to remember",
        },
        low=0.0,
        high=1.0,
        some_positive=True,
        step=0.05,
        section=RECALL,
        label="weight",
        help="How much this signal counts in a write's score; the weights count in proportion to their sum.",
    )
    recall_half_life_days: float = setting(
        14.0,
        low=0.0,
        low_open=True,
        high=3650,
        step=1.0,
        unit=" days",
        section=RECALL,
        label="Recency half-life",
        help="In search ranking, a memory this many days old counts half as recent as a new one.",
    )
    # Similarities below are on each model's measured scale (core/model/calibration.py, `closeness`): 0 is as
    # close as unrelated texts land, 1 identical; typical paraphrases land near 0.78 for the models measured.
    # A duplicate must also say the same thing in nearly the same words with the same numbers
    # (overlap.same_statement), so this bar only has to rule out texts that are merely on one topic.
    duplicate_similarity: float = setting(
        0.9,
        low=0.5,
        high=1.0,
        label="Duplicate similarity",
        help="How alike (on the model's calibrated scale) a new write and a stored memory must be to be "
        "taken as the same statement.",
    )
    working_ttl_hours: float = setting(
        24.0,
        low=0.0,
        low_open=True,
        label="Working memory lasts",
        help="Hours a working-memory note is kept before it expires.",
    )
    archive_after_days: int = setting(
        30,
        low=0,
        high=3650,
        unit=" days",
        section=FORGETTING,
        label="Archive when unused for",
        help="An unpinned memory not used for this long is archived (cold storage, never deleted) "
        "once its strength falls below the importance floor.",
    )
    archive_importance_floor: float = setting(
        0.3,
        low=0.0,
        high=1.0,
        step=0.05,
        section=FORGETTING,
        label="…and importance below",
        help="The strength (importance, faded by disuse) under which an unused memory is archived.",
    )
    decay_half_life_days: float = setting(
        60.0,
        low=0.0,
        low_open=True,
        label="Decay half-life",
        help="Days in which an unused memory's strength halves (twice as long for facts and procedures).",
    )
    reinforcement_growth: float = setting(
        2.0,
        low=1.0,
        label="Reinforcement growth",
        help="A spaced re-use multiplies a memory's half-life by this (1: no reinforcement).",
    )
    reinforcement_spacing_days: float = setting(
        1.0,
        low=0.0,
        high=365,
        label="Reinforcement spacing",
        help="Uses closer together than this many days count once.",
    )
    consolidation_similarity: float = setting(
        0.75,
        low=0.5,
        high=1.0,
        label="Consolidation similarity",
        help="Repeated episodic statements this alike (calibrated scale) become one fact.",
    )
    consolidation_min_evidence: int = setting(
        3,
        low=2,
        label="Consolidation evidence",
        help="How many alike statements it takes to consolidate them into one fact.",
    )
    maintenance_batch: int = setting(
        500,
        low=1,
        high=100_000,
        label="Maintenance batch",
        help="Memories per short transaction; maintenance can stop between batches.",
    )
    capacity_per_client: int = setting(
        0,
        low=0,
        high=10_000_000,
        zero_means="no limit",
        section=FORGETTING,
        label="Memories per client",
        help="Above this many active memories, maintenance archives a client's weakest ones (0: no limit).",
    )
    assistants_purge_any: bool = setting(
        False,
        section=PRIVACY,
        label="Let assistants delete for good any memory they can see, not only their own",
        help="Off by default: an assistant can purge (delete for good) only what it wrote, by id. Anything "
        "else it can only archive, and you can undo that from the timeline.",
    )
    idle_minutes: int = setting(
        10,
        low=1,
        high=240,
        unit=" min",
        section=SERVER,
        label="Maintenance after idle for",
        help="Maintenance starts once you have been away from the computer this long, and stops when you come back.",
    )
    maintenance_every_hours: int = setting(
        24,
        low=1,
        high=24 * 14,
        unit=" h",
        section=SERVER,
        label="At most once every",
        help="The shortest time between two maintenance runs started by idleness.",
    )
    http_port: int = setting(
        8765,
        low=1,
        high=65535,
        section=SERVER,
        label="MCP HTTP port (127.0.0.1)",
        help="The port of the MCP server for assistants that connect over HTTP (on this computer only); "
        "the server restarts on the new port. Assistants set up with the old port need the new one.",
    )
    embedding_model: str | None = setting(
        None,
        section=MODEL,
        label="Embedding model",
        help="The path of a GGUF embedding model, or none for the built-in one. A new model re-embeds every "
        "memory in the background; search keeps working meanwhile.",
    )
    # Secrets are always redacted. Personal identifiers (resident ID/身份证, passport, IBAN and phone
    # numbers) are kept by default, because people ask assistants to remember them; True redacts them too.
    redact_personal_ids: bool = setting(
        False,
        section=PRIVACY,
        label="Also redact personal ID, passport, IBAN and phone numbers",
        help="Off by default: assistants may keep them when asked to remember them. Passwords, keys and "
        "tokens are always redacted.",
    )

    encrypt_memory_file: bool = setting(
        True,
        section=PRIVACY,
        label="Encrypt the memory file",
        effect=Effect.NEXT_START,
        help="On by default: the memory file is encrypted with a key kept in the OS keyring, and a plain file "
        "is encrypted at the next start. Off: a new memory file is made plain (an encrypted one stays "
        "encrypted).",
    )
    # Added with the inbox (issue 22): declared last, so a settings file keeps its order of keys.
    review_directives: bool = setting(
        True,
        section=PRIVACY,
        label="Hold assistants' standing instructions for my review",
        help='On by default: a memory that tells assistants how to behave ("always…", "never…", "from now '
        'on…"), written by an assistant, waits in the inbox until you approve it, even from an assistant you '
        "trust. Facts, preferences, events and how-tos are not held.",
    )
    inbox_expire_days: int = setting(
        30,
        low=1,
        high=3650,
        unit=" days",
        section=PRIVACY,
        label="Unreviewed proposals are rejected after",
        help="What waits in the inbox longer than this is rejected and deleted; the inbox shows what expires soon.",
    )
    appearance: str = setting(
        "system",
        choices={"system": "Follow the system", "light": "Light", "dark": "Dark"},
        section=APPEARANCE,
        label="Colours",
        help="Light or dark windows; Follow the system switches with your desktop's setting, also while the app "
        "runs.",
    )

    def validate(self) -> Settings:
        """Check every option (raises InvalidInput naming the option and the problem); a whole float
        given for a whole-number option becomes an int."""
        for option in OPTIONS.values():
            setattr(self, option.name, option.check(getattr(self, option.name)))
        return self

    @classmethod
    def load(cls, path: Path) -> Settings:
        """The saved settings, or the defaults when there is no file. A file that cannot be read or holds
        a bad value raises InvalidInput naming the file, the option and the problem: the app then starts
        with the defaults (app/main.py), the command line stops with exit code 2."""
        if not path.is_file():
            return cls()
        try:
            raw: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidInput(f"settings file {path} is unreadable: {exc}") from exc
        if not isinstance(raw, dict):
            raise InvalidInput(f"settings file {path} must hold a JSON object, not {type(raw).__name__}")
        try:
            return cls(**{k: v for k, v in raw.items() if k in OPTIONS}).validate()
        except InvalidInput as exc:
            raise InvalidInput(f"settings file {path}: {exc}") from exc

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


OPTIONS: Mapping[str, Option] = options(Settings)

# Declared so a later option can say it waits for a restart; today the app applies every change at once.
RESTART_OPTIONS: tuple[str, ...] = tuple(o.name for o in OPTIONS.values() if o.effect is Effect.NEXT_START)
