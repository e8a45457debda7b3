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
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from hindsight_desktop.config import OPTIONS
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.model.calibration import Calibration
from hindsight_desktop.core.write import gate_language as lang

# Declared with the other settings (config.py: signal_weights, write_threshold), where the settings window
# and the settings file take them from too.
DEFAULT_WEIGHTS: dict[str, float] = dict(OPTIONS["signal_weights"].default)
DEFAULT_THRESHOLD: float = OPTIONS["write_threshold"].default

TYPES = ("fact", "preference", "event", "plan", "instruction", "skill", "note", "chatter", "question")
LAYER_OF_TYPE = {
    "fact": "semantic",
    "preference": "semantic",
    "event": "episodic",
    "plan": "episodic",
    "note": "episodic",
    # Chatter and questions rarely pass; when the caller's importance lifts one, it is a moment.
    "chatter": "episodic",
    "question": "episodic",
    "instruction": "procedural",
    "skill": "procedural",
}

# Cue strengths. Positive ones become the relevance signal when the rules are sure.
_POSITIVE = (
    # (type, pattern, strength); order breaks ties: a standing order beats the fact inside it.
    ("instruction", lang.INSTRUCTION, 1.0),
    ("skill", lang.SKILL, 1.0),
    ("plan", lang.PLAN, 1.0),
    ("event", lang.EVENT, 1.0),
    ("preference", lang.PREFERENCE, 1.0),
    ("fact", lang.FACT, 1.0),
    ("plan", lang.PLAN_INTENT, 0.6),  # weak: the model decides
)
_NEGATIVE = (
    ("question", lang.QUESTION_START_EN, 0.9),
    ("question", lang.QUESTION_ZH, 0.9),
    ("question", lang.REQUEST, 0.9),
    ("chatter", lang.GREETING, 0.9),
    ("chatter", lang.FILLER, 0.9),
    ("chatter", lang.TRANSIENT, 0.85),
    ("chatter", lang.REPORTED_CHATTER, 0.9),
)
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
# The rules read only the opening of a long text: it says what the text is about, and it keeps a
# 32 KB import from costing a fifth of a second in regular expressions (1,000 chars: ~5 ms).
_RULES_CHARS = 1000
_SURE = 0.8  # a cue at least this strong decides without the model
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

_CLAUSE_SPLIT = re.compile(r"([!?;。\n]+|\.(?=\s|$)|~+)")
_WORD = re.compile(r"[a-z0-9][a-z0-9'_\-./:@#+]*|[\u4e00-\u9fff]")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SPECIFIC = re.compile(r"\d|[a-z0-9][./@_][a-z0-9]|\b[A-Z][a-z]+", re.UNICODE)
_CONTRACTION = re.compile(r"^(?:i|you|he|she|it|we|they|that|there|what|who|let)'(?:ll|re|ve|d|s|m)$")
_PUNCT_OR_SPACE = re.compile(r"[\s\W_]+", re.UNICODE)


@dataclass
class WriteScore:
    signals: dict[str, float]  # the five signals, each in [0, 1]
    score: float  # final score in [0, 1]
    passed: bool  # score >= threshold, or an explicit request to remember
    explicit: bool
    type: str  # one of TYPES
    layer: str  # semantic | episodic | procedural (the engine keeps non-passing writes in "working")
    reason: str  # one short sentence a person can read


@dataclass
class _Reading:
    """What the rules saw in one text."""

    explicit: bool
    lang: str  # "en" or "zh": the dominant script
    positive: dict[str, float] = field(default_factory=dict)  # type -> strongest cue
    negative: dict[str, float] = field(default_factory=dict)
    pure_chatter: bool = False  # nothing but acknowledgements, laughter, emoji

    @property
    def pos(self) -> float:
        return max(self.positive.values(), default=0.0)

    @property
    def neg(self) -> float:
        return max(self.negative.values(), default=0.0)

    @property
    def sure_keep(self) -> bool:
        return self.pos >= _SURE

    @property
    def sure_chatter(self) -> bool:
        return self.pure_chatter or (self.pos == 0.0 and self.neg >= _SURE)

    def kind(self) -> str:
        if self.positive:
            best = self.pos
            return next(t for t, _, _ in _POSITIVE if self.positive.get(t) == best)
        if self.pure_chatter:
            return "chatter"
        if self.negative:
            return max(self.negative, key=lambda t: self.negative[t])
        return "note"


def _normalise(text: str) -> str:
    # NFKC turns full-width "，？：" into ASCII so one set of patterns serves both languages.
    return unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'").strip()


def _first_person(low: str) -> str:
    for pattern, replacement in lang.THIRD_PERSON:
        low = pattern.sub(replacement, low)
    return low


def dominant_language(text: str) -> str:
    cjk = len(_CJK.findall(text))
    latin = len(re.findall(r"[A-Za-z]+", text))
    return "zh" if cjk and cjk >= latin else "en"


def _explicit(norm: str) -> tuple[bool, str]:
    """Is this an explicit request to remember? Returns it and the text without the wrapper."""
    low = norm.lower()
    match = lang.EXPLICIT_EN.search(low)
    if match and not (low.rstrip().endswith("?") and lang.EXPLICIT_EN_QUESTION.search(low)):
        body = (low[: match.start()] + " " + low[match.end() :]).strip()
        body = re.sub(r"^(?:that|this|:|,|-)\s*", "", body).strip(" :,-")
        if match.group(0).startswith(("can", "could", "would", "will")):
            # "can you remember that I'm vegan?" asks for a memory; the fact inside is no question.
            body = body.rstrip("?")
        return True, body
    match = lang.EXPLICIT_ZH.search(low)
    if match and not lang.EXPLICIT_ZH_QUESTION.search(low):
        body = low[: match.start()] + low[match.end() :]
        return True, body.strip(" :,，：-")
    return False, low


def _is_pure_chatter(low: str) -> bool:
    words = re.findall(r"[a-z']+", low)
    if any(w not in lang.ACK_WORDS_EN for w in words) or len(words) > 8:
        return False
    rest = lang.ACK_ZH.sub("", re.sub(r"[a-z']+", "", low))
    rest = lang.EMOJI.sub("", rest)
    return not _PUNCT_OR_SPACE.sub("", rest)


def _read(text: str) -> _Reading:
    norm = _normalise(text)
    explicit, body = _explicit(norm)
    body = _first_person(body)
    reading = _Reading(explicit=explicit, lang=dominant_language(norm))
    reading.pure_chatter = not explicit and _is_pure_chatter(body)
    if reading.pure_chatter:
        reading.negative["chatter"] = 1.0
        return reading
    parts = _CLAUSE_SPLIT.split(body)
    # Pair every clause with the punctuation that ended it, so "…?" marks a question.
    for clause, end in zip(parts[0::2], [*parts[1::2], ""], strict=True):
        clause = clause.strip(" ,:-")
        if not clause:
            continue
        asked = "?" in end
        # A standing order can read like a request ("帮我写邮件的时候别用敬语"); the order wins.
        ordered = lang.INSTRUCTION.search(clause) is not None
        for kind, pattern, strength in _NEGATIVE:
            if pattern.search(clause) and not (ordered and pattern is lang.REQUEST):
                reading.negative[kind] = max(reading.negative.get(kind, 0.0), strength)
                asked = asked or kind == "question"
        if asked:
            # What sits inside a question or a one-off request is not a statement about the person.
            reading.negative["question"] = max(reading.negative.get("question", 0.0), 0.9)
            continue
        if _is_pure_chatter(clause):
            continue
        for kind, pattern, strength in _POSITIVE:
            if pattern.search(clause):
                reading.positive[kind] = max(reading.positive.get(kind, 0.0), strength)
    return reading


def _density(text: str, entity_count: int, chatter: bool) -> float:
    """Share of content-bearing words, with a bonus for names, numbers and code."""
    if chatter:
        return 0.0
    low = _normalise(text).lower()
    total = content = 0.0
    for token in _WORD.findall(low):
        if _CJK.match(token):
            # Roughly 1.7 Chinese characters make one word.
            total += 1 / 1.7
            content += 0.0 if token in lang.PARTICLES_ZH else 1 / 1.7
        else:
            total += 1
            word = token.strip(".:,")
            stop = word in lang.STOPWORDS_EN or _CONTRACTION.match(word) is not None
            content += 0.0 if stop else 1
    if total == 0 or content == 0:
        return 0.0
    ratio = min(1.0, (content / total) / 0.6)
    size = min(1.0, content / 4.0)
    specifics = len(_SPECIFIC.findall(_normalise(text)[1:])) + max(0, entity_count)
    return min(1.0, 0.6 * ratio + 0.4 * size + min(0.3, 0.1 * specifics))


def _emotion(text: str) -> float:
    norm = _normalise(text)
    words = len(lang.EMOTION.findall(norm))
    emoji = len(lang.EMOJI.findall(norm))
    bangs = min(3, norm.count("!"))
    shouting = 1 if re.search(r"\b[A-Z]{4,}\b", norm) else 0
    return min(1.0, 0.35 * words + 0.12 * emoji + 0.1 * bangs + 0.15 * shouting)


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
        kind = _read(self._text(text)[:_RULES_CHARS]).kind()
        return kind, LAYER_OF_TYPE[kind]

    def score(
        self,
        text: str,
        *,
        novelty: float = 1.0,
        importance: float | None = None,
        entity_count: int = 0,
    ) -> WriteScore:
        """Score one write. `novelty` is 1 - the highest cosine to stored memories (clamped to
        [0, 1], since a negative cosine would push it past 1); `importance`, when given, can only
        raise the score."""
        text = self._text(text)
        if isinstance(novelty, bool) or not isinstance(novelty, int | float) or not math.isfinite(novelty):
            raise InvalidInput("novelty must be a number between 0 and 1")
        if importance is not None:
            importance = _unit(importance, "importance")
        if isinstance(entity_count, bool) or not isinstance(entity_count, int) or entity_count < 0:
            raise InvalidInput("entity_count must be a whole number of 0 or more")

        head = text[:_RULES_CHARS]
        reading = _read(head)
        relevance, judged_by = self._relevance(text, reading)
        signals = {
            "density": _density(head, entity_count, reading.pure_chatter),
            "novelty": min(1.0, max(0.0, float(novelty))),
            "relevance": relevance,
            "emotion": _emotion(head),
            "explicit": 1.0 if reading.explicit else 0.0,
        }
        signals = {k: round(v, 4) for k, v in signals.items()}
        weighted = sum(self.weights[k] * v for k, v in signals.items())
        final = max(weighted, importance) if importance is not None else weighted
        final = round(min(1.0, max(0.0, final)), 4)
        passed = reading.explicit or final >= self.threshold
        kind = reading.kind()
        reason = self._reason(reading, kind, final, weighted, importance, passed, judged_by)
        return WriteScore(signals, final, passed, reading.explicit, kind, LAYER_OF_TYPE[kind], reason)

    # --- internals -------------------------------------------------------------------------

    @staticmethod
    def _text(text: object) -> str:
        if not isinstance(text, str):
            raise InvalidInput(f"text must be a string, not {type(text).__name__}")
        if not text.strip():
            raise InvalidInput("text is empty")
        return text

    def _relevance(self, text: str, reading: _Reading) -> tuple[float, str]:
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
        reading: _Reading,
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
            return (
                f"Kept: the caller's importance {importance:.2f} lifted the score above {self.threshold:.2f}."
            )
        # Two decimals unless that would make "0.60 < 0.60" of a near miss.
        digits = 2 if round(final, 2) != round(self.threshold, 2) else 3
        shown, bar = f"{final:.{digits}f}", f"{self.threshold:.{digits}f}"
        if passed:
            return f"Kept: looks like {what}{by}, score {shown} >= {bar}."
        return f"Not kept: looks like {what}{by}, score {shown} < {bar}."
