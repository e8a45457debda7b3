"""Is a text a changed version of a stored one? "The Golf is sold, we drive a BYD now" beside "we drive
a white Golf": about the same thing (close in meaning, a subject word in common), not the same
statement (other words, other values). The write gate keeps such a text whatever else it scores, and
one that also says a change supersedes the memory it changes (write/writer.py)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from hindsight_desktop.core.text import overlap, segment
from hindsight_desktop.core.text.language import dominant_language
from hindsight_desktop.core.text.word_forms import same_word
from hindsight_desktop.core.write import gate_language as lang
from hindsight_desktop.core.write.gate_rules import RULES_CHARS

# At least this close (calibration.closeness: 0 unrelated, 1 identical), with a subject word in common
# and the wording not repeated, two texts are about the same thing said differently. Unrelated
# memories of one person's life sit mostly below it, small talk well below it.
RESTATES = 0.45
# Clause ends (the punctuation is kept, so that a question's clause can be told).
CLAUSE = re.compile(r"([,.;:!?，。；：！？\n]+)")
# Subject terms of its own a text needs to say something other than a memory it is close to (a Chinese
# word counts as its character pairs, so one new word is about two).
NEW_WORDS = 2


def subject_terms(text: str) -> set[str]:
    """Surface terms (overlap.surface_terms) less function words, particles and single letters."""
    return {
        t
        for t in map(_singular_owner, overlap.surface_terms(text))
        if len(t) > 1 and t not in lang.STOPWORDS_EN and not all(ch in lang.PARTICLES_ZH for ch in t)
    }


def _singular_owner(term: str) -> str:
    """An owner's 's dropped, "leo's" -> "leo": the owner is the subject word ("Leo's soccer practice"
    beside "Leo practises")."""
    return term[:-2] if term.endswith(("'s", "\u2019s")) and len(term) > 3 else term


def about_same_thing(text: str, other: str, closeness: float, bar: float = RESTATES) -> bool:
    """Close enough, a subject word shared, and not a repeat of `other`: `text` brings words of its own
    (NEW_WORDS of them) or other numbers and names. Wording alone (overlap.same_statement) cannot
    tell: "the key is under the flowerpot by the back door" and "the key is in the lockbox by the
    garage door" share most of their words."""
    if closeness < bar:
        return False
    mine, theirs = subject_terms(text), subject_terms(other)
    if not mine & theirs:
        return False
    return len(mine - theirs) >= NEW_WORDS or not overlap.same_specifics(text, other)


def restated_closeness(text: str, neighbours: list[tuple[float, str]]) -> float:
    """The highest closeness among stored `neighbours` (closeness, text) that `text` restates
    differently (`about_same_thing`); 0 when there is none."""
    return max((c for c, other in neighbours if about_same_thing(text, other, c)), default=0.0)


def says_changed(text: str) -> bool:
    """The text says that something changed (gate_language.CHANGE, on the opening the rules read)."""
    return lang.CHANGE.search(unicodedata.normalize("NFKC", text[:RULES_CHARS]).lower()) is not None


def changed_neighbour(text: str, neighbours: list[tuple[str, float, str]]) -> str | None:
    """Of stored `neighbours` (id, closeness, text), the closest one `text` says has changed: it says a
    change (`says_changed`), is about the same thing (`about_same_thing`) and may give it a new value
    (`_new_value`). None when there is none."""
    if not says_changed(text):
        return None
    fitting = [
        (c, mid)
        for mid, c, other in neighbours
        if about_same_thing(text, other, c)
        and _new_value(text, other)
        and not owner_only(text, other)
        and names_what_changed(text, other)
    ]
    return max(fitting)[1] if fitting else None


def _new_value(text: str, other: str) -> bool:
    """Whether `text` may give `other` a new value: it names a number or a name `other` lacks, or it
    names none ("I moved to Lisbon last year" beside "I live in Lisbon now" tells the same city).
    Chinese text is not judged so: a name written against Chinese characters ("新外教Daniel") is not
    found as one, and a lone numeral is mostly a measure word ("一辆", "一片")."""
    if dominant_language(text) == "zh":
        return True
    mine = overlap.specifics(text)
    return not mine or bool(mine - overlap.specifics(other))


def owner_only(text: str, other: str) -> bool:
    """Whether every word the two texts share names an owner in both ("老家的电费…" beside "老家的水费…",
    "Lily's phone…" beside "Lily's laptop…"): then they speak of two things of one owner, and a change to
    one is no new value of the other. False when they share no word at all. Words are Chinese dictionary
    words of two characters or more and the other subject terms (not the character pairs that run across
    "的", which subject_terms also counts), read in each text's opening (what the rules read: a long text
    costs no more)."""
    mine, theirs = _opening(text), _opening(other)
    shared = _words(mine) & _words(theirs)
    return bool(shared) and all(_always_owner(mine, w) and _always_owner(theirs, w) for w in shared)


def _opening(text: str) -> str:
    return unicodedata.normalize("NFKC", text[:RULES_CHARS]).lower().replace("\u2019", "'")


def _words(folded: str) -> set[str]:
    words = {w for w in segment.words(folded) if len(w) > 1 and segment.has_han(w)}
    return words | {t for t in subject_terms(folded) if not segment.has_han(t)}


def _always_owner(folded: str, word: str) -> bool:
    """`word` occurs in `folded`, and an owner's mark follows it every time: "的" after a Chinese word,
    "'s" after another."""
    mark = "的" if segment.has_han(word) else "'s"
    at, seen = folded.find(word), False
    while at >= 0:
        end = at + len(word)
        whole = segment.has_han(word) or (
            (at == 0 or not folded[at - 1].isalnum()) and (end == len(folded) or not folded[end].isalnum())
        )
        if whole:
            if not folded.startswith(mark, end):
                return False
            seen = True
        at = folded.find(word, end)
    return seen


def names_what_changed(text: str, other: str) -> bool:
    """Whether `other` holds a word of what `text` says changed: the words before its change cue, in the
    clause that says it ("老家的电费 | 现在改成了…": 老家 or 电费; "Tony | 离职了"; "岳父把帕萨特 | 卖了").
    "燃气费改成从招行卡自动扣了" shares "自动扣" with that electricity bill, but not the bill. True when the
    cue opens its clause or nothing but fillers stands before it: nothing then names what changed."""
    theirs = Words.of(other)
    folded = unicodedata.normalize("NFKC", text[:RULES_CHARS]).lower()
    for clause in CLAUSE.split(folded)[0::2]:
        cue = lang.CHANGE.search(clause)
        if cue is None:
            continue
        before = clause[: cue.start()]
        named = {w for w in segment.words(before) if len(w) > 1 and w not in lang.WHEN_WORDS}
        named |= {t for t in subject_terms(before) if not segment.has_han(t) and t not in lang.WHEN_WORDS}
        return not named or any(theirs.hold(w) for w in named)
    return True


@dataclass(frozen=True)
class Words:
    """A text folded for looking words up in it, with its English subject terms."""

    folded: str
    terms: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Words:
        folded = unicodedata.normalize("NFKC", text).lower()
        return cls(folded, frozenset(t for t in subject_terms(folded) if not segment.has_han(t)))

    def hold(self, term: str) -> bool:
        """A Chinese word anywhere in the text, an English one in any of its forms (`same_word`: "photo"
        in "photos")."""
        if segment.has_han(term):
            return term in self.folded
        return term in self.terms or any(same_word(term, mine) for mine in self.terms)
