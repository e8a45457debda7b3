"""How sure a search result answers the question: a probability-like number per result.

Fused relevance ranks results well but says nothing absolute: the best match for a question whose
answer was never told still comes first, with a relevance much like a real hit's. Confidence is read
from evidence whose scale does not depend on what else the store holds (no share of the best hit, no
rank), so it means the same in a store of ten memories and of a hundred thousand:

- the centred question's similarity to the memory, as a probability fitted at load to the model's
  probe questions against their nearest non-answers (calibration.answer_probability);
- an exact match of something specific the question names (a name, a code, a number, a date);
- `coverage`: how much of the question's content the memory holds, its words weighted by how rare
  they are among the memories (a question's rarest word is usually its topic: "football" in "what is my
  favourite football team?"). A memory that shares none of the question's words is judged on its
  meaning alone, and meaning alone is weaker evidence than the probe's same-language answers (which
  share words). A memory in the other language could share the question's words only through
  translation, which finds few (the probe's cross-language answers share none): its sharing none
  counts against it as much as a translated word counts for it (CROSS);
- whether the memory is about whom the question asks (subjects.py): a near miss about another person
  lands as close in meaning as an answer, and is capped below HIT_CONFIDENCE; a memory that gives the
  name a question asks for ("新领导叫周敏" for "我现在的上司是谁？") holds the answer as exactly as a
  matched name or code, whatever its other words.

A search whose best result is below HIT_CONFIDENCE reports that nothing relevant was found.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.model.calibration import Calibration
from hindsight_desktop.core.recall.subjects import Match
from hindsight_desktop.core.text import segment

HIT_CONFIDENCE = 0.5
# How much each kind of exact evidence lifts the doubt left by the vectors (1 removes it all).
_ENTITY_LIFT = 0.6
_KEYWORD_LIFT = 0.35
# A memory that shares no content word with the question: the odds from its meaning are multiplied by
# this (the probe's same-language answers all share words with their questions), to the power of the
# share of the question's content written in the memory's script (Covered.comparable).
_MEANING_ONLY_ODDS = 0.35
# A memory about someone other than the one asked about is at most this sure.
_OTHER_SUBJECT = 0.4
CROSS = 0.5  # a content word held only in the other language's words (recall's CROSS_WEIGHT)
_BELOW_HIT = HIT_CONFIDENCE - 0.01  # a candidate kept only for its meaning is never claimed as an answer

_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN = re.compile("[A-Za-z]")
# Question words say what kind of answer is wanted; no memory holds them. Nor a word that asks for a name
# ("what is my daughter's name?" is answered by "my daughter Mia...").
_QUESTION_CHARS = frozenset("什么哪谁吗呢怎几")
_ASKS_FOR_NAME = frozenset(["name", "named", "called", "名字", "叫"])
_SIBILANT_ES = ("ches", "shes", "sses", "xes", "zes")


def content_terms(question: str) -> list[str]:
    """The question's words that a memory answering it may share: keyword terms (no stop words), Chinese
    words as the segmenter splits them (not the character pairs the index adds), no question words."""
    terms = keyword.query_terms(question)
    words = set(segment.words(question)) if _CJK.search(question) else set()
    return [
        t
        for t in terms
        if (not _CJK.search(t) or t in words)
        and not _QUESTION_CHARS.intersection(t)
        and "多少" not in t
        and t not in _ASKS_FOR_NAME
    ]


def _stem(word: str) -> str:
    """A rough English stem, enough to match "lives", "living" and "live", or "teaches" and "teach"."""
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(_SIBILANT_ES):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    elif word.endswith(("ing", "ed")) and len(word) > 5:
        word = word[: -3 if word.endswith("ing") else -2]
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def rarity(documents: int, rows: int) -> float:
    """A term's weight from how many of the `rows` memories hold it: high for a rare or absent one."""
    return math.log(1.0 + (rows - documents + 0.5) / (documents + 0.5))


class Covered(NamedTuple):
    """How much of the question's content a memory holds, as rarity-weighted shares of the question's."""

    share: float  # held by this memory (a word through translation counting CROSS)
    comparable: float  # what it could have shared: words in a script the memory uses, others CROSS


def coverage(terms: dict[str, float], memory: str, other: dict[str, list[str]] | None = None) -> Covered:
    """What of the question's content `terms` (term: weight) `memory` holds, and what of it the memory
    could hold: a Chinese word in a memory with Chinese characters, an English word in one with Latin
    letters, in full; a word of the other script counts CROSS (held only through translation).

    `other`: each term's words in the other language (bilingual.py); one of them in the memory counts
    `cross` of the term, as a keyword found through translation does in recall."""
    total = sum(terms.values())
    if total <= 0:
        return Covered(0.0, 1.0)  # nothing to judge the memory by but its meaning
    lowered = memory.lower()
    stems = {_stem(w) for w in keyword.query_terms(memory) if not _CJK.search(w)}

    def holds(term: str) -> bool:
        return term in lowered if _CJK.search(term) else _stem(term) in stems

    has_han, has_latin = bool(_CJK.search(memory)), bool(_LATIN.search(memory))
    held = comparable = 0.0
    for term, weight in terms.items():
        if holds(term):
            held += weight
        elif other and any(holds(t.lower()) for t in other.get(term, [])):
            held += CROSS * weight
        # A word in a script the memory lacks could be shared only through translation: it counts CROSS.
        comparable += weight if (has_han if _CJK.search(term) else has_latin) else CROSS * weight
    return Covered(held / total, comparable / total)


def confidence(
    similarity: float | None,
    entity: float,
    covered: float | Covered,
    scale: Calibration,
    asked: str = "en",
    *,
    same_subject: bool | Match = True,
    meaning_only: bool = False,
) -> float:
    """Combine the vector's confidence with exact evidence (`entity` in [0, 1], `covered`: coverage's, or
    its share alone, of a memory in the question's language).

    `same_subject`: the memory names whom the question asks about (or the question names no one);
    Match.NAMES: it gives the name the question asks for, exact evidence like `entity`.
    `meaning_only`: the memory was kept only as one of the nearest in meaning, below the floor."""
    p = scale.answer_probability(similarity, asked) if similarity is not None else 0.0
    share, comparable = covered if isinstance(covered, Covered) else (covered, 1.0)
    entity = 1.0 if same_subject == Match.NAMES else min(1.0, max(0.0, entity))
    share = min(1.0, max(0.0, share))
    if share <= 0 and entity <= 0 and 0 < p < 1:
        odds = p / (1 - p) * _MEANING_ONLY_ODDS ** min(1.0, max(0.0, comparable))
        p = odds / (1 + odds)
    doubt = 1.0 - p
    doubt *= 1.0 - _ENTITY_LIFT * entity
    doubt *= 1.0 - _KEYWORD_LIFT * share
    value = 1.0 - doubt
    if not same_subject:
        value = min(value, _OTHER_SUBJECT)
    if meaning_only:
        value = min(value, _BELOW_HIT)
    return round(value, 4)
