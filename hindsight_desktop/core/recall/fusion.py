"""How recall combines its signals into one relevance: a linear model per question language.

Every candidate is described by the same few signals (FEATURES), each in [0, 1]. The fused relevance
is their weighted sum. The weights are data (fusion_weights.json, fitted by bench/fusion_fit.py on
evaluation conversations kept apart from the ones they are checked on); HAND_SET is the combination
recall used before, kept as the fallback for a language the file does not name and as the baseline
the fit is measured against.

The fusion only orders results. How sure a result answers the question is `confidence`
(confidence.py), read from signals whose scale is known, so a new fusion cannot change its meaning.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from hindsight_desktop.core.errors import InvalidInput

FEATURES = (
    "vector",  # similarity on the model's calibrated scale
    "keyword",  # BM25 relative to the best match (or to a memory holding every term)
    "entity",  # rare names, codes and numbers the question names, plus the date window
    "period",  # the date window alone (the question names a time the memory falls in)
    "fact",  # the current statement of a fact the question asks about
    "link",  # score passed on from a linked strong hit
    "recency",
    "access",
    "importance",
    "pinned",
    "vector_rank",  # 1 for the nearest candidate, falling with its place among the candidates
    "keyword_rank",  # the same for the keyword order
)

WEIGHTS_FILE = Path(__file__).with_name("fusion_weights.json")
# The place at which a rank signal has fallen to half.
RANK_HALF = 5


@dataclass(frozen=True)
class Fusion:
    """A weight per feature; a missing one counts zero."""

    weights: dict[str, float]
    source: str = "hand-set"

    def score(self, values: dict[str, float]) -> float:
        return sum(w * values.get(name, 0.0) for name, w in self.weights.items())

    def score_columns(self, columns: Sequence[np.ndarray]) -> np.ndarray:
        """`score` of many candidates at once, each feature's values a column in FEATURES' order: the same
        products added in the same order, element by element, so every one's score is the same to the bit."""
        total = np.zeros(len(columns[0]) if columns else 0)
        for name, weight in self.weights.items():
            if name in FEATURES:  # a missing value adds a zero product: no change
                total = total + weight * columns[FEATURES.index(name)]
        return total


HAND_SET = Fusion(
    {
        "vector": 0.50,
        "keyword": 0.30,
        "entity": 0.10,
        "fact": 0.15,
        "link": 0.30,
        "recency": 0.04,
        "access": 0.02,
        "importance": 0.08,
        "pinned": 0.03,
    }
)


def rank_signal(place: int) -> float:
    """1 at the first place (0-based 0), one half at RANK_HALF places down."""
    return RANK_HALF / (RANK_HALF + place)


def parse(data: object, source: str) -> dict[str, Fusion]:
    """The per-language models of a weights file; a malformed file raises InvalidInput naming the problem."""
    if not isinstance(data, dict) or not isinstance(data.get("languages"), dict):
        raise InvalidInput(f"{source}: expected an object with a 'languages' object")
    out: dict[str, Fusion] = {}
    for language, block in data["languages"].items():
        weights = block.get("weights") if isinstance(block, dict) else None
        if not isinstance(weights, dict) or not weights:
            raise InvalidInput(f"{source}: language {language!r} has no 'weights' object")
        unknown = sorted(set(weights) - set(FEATURES))
        if unknown:
            raise InvalidInput(f"{source}: language {language!r} names unknown features {unknown}")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in weights.values()):
            raise InvalidInput(f"{source}: language {language!r} has a weight that is not a number")
        out[language] = Fusion({k: float(v) for k, v in weights.items()}, f"{source}:{language}")
    return out


@cache
def shipped() -> dict[str, Fusion]:
    """The fitted models shipped with the package ({} when there is no weights file)."""
    if not WEIGHTS_FILE.is_file():
        return {}
    return parse(json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")), WEIGHTS_FILE.name)


def for_language(language: str) -> Fusion:
    """The fusion for a question in `language` ("en" or "zh"): the fitted one, else the hand-set one."""
    return shipped().get(language, HAND_SET)
