"""How sure a search result answers the question: a probability-like number per result.

Fused relevance ranks results well but says nothing absolute: the best match for a question whose
answer was never told still comes first, with a relevance much like a real hit's. Confidence is read
from evidence whose scale is known:

- the centred question's similarity to the memory, as a probability fitted at load to the model's
  probe questions and the sentences that do and do not answer them (calibration.answer_probability);
- an exact match of something specific the question names (a name, a code, a number, a date);
- keywords the question and memory share, weighted by how rare they are (normalised BM25).

A search whose best result is below HIT_CONFIDENCE reports that nothing relevant was found.
"""

from __future__ import annotations

from hindsight_desktop.core.model.calibration import Calibration

HIT_CONFIDENCE = 0.5
# How much each kind of exact evidence lifts the doubt left by the vectors (1 removes it all).
_ENTITY_LIFT = 0.6
_KEYWORD_LIFT = 0.35


def confidence(similarity: float | None, entity: float, keyword: float, scale: Calibration, asked: str = "en") -> float:
    """Combine the vector's confidence with exact evidence (`entity`, `keyword` in [0, 1])."""
    doubt = 1.0 - (scale.answer_probability(similarity, asked) if similarity is not None else 0.0)
    doubt *= 1.0 - _ENTITY_LIFT * min(1.0, max(0.0, entity))
    doubt *= 1.0 - _KEYWORD_LIFT * min(1.0, max(0.0, keyword))
    return round(1.0 - doubt, 4)
