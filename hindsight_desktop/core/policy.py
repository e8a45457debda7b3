"""The maintenance policy: how memories fade, when they are archived, merged and consolidated.

Values come from the settings where the settings have them; the rest are defaults kept here, so the
whole policy reads in one place. Settings that this module looks for by name (all optional):
`decay_half_life_days`, `reinforcement_growth`, `reinforcement_spacing_days`,
`consolidation_similarity`, `consolidation_min_evidence`, `maintenance_batch`.

>>> policy = MaintenancePolicy(half_life_days=30)
>>> round(policy.strength(0.8, "episodic", 1.0, idle_days=30), 3)
0.4
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from hindsight_desktop.core.errors import InvalidInput

# Facts and procedures fade more slowly than events: people keep "what is true" longer than "what happened".
_LAYER_FACTORS = MappingProxyType({"episodic": 1.0, "semantic": 2.0, "procedural": 2.0, "working": 1.0})

# Policy field -> settings attribute that overrides it.
_FROM_SETTINGS = {
    "half_life_days": "decay_half_life_days",
    "archive_after_days": "archive_after_days",
    "importance_floor": "archive_importance_floor",
    "reinforce_growth": "reinforcement_growth",
    "reinforce_spacing_days": "reinforcement_spacing_days",
    "duplicate_similarity": "duplicate_similarity",
    "consolidation_similarity": "consolidation_similarity",
    "consolidation_min_evidence": "consolidation_min_evidence",
    "capacity_per_client": "capacity_per_client",
    "batch": "maintenance_batch",
}


@dataclass(frozen=True)
class MaintenancePolicy:
    """Strength = importance x 0.5 ** (days since last use / half-life); half-life = base x layer
    factor x stability. A use at least `reinforce_spacing_days` after the previous counted one
    multiplies stability by `reinforce_growth` (spaced reinforcement); uses in one sitting do not.
    An unpinned memory unused for `archive_after_days` whose strength is under `importance_floor`
    moves to cold storage (archived, never deleted)."""

    half_life_days: float = 60.0
    layer_factors: dict[str, float] = field(default_factory=lambda: dict(_LAYER_FACTORS))
    archive_after_days: float = 30.0
    importance_floor: float = 0.3
    reinforce_growth: float = 2.0
    reinforce_spacing_days: float = 1.0
    max_stability: float = 64.0
    duplicate_similarity: float = 0.9  # calibration.closeness, with overlap.same_statement as well
    consolidation_similarity: float = 0.75  # calibration.closeness: about as close as paraphrases
    consolidation_min_evidence: int = 3
    capacity_per_client: int = 0
    batch: int = 500
    neighbours: int = 8

    def __post_init__(self) -> None:
        for name in ("half_life_days", "reinforce_growth", "max_stability"):
            if getattr(self, name) <= 0:
                raise InvalidInput(f"{name} must be positive")
        if self.reinforce_growth < 1:
            raise InvalidInput("reinforcement_growth must be 1 or more (1 = no reinforcement)")
        if not 0 <= self.importance_floor <= 1:
            raise InvalidInput("archive_importance_floor must be between 0 and 1")
        if not 0.5 <= self.consolidation_similarity <= 1:
            raise InvalidInput("consolidation_similarity must be between 0.5 and 1")
        if self.consolidation_min_evidence < 2:
            raise InvalidInput("consolidation_min_evidence must be 2 or more")
        if not 1 <= self.batch <= 100_000:
            raise InvalidInput("maintenance_batch must be between 1 and 100000")

    @classmethod
    def from_settings(cls, settings: object, **overrides: Any) -> MaintenancePolicy:
        values: dict[str, Any] = {}
        for name, attr in _FROM_SETTINGS.items():
            if hasattr(settings, attr):
                values[name] = getattr(settings, attr)
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
        return (idle_days >= self.archive_after_days
                and self.strength(importance, layer, stability, idle_days) < self.importance_floor)

    def strength_sql(self, now_param: str = "?") -> str:
        """The same strength as an SQL expression over memories `m` (for ordering by it)."""
        cases = " ".join(f"WHEN '{layer}' THEN {factor!r}" for layer, factor in self.layer_factors.items())
        idle = f"max(0.0, julianday({now_param}) - julianday(coalesce(m.last_accessed_at, m.created_at)))"
        half = f"({self.half_life_days!r} * (CASE m.layer {cases} ELSE 1.0 END) * max(1.0, m.stability))"
        return f"(m.importance * pow(0.5, {idle} / {half}))"
