"""How sure a search result answers the question: a probability-like number per result.

Fused relevance ranks results well but says nothing absolute: the best match for a question whose
answer was never told still comes first, with a relevance much like a real hit's. Confidence is read
from evidence whose scale is known:

- the question-to-memory cosine, against the model's measured levels for the question's and the
  memory's languages (calibration.py): a coin toss halfway between where off-topic memories reach
  only 5% of the time and where a typical answer lands; ~0.88 at the answer level, ~0.12 at the
  off-topic one;
- an exact match of something specific the question names (a name, a code, a number, a date);
- keywords the question and memory share, weighted by how rare they are (normalised BM25).

A search whose best result is below HIT_CONFIDENCE reports that nothing relevant was found.
"""

from __future__ import annotations

import math

from hindsight_desktop.core.model.calibration import Calibration

HIT_CONFIDENCE = 0.5
# How much each kind of exact evidence lifts the doubt left by the vectors (1 removes it all).
_ENTITY_LIFT = 0.6
_KEYWORD_LIFT = 0.35


def vector_confidence(cosine: float, scale: Calibration, asked: str = "en", stored: str = "en") -> float:
    """A logistic curve between the pair's off-topic 95th percentile and its typical answer.

    A bi-encoder puts a question near memories on its topic whether or not they answer it (measured
    for e5: a question the memory does not answer lands as close as one it does), so this tells
    "nothing on this topic" apart from "something on it", not a near miss from an answer.
    """
    pair = scale.pair(asked, stored)
    width = max(1e-3, (scale.answer[pair] - scale.off_topic_high[pair]) / 4.0)
    z = (cosine - scale.evidence_floor(asked, stored)) / width
    return 1.0 / (1.0 + math.exp(-min(60.0, max(-60.0, z))))  # a model with a tiny spread must not overflow


def confidence(cosine: float | None, entity: float, keyword: float, scale: Calibration,
               asked: str = "en", stored: str = "en") -> float:
    """Combine the vector's confidence with exact evidence (`entity`, `keyword` in [0, 1])."""
    doubt = 1.0 - (vector_confidence(cosine, scale, asked, stored) if cosine is not None else 0.0)
    doubt *= 1.0 - _ENTITY_LIFT * min(1.0, max(0.0, entity))
    doubt *= 1.0 - _KEYWORD_LIFT * min(1.0, max(0.0, keyword))
    return round(1.0 - doubt, 4)
