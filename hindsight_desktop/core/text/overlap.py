"""How much two texts share on the surface: words for Latin script, character pairs for Chinese.

The write gate uses it beside the model: to judge novelty where the model tells a script's sentences
apart poorly (measured in calibration.py), and to make sure a "duplicate" really says the same thing
(a model may put "I live in Beijing" and "I live in Shanghai" almost on top of each other).

    >>> round(dice("我住在北京", "我住在北京市"), 2)
    0.89
    >>> same_specifics("flight CA1234 at 8:30", "flight CA1234 at 9:30")
    False
    >>> same_specifics("Alex noted the invoice", "Blake noted the invoice")
    False
    >>> same_specifics("The lake is there.", "Our lake is there.")
    True
"""

from __future__ import annotations

import re
import unicodedata

# Share of surface terms two texts must have in common to count as one statement said twice.
SAME_WORDING = 0.6
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:['.\-][a-z0-9]+)*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_NUMBER = re.compile(r"\d+(?:[.:/\-]\d+)*")
_CHINESE_NUMERALS = re.compile(r"[零一二三四五六七八九十百千万两]+")
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_OPENERS = frozenset(
    {
        "The",
        "A",
        "An",
        "This",
        "That",
        "These",
        "Those",
        "My",
        "Our",
        "Your",
        "His",
        "Her",
        "Its",
        "Their",
        "We",
        "You",
        "He",
        "She",
        "It",
        "They",
        "Today",
        "Tonight",
        "Yesterday",
        "Tomorrow",
        "Then",
        "Also",
        "And",
        "But",
        "So",
        "Now",
        "Just",
        "Remember",
        "Note",
        "Please",
        "Last",
        "Next",
        "Every",
    }
)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def surface_terms(text: str) -> set[str]:
    """Latin words, and the character pairs (or lone characters) of each Chinese run."""
    folded = _fold(text)
    terms = set(_LATIN_WORD.findall(folded))
    for run in _CJK_RUN.findall(folded):
        if len(run) == 1:
            terms.add(run)
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    return terms


def dice(a: str, b: str) -> float:
    """Dice coefficient of the two texts' surface terms, in [0, 1]."""
    left, right = surface_terms(a), surface_terms(b)
    if not left or not right:
        return 0.0
    return 2 * len(left & right) / (len(left) + len(right))


def specifics(text: str) -> set[str]:
    """Numbers (with their separators), Chinese numerals and capitalised names: what changes when a
    fact changes ("invoice 107", "三楼", "Alex noted…" against "Blake noted…")."""
    plain = unicodedata.normalize("NFKC", text)
    folded = plain.casefold()
    return set(_NUMBER.findall(folded)) | set(_CHINESE_NUMERALS.findall(folded)) | _names(plain)


def _names(text: str) -> set[str]:
    """Capitalised words, less the function words a sentence opens with ("The lake" and "Our lake")."""
    return {word for word in _NAME.findall(text) if word not in _OPENERS}


def same_specifics(a: str, b: str) -> bool:
    return specifics(a) == specifics(b)


def same_statement(a: str, b: str) -> bool:
    """Nearly the same words and exactly the same numbers and names: a repeat, not a changed fact."""
    return dice(a, b) >= SAME_WORDING and same_specifics(a, b)
