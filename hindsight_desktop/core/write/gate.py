"""The write gate: is this text worth remembering?

A write is scored on five signals in [0, 1] (density, novelty, relevance, emotion, explicit)
combined by a weighted sum. Rules screen first: clear small talk scores low, clear personal
facts, preferences, plans, standing orders and procedures score high. When the rules are unsure
the embedding model settles it by comparing the text with two small sets of prototype sentences
(`gate_language.py`). An explicit "remember…" always passes.

    >>> scorer = WriteScorer()  # rules only
    >>> scorer.score("I'm allergic to peanuts").passed
    True
    >>> scorer.score("thanks!").passed
    False
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from hindsight_desktop.config import OPTIONS
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.model.calibration import Calibration
from hindsight_desktop.core.write import gate_language as lang
from hindsight_desktop.core.write.gate_change import RESTATES
from hindsight_desktop.core.write.gate_rules import (
    LAYER_OF_TYPE,
    RULES_CHARS,
    Reading,
    density,
    emotion,
    read_cues,
)

# Declared with the other settings (config.py: signal_weights, write_threshold), where the settings window
# and the settings file take them from too.
DEFAULT_WEIGHTS: dict[str, float] = dict(OPTIONS["signal_weights"].default)
DEFAULT_THRESHOLD: float = OPTIONS["write_threshold"].default

# How the reason sentence names each type.
_DESCRIBED = {
    "fact": "a personal fact",
    "preference": "a preference",
    "event": "something that happened",
    "plan": "a plan or appointment",
    "instruction": "a standing instruction",
    "skill": "a how-to",
    "note": "a note",
    "chatter": "small talk or an acknowledgement",
    "question": "a one-off question or request",
}
_BORDER_PRIOR = 0.45  # relevance the rules give when they cannot tell
_CHATTER_RELEVANCE = 0.05
# How much the model's opinion counts on a borderline text, for a model that tells paraphrases apart
# in that script every time; a weaker one (measured: calibration.separation) counts for less.
_MODEL_SHARE = 0.8
_MODEL_TOP_K = 3


@dataclass(frozen=True)
class _Prototypes:
    """The prototype vectors, and where this model puts the keep-minus-chatter margin.

    The margin's scale differs per model (a tenth of it for e5 against MiniLM), so it is measured on
    the prototypes themselves, each left out of its own set: the vote is 0.5 halfway between the
    median margins of the two sets and ~0.88 / ~0.12 at those medians.
    """

    keep: np.ndarray
    chatter: np.ndarray
    midpoint: float
    temperature: float


# Per model id: every engine of a process that uses one model shares them.
_prototype_cache: dict[str, _Prototypes] = {}
_prototype_lock = threading.Lock()


def _margin(vector: np.ndarray, keep: np.ndarray, chatter: np.ndarray) -> float:
    k = _MODEL_TOP_K
    return float(np.mean(np.sort(keep @ vector)[-k:]) - np.mean(np.sort(chatter @ vector)[-k:]))


def _measure_prototypes(keep: np.ndarray, chatter: np.ndarray) -> _Prototypes:
    kept = [_margin(keep[i], np.delete(keep, i, axis=0), chatter) for i in range(len(keep))]
    chat = [_margin(chatter[i], keep, np.delete(chatter, i, axis=0)) for i in range(len(chatter))]
    high, low = float(np.median(kept)), float(np.median(chat))
    return _Prototypes(keep, chatter, (high + low) / 2, max(1e-4, (high - low) / 4))


@dataclass
class WriteScore:
    signals: dict[str, float]  # the five signals, each in [0, 1]
    score: float  # final score in [0, 1]
    passed: bool  # score >= threshold, or an explicit request to remember
    explicit: bool
    type: str  # one of TYPES
    layer: str  # semantic | episodic | procedural (the engine keeps non-passing writes in "working")
    reason: str  # one short sentence a person can read
    changes: bool = False  # it says something changed, or restates a stored memory differently: always kept


def _check_weights(weights: dict[str, float] | None) -> dict[str, float]:
    if weights is None:
        return dict(DEFAULT_WEIGHTS)
    if not isinstance(weights, dict) or set(weights) != set(DEFAULT_WEIGHTS):
        raise InvalidInput(f"weights must have exactly the keys {sorted(DEFAULT_WEIGHTS)}")
    for key, value in weights.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise InvalidInput(f"weights[{key!r}] must be a number")
        if value < 0:
            raise InvalidInput(f"weights[{key!r}] must not be negative, got {value}")
    total = float(sum(weights.values()))
    if total <= 0:
        raise InvalidInput("weights must not all be zero")
    return {key: float(value) / total for key, value in weights.items()}


def _unit(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(f"{name} must be a number between 0 and 1")
    if not 0.0 <= value <= 1.0:
        raise InvalidInput(f"{name} must be between 0 and 1, got {value}")
    return float(value)


class WriteScorer:
    """Scores writes. With `embed=None` it runs on rules alone; with a model it also asks the
    model about texts the rules cannot call. Safe to share between threads."""

    def __init__(
        self,
        embed: Callable[..., np.ndarray] | None = None,
        weights: dict[str, float] | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        calibration: Calibration | None = None,
    ) -> None:
        self.weights = _check_weights(weights)
        self.threshold = _unit(threshold, "threshold")
        self._embed = embed
        self.calibration = calibration
        self._prototypes: _Prototypes | None = None
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Embed the prototype sentences now (when the model loads), not on the first borderline write."""
        if self._embed is not None:
            self._prototype_vectors()

    def retune(self, weights: dict[str, float] | None, threshold: float) -> None:
        """New weights and threshold, checked before either changes; the cached prototypes stay."""
        checked_weights, checked_threshold = _check_weights(weights), _unit(threshold, "threshold")
        self.weights, self.threshold = checked_weights, checked_threshold

    def classify(self, text: str) -> tuple[str, str]:
        """(type, layer) of a text; an explicit "remember that…" wrapper does not change the type."""
        kind = read_cues(self._text(text)[:RULES_CHARS]).kind()
        return kind, LAYER_OF_TYPE[kind]

    def score(
        self,
        text: str,
        *,
        novelty: float = 1.0,
        importance: float | None = None,
        entity_count: int = 0,
        related: float = 0.0,
        written: datetime | None = None,
    ) -> WriteScore:
        """Score one write. `novelty` is 1 - the highest cosine to stored memories (clamped to
        [0, 1], since a negative cosine would push it past 1); `importance`, when given, can only
        raise the score; `related` is the closeness of a stored memory the text restates in other
        words (gate_change.restated_closeness): at RESTATES or above, the text is kept as a possible change;
        `written`, when the text was written (timezone-aware), places the dates it names before or after it."""
        text = self._text(text)
        if written is not None and (not isinstance(written, datetime) or written.utcoffset() is None):
            raise InvalidInput("written must be a timezone-aware datetime")
        if isinstance(novelty, bool) or not isinstance(novelty, int | float) or not math.isfinite(novelty):
            raise InvalidInput("novelty must be a number between 0 and 1")
        if importance is not None:
            importance = _unit(importance, "importance")
        if isinstance(entity_count, bool) or not isinstance(entity_count, int) or entity_count < 0:
            raise InvalidInput("entity_count must be a whole number of 0 or more")

        head = text[:RULES_CHARS]
        reading = read_cues(head, written.astimezone(UTC).date() if written is not None else None)
        relevance, judged_by = self._relevance(text, reading)
        signals = {
            "density": density(head, entity_count, reading.pure_chatter),
            "novelty": min(1.0, max(0.0, float(novelty))),
            "relevance": relevance,
            "emotion": emotion(head),
            "explicit": 1.0 if reading.explicit else 0.0,
        }
        signals = {k: round(v, 4) for k, v in signals.items()}
        weighted = sum(self.weights[k] * v for k, v in signals.items())
        final = max(weighted, importance) if importance is not None else weighted
        final = round(min(1.0, max(0.0, final)), 4)
        kind = reading.kind()
        # A change is kept whatever else it scores: losing the new value leaves the old one answering.
        changes = kind not in ("chatter", "question") and (reading.change or related >= RESTATES)
        passed = reading.explicit or final >= self.threshold
        if changes and not passed:
            passed = True
            why = "it restates a stored memory differently" if related >= RESTATES else "it says something changed"
            reason = f"Kept: {why}, so it may replace what was stored (score {final:.2f})."
        else:
            reason = self._reason(reading, kind, final, weighted, importance, passed, judged_by)
        return WriteScore(signals, final, passed, reading.explicit, kind, LAYER_OF_TYPE[kind], reason, changes)

    # --- internals -------------------------------------------------------------------------

    @staticmethod
    def _text(text: object) -> str:
        if not isinstance(text, str):
            raise InvalidInput(f"text must be a string, not {type(text).__name__}")
        if not text.strip():
            raise InvalidInput("text is empty")
        return text

    def _relevance(self, text: str, reading: Reading) -> tuple[float, str]:
        """Future relevance, and who decided it: "rules" or "model"."""
        if reading.sure_keep:
            return reading.pos, "rules"
        if reading.sure_chatter:
            return _CHATTER_RELEVANCE, "rules"
        prior = _BORDER_PRIOR + 0.3 * (reading.pos - reading.neg)
        prior = min(1.0, max(0.0, prior))
        if self._embed is None:
            return prior, "rules"
        vote = self._model_vote(text)
        share = _MODEL_SHARE * self._separation(reading.lang)
        return (1 - share) * prior + share * vote, "model"

    def _separation(self, language: str) -> float:
        """How well the model tells texts of this script apart (1.0 when not measured)."""
        if self.calibration is None:
            return 1.0
        return self.calibration.separation[self.calibration.script(language)]

    def _model_vote(self, text: str) -> float:
        """Probability-like vote in [0, 1] that the text resembles the worth-keeping prototypes."""
        found = self._prototype_vectors()
        vector = np.asarray(self._embed([text]), dtype=np.float32)[0]  # type: ignore[misc]
        margin = _margin(vector, found.keep, found.chatter)
        z = (margin - found.midpoint) / found.temperature
        return 1.0 / (1.0 + math.exp(-min(60.0, max(-60.0, z))))  # a model with a tiny spread must not overflow

    def _prototype_vectors(self) -> _Prototypes:
        # Embedded once per model and process (`warm`, at load); both sets in one call.
        with self._lock:
            if self._prototypes is None:
                key = self.calibration.model_id if self.calibration is not None else None
                with _prototype_lock:
                    cached = _prototype_cache.get(key) if key else None
                if cached is None:
                    keep, chatter = list(lang.KEEP_PROTOTYPES), list(lang.CHATTER_PROTOTYPES)
                    vectors = np.asarray(self._embed(keep + chatter), dtype=np.float32)  # type: ignore[misc]
                    cached = _measure_prototypes(vectors[: len(keep)], vectors[len(keep) :])
                    if key:
                        with _prototype_lock:
                            _prototype_cache[key] = cached
                self._prototypes = cached
            return self._prototypes

    def _reason(
        self,
        reading: Reading,
        kind: str,
        final: float,
        weighted: float,
        importance: float | None,
        passed: bool,
        judged_by: str,
    ) -> str:
        if reading.explicit:
            return "Kept: an explicit request to remember it."
        what = _DESCRIBED[kind]
        by = " (judged by the model)" if judged_by == "model" else ""
        if passed and importance is not None and importance > weighted:
            return f"Kept: the caller's importance {importance:.2f} lifted the score above {self.threshold:.2f}."
        # Two decimals unless that would make "0.60 < 0.60" of a near miss.
        digits = 2 if round(final, 2) != round(self.threshold, 2) else 3
        shown, bar = f"{final:.{digits}f}", f"{self.threshold:.{digits}f}"
        if passed:
            return f"Kept: looks like {what}{by}, score {shown} >= {bar}."
        return f"Not kept: looks like {what}{by}, score {shown} < {bar}."
