"""The maintenance policy: how memories fade, when they are archived, merged and consolidated.

Most values are settings: each such field names its option (`_setting("decay_half_life_days")`), whose
declaration in config.py gives the default and the allowed values, so the settings file, the settings
window and the policy cannot disagree. `from_settings` reads those options from a Settings object
(or any object with some of them). The few values that are not settings are defaults kept here.

>>> policy = MaintenancePolicy(half_life_days=30)
>>> round(policy.strength(0.8, "episodic", 1.0, idle_days=30), 3)
0.4
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from hindsight_desktop.config import OPTIONS
from hindsight_desktop.core.errors import InvalidInput

# Facts and procedures fade more slowly than events: people keep "what is true" longer than "what happened".
_LAYER_FACTORS = MappingProxyType({"episodic": 1.0, "semantic": 2.0, "procedural": 2.0, "working": 1.0})
_OPTION = "setting"  # metadata key: the settings option a policy field comes from


def _setting(name: str) -> Any:
    """A policy field set by the settings option `name`; its default is the option's."""
    return field(default=OPTIONS[name].default, metadata={_OPTION: name})


@dataclass(frozen=True)
class MaintenancePolicy:
    """Strength = importance x 0.5 ** (days since last use / half-life); half-life = base x layer
    factor x stability. A use at least `reinforce_spacing_days` after the previous counted one
    multiplies stability by `reinforce_growth` (spaced reinforcement); uses in one sitting do not.
    An unpinned memory unused for `archive_after_days` whose strength is under `importance_floor`
    moves to cold storage (archived, never deleted)."""

    half_life_days: float = _setting("decay_half_life_days")
    layer_factors: dict[str, float] = field(default_factory=lambda: dict(_LAYER_FACTORS))
    archive_after_days: float = _setting("archive_after_days")
    importance_floor: float = _setting("archive_importance_floor")
    reinforce_growth: float = _setting("reinforcement_growth")
    reinforce_spacing_days: float = _setting("reinforcement_spacing_days")
    max_stability: float = 64.0
    duplicate_similarity: float = _setting("duplicate_similarity")  # with overlap.same_statement as well
    consolidation_similarity: float = _setting("consolidation_similarity")  # about as close as paraphrases
    consolidation_min_evidence: int = _setting("consolidation_min_evidence")
    capacity_per_client: int = _setting("capacity_per_client")
    batch: int = _setting("maintenance_batch")
    neighbours: int = 8

    def __post_init__(self) -> None:
        for item in fields(self):
            if _OPTION in item.metadata:  # the option's own check: the error names the setting
                OPTIONS[item.metadata[_OPTION]].check(getattr(self, item.name))
        if self.max_stability <= 0:
            raise InvalidInput("max_stability must be positive")

    @classmethod
    def from_settings(cls, settings: object, **overrides: Any) -> MaintenancePolicy:
        """The policy the settings give, with `overrides` (policy field names; None keeps the setting)."""
        values: dict[str, Any] = {}
        for item in fields(cls):
            option = item.metadata.get(_OPTION)
            if option is not None and hasattr(settings, option):
                values[item.name] = getattr(settings, option)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise InvalidInput(f"unknown maintenance setting {unknown[0]!r}; known: {', '.join(sorted(known))}")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def half_life(self, layer: str, stability: float) -> float:
        return self.half_life_days * self.layer_factors.get(layer, 1.0) * max(1.0, stability)

    def strength(self, importance: float, layer: str, stability: float, idle_days: float) -> float:
        return importance * 0.5 ** (max(0.0, idle_days) / self.half_life(layer, stability))

    def fades(self, importance: float, layer: str, stability: float, idle_days: float) -> bool:
        """Whether an unpinned, active memory goes to cold storage now."""
        return (
            idle_days >= self.archive_after_days
            and self.strength(importance, layer, stability, idle_days) < self.importance_floor
        )
