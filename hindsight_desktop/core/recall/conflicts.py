"""A changed fact that nothing replaced at write time still comes first when asked about.

"Zhou Min pulled the daily standup earlier to 9:40" beside "our standup is at 10:15": the write path
supersedes only when it is sure the two are about one thing (a fact key, or close enough in meaning,
gate_change.RESTATES). Below that, both stay current, and the older one, which shares the question's
words, ranks first. At recall the question says what is asked, so a pair is taken as two values of one
attribute when:
- the newer says that something the older speaks of changed (a change said in a statement, in a clause
  that shares a subject word with the older), or, said without a change word, it answers the question
  alike in words and in meaning (KEYWORD_TIE, VECTOR_TIE of the older's keyword and vector evidence;
  or, in words, it holds every term of the question the older holds, in any of their forms: "practises"
  is "practice"), or it names what the older answered with, in a clause apart from whom and what both
  speak of ("no more oatmeal", "瑞尔那边多少有点贵": `_names_old_answer`),
- both answer the question nearly as well (the newer scores at least ALIKE of the older's relevance and
  is ranked at most GAP places below it, or NAMED_GAP when it names the older's answer),
- they are about the same thing said differently (gate_change.about_same_thing at CONFLICT: close to
  each other, a subject word in common, other words or other numbers and names).
Then the newer goes right before the older (each pairs with one, its closest); nothing else moves.
A question about an earlier state or a past event ("what did I use before?", "以前…", "上个月…了？") is
left as ranked.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import apsw
import numpy as np

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.recall import subjects
from hindsight_desktop.core.store import memories
from hindsight_desktop.core.text import segment
from hindsight_desktop.core.text.extract_dates import MONTH_NAMES, WEEKDAY_NAMES
from hindsight_desktop.core.text.word_forms import same_word
from hindsight_desktop.core.write import gate_language as lang
from hindsight_desktop.core.write.gate_change import CLAUSE, Words, about_same_thing, owner_only, subject_terms
from hindsight_desktop.core.write.gate_rules import read_cues

if TYPE_CHECKING:
    from hindsight_desktop.core.recall.hybrid import Ranked

# Closeness (calibration.closeness) from which two answers to one question can state one attribute;
# lower than the write path's RESTATES because the question, and the change the newer one says, vouch too.
CONFLICT = 0.35
# Without a change said in words, two near-tied answers to one question that are about the same thing
# (at CONFLICT) state one attribute when the newer holds at least these shares of the older's keyword and
# vector evidence ("I take my tea with two sugars", later "no sugar in my tea these days"): the question,
# both answering it alike in its words and its meaning, vouches for the rest.
KEYWORD_TIE = 0.75
VECTOR_TIE = 0.8
# The newer must score at least this share of the older's relevance: both are answers, not one answer
# and a memory that merely mentions the same person.
ALIKE = 0.6
# ...and be at most this many places below it: a near tie, which the date decides. A newer answer far
# below is left where the scores put it (in a conversation, many turns say "new" or "moved").
GAP = 2
# A newer answer that names the older's answer (`_names_old_answer`) may be this many places below it.
NAMED_GAP = 4
# The question's terms count as word evidence (`_covered`) when the older holds at least this many...
MIN_TERMS = 2
# ...leaving out those that this share of the results or more hold (`_distinguishing`).
COMMON_SHARE = 0.5
# A word of the older's answer that the newer names ties the two when at most this many other results hold
# it: the pair and one more (a third memory may name the old value too), not the small talk of many.
RARE = 1
_PAST = re.compile(
    r"\b(?:did|was|were|had|used\s+to|ago|before|previous(?:ly)?|originally|formerly|former|old|first|last)\b"
    r"|以前|之前|原来|原先|当时|过去|曾经|上次|最早|一开始|旧的|老的|的时候|上个?月|上周|上星期|去年|昨天|前天"
    r"|了[？?吗]*$",
    re.IGNORECASE,
)

# Words that say when, how often or how many, not what (`_answer_words`), besides gate_language.WHEN_WORDS:
# a numeral (一辆, 周二), "every" (每周), a part of the day; in English in any form ("Wednesdays").
_NUMERAL = re.compile(r"[\d零〇一二三四五六七八九十百千万两]")
_WHEN_ZH = re.compile(r"每|周[日天末]|星期|礼拜|凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜|半年")
_WHEN_EN = frozenset(
    {
        *WEEKDAY_NAMES,
        *MONTH_NAMES,
        *(w for w in lang.WHEN_WORDS if w.isascii()),
        *("morning", "afternoon", "evening", "night", "weekend", "weekday", "daily", "weekly", "monthly"),
        *("yearly", "every", "twice", "usually", "often", "always", "sometimes"),
        *("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "hundred"),
    }
)
# Names do not depend on when a text is read (subjects.of finds dates too).
_REFERENCE = datetime(2000, 1, 1, tzinfo=UTC)


def asks_current(question: str) -> bool:
    """The question asks for what holds now, not for an earlier state or a past event."""
    return _PAST.search(question.strip()) is None


def newer_first(
    parts: Parts, db: apsw.Connection, ranked: list[Ranked], question: str, window: int
) -> list[tuple[int, int]]:
    """Reorder `ranked` in place so that, among its first `window` results, a newer statement that says
    it changed what an older one states comes right before it. Returns the (newer, older) rowid pairs."""
    if not asks_current(question):
        return []
    head = ranked[:window]
    able = [i for i, r in enumerate(head) if r.cand.status == "active" and r.cand.says_something]
    close = _close_pairs(parts, db, head, able)
    pairs = [
        (older, newer, closeness)
        for older, newer, closeness in close
        if older < newer <= older + NAMED_GAP and head[newer].relevance >= ALIKE * head[older].relevance
    ]
    if not pairs:
        return []
    texts = memories.contents(db, [r.cand.rowid for r in head])
    words = {rowid: Words.of(text) for rowid, text in texts.items()}
    terms = _question_terms(question)
    asked = _distinguishing(terms, list(words.values()))
    fitting = []
    for older, newer, closeness in pairs:
        old_id, new_id = head[older].cand.rowid, head[newer].cand.rowid
        old, new = texts.get(old_id), texts.get(new_id)
        if old is None or new is None or not about_same_thing(new, old, closeness, CONFLICT):
            continue
        held = (_covered(asked, words[new_id]), _covered(asked, words[old_id]))
        near = newer - older <= GAP  # further below, only naming the older's answer ties the two
        stated = near and (changes(new, old) or _same_attribute(head[newer], head[older], *held))
        if stated or _names_old_answer(question, terms, (new_id, old_id), texts, words):
            fitting.append((closeness, older, newer))
    return _put_before(ranked, head, fitting, window)


def _put_before(
    ranked: list[Ranked], head: list[Ranked], fitting: list[tuple[float, int, int]], window: int
) -> list[tuple[int, int]]:
    """Each newer answer goes before the one older answer it is closest to, and each older answer lets
    only its closest newer one ahead: one changed value replaces one stated value, not a whole list."""
    before: dict[int, int] = {}  # the newer's place -> the older's place
    taken: set[int] = set()
    found: list[tuple[int, int]] = []
    for _, older, newer in sorted(fitting, reverse=True):
        if newer in before or older in taken:
            continue
        before[newer] = older
        taken.add(older)
        found.append((head[newer].cand.rowid, head[older].cand.rowid))
    if before:
        order = sorted(range(len(head)), key=lambda i: before[i] - 0.5 if i in before else i)
        ranked[:window] = [head[i] for i in order]
    return found


def _distinguishing(asked: set[str], results: list[Words]) -> set[str]:
    """The question's terms less those held by COMMON_SHARE or more of the results, and by more than the
    two of a pair: a term that nearly every result holds (the speakers' names in a conversation) tells
    no answer from another; in a store of a few memories, two may be all there are."""

    def telling(term: str) -> bool:
        holding = sum(1 for r in results if r.hold(term))
        return holding <= 2 or holding < COMMON_SHARE * len(results)

    return {term for term in asked if telling(term)}


def _same_attribute(newer: Ranked, older: Ranked, newer_terms: int = 0, older_terms: int = 0) -> bool:
    """Without a change said in words: the newer answers the question about as well as the older in its
    words (KEYWORD_TIE of its keyword score, or all the question's terms the older holds: `newer_terms`
    and `older_terms`, counted by `_covered`) and in meaning (VECTOR_TIE of its calibrated similarity),
    not only in the fused score. A memory on another attribute of the same subject ("her blood pressure
    pill" beside "takes atorvastatin for her cholesterol", asked about cholesterol) lacks the asked
    attribute's words and lies further from the question, which the two memories' closeness to each
    other, through the subject, does not show."""
    words = newer.cand.keyword >= KEYWORD_TIE * older.cand.keyword
    # Or the newer holds every term of the question the older holds, in some form ("practises" for
    # "practice"), and those are two or more: one shared term is mostly whom both name.
    words = words or (older_terms >= MIN_TERMS and newer_terms >= older_terms)
    return words and newer.cand.vector >= VECTOR_TIE * older.cand.vector


def _names_old_answer(
    question: str, terms: set[str], pair: tuple[int, int], texts: dict[int, str], words: dict[int, Words]
) -> bool:
    """Without a change said in words: the newer names what the older answered with (`_answer_words`), in
    a clause of its own ("…eggs and avocado toast these days, no more oatmeal" beside "Farah usually has
    oatmeal for breakfast"; "…瑞尔那边多少有点贵" beside "二叔的牙一直在瑞尔齿科找王医生看"), of someone
    the older names too, and holds every term of the question the older holds. Another attribute of the
    same subject may name such a word too, but lacks the asked attribute's words (asked when Kofi's
    swimming club trains, "Kofi started piano lessons on Wednesday evenings at the Riverside centre" has
    no swimming), or names it where it states its own value. `terms`: the question's (`_question_terms`);
    `pair` is (newer, older) rowids."""
    new_id, old_id = pair
    new, old = words[new_id], words[old_id]
    # Every term of the question counts here, even one most results hold ("住在" asked where 师兄 lives):
    # it may be the very attribute asked, which the lab 师兄 works in, in the same 中关村, lacks.
    held = {term for term in terms if old.hold(term)}
    if not all(new.hold(term) for term in held):
        return False
    new_text, old_text = texts[new_id], texts[old_id]
    mine, theirs = subjects.of(new_text, _REFERENCE), subjects.of(old_text, _REFERENCE)
    people, others = mine.names | mine.relations, theirs.names | theirs.relations
    if (people or others) and not people & others:  # about someone else, or one about the person and one not
        return False
    # Both answer the question in its words, or name whom it asks about (三舅, which no dictionary holds).
    whom = subjects.of(question, _REFERENCE, question=True)
    if not held and not (whom.names | whom.relations) & people & others:
        return False
    answer = _answer_words(" ".join(_statements(old_text)), question, theirs.names)
    # A word few other results hold (RARE): "wow" or "awesome", which many turns of a conversation hold,
    # tie nothing.
    rest = [w for rowid, w in words.items() if rowid not in pair]
    answer = {w for w in answer if sum(1 for other in rest if other.hold(w)) <= RARE}
    # The newer names it in a clause of its own, apart from whom and what both speak of: it says what
    # became of the old value ("no more oatmeal", "瑞尔那边多少有点贵"). Named where the newer states its own
    # subject's value ("师兄的实验室在中关村…" beside "师兄住在中关村附近"), it is that other thing's value too.
    subject = {term for term in held if new.hold(term)}
    for clause in _statements(new_text):
        said = Words.of(clause)
        if any(said.hold(w) for w in answer) and not any(said.hold(t) for t in subject):
            found = subjects.of(clause, _REFERENCE)
            if not (found.names | found.relations) & people & others:
                return True
    return False


def _statements(text: str) -> list[str]:
    """The clauses of a text less its questions ("What kinda jobs are you thinking of?" states no value)."""
    pieces = CLAUSE.split(text)
    return [
        clause
        for clause, end in zip(pieces[0::2], [*pieces[1::2], ""], strict=True)
        if clause.strip() and "?" not in end and "？" not in end
    ]


def _answer_words(text: str, question: str, names: frozenset[str]) -> set[str]:
    """The words `text` answers `question` with: those the question lacks, less those that say when, how
    often or how many (`_WHEN_EN`, `_WHEN_ZH`, `_NUMERAL`), whom (a relation word; the rest of a name,
    among `names`, that the question names by a part: "Sharma" when it asks about Priya) and Latin words
    under three letters (a title, a unit: "Dr", "km"). Of Chinese dictionary words, the longest only:
    口腔医院, not its 医院, which any hospital holds."""
    asked = Words.of(question)
    folded = unicodedata.normalize("NFKC", text).lower()
    han = [w for w in segment.words(folded) if len(w) > 1 and segment.has_han(w)]
    longest = {w for w in han if not any(w != other and w in other for other in han)}
    latin = {t for t in subject_terms(folded) if not segment.has_han(t) and len(t) > 2 and t.isalpha()}
    parted = [name.split() for name in names]
    named = {part for parts in parted if any(asked.hold(p) for p in parts) for part in parts}
    return {
        w
        for w in longest | latin
        if not asked.hold(w)
        and w not in named
        and w not in lang.WHEN_WORDS
        and not _NUMERAL.search(w)
        and not _WHEN_ZH.match(w)
        and not any(same_word(w, when) for when in _WHEN_EN)
        and not subjects.relations_in(w)
    }


def _question_terms(question: str) -> set[str]:
    """What a question asks in words: its English subject terms and its Chinese dictionary words of two
    characters or more (not the character pairs across word ends that subject_terms also counts)."""
    latin = {t for t in subject_terms(question) if not segment.has_han(t)}
    return latin | {w for w in segment.words(question) if len(w) > 1}


def _covered(asked: set[str], words: Words) -> int:
    """How many of the question's terms (`_question_terms`) a text holds."""
    return sum(1 for term in asked if words.hold(term))


def changes(text: str, other: str) -> bool:
    """`text` states that something `other` speaks of changed: a change said in a statement (not in a
    question or small talk, gate_rules.read_cues), in a clause that shares a subject word with `other`
    ("we moved desks up to the 12th floor" beside "…the office address on the 7th floor"; not "never
    give up" beside anything), and not of another thing of an owner both name (gate_change.owner_only:
    "老家的电费…改成了…" beside "老家的水费…")."""
    if not read_cues(text).change or owner_only(text, other):
        return False
    theirs = subject_terms(other)
    for clause, end in zip(CLAUSE.split(text)[0::2], [*CLAUSE.split(text)[1::2], ""], strict=True):
        if "?" in end or "？" in end:
            continue
        folded = unicodedata.normalize("NFKC", clause).lower()
        cue = lang.CHANGE.search(folded)
        # The words of the cue itself ("new" in "new home") say nothing of what changed.
        if cue and subject_terms(folded[: cue.start()] + " " + folded[cue.end() :]) & theirs:
            return True
    return False


def _close_pairs(
    parts: Parts, db: apsw.Connection, head: list[Ranked], able: list[int]
) -> list[tuple[int, int, float]]:
    """(older place, newer place, closeness) of the results at least CONFLICT close, stated at different times."""
    if len(able) < 2:
        return []
    found, vectors = parts.vectors.matrix(db, [head[i].cand.rowid for i in able])
    row = {rowid: j for j, rowid in enumerate(found)}
    places = [i for i in able if head[i].cand.rowid in row]
    if len(places) < 2:
        return []
    matrix = vectors[[row[head[i].cand.rowid] for i in places]]
    scale = parts.calibration
    # On the model's scale for each pair's languages (of two scripts, the higher floor counts).
    floors = np.array([scale.unrelated[scale.script(head[i].cand.lang)] for i in places])
    floor = np.maximum(floors[:, None], floors[None, :])
    closeness = np.clip((matrix @ matrix.T - floor) / np.maximum(1e-6, 1.0 - floor), 0.0, 1.0)
    out: list[tuple[int, int, float]] = []
    for x, y in zip(*np.nonzero(np.triu(closeness >= CONFLICT, k=1)), strict=True):
        i, j = places[int(x)], places[int(y)]
        ti, tj = head[i].cand.occurred_at, head[j].cand.occurred_at
        if ti != tj and head[i].cand.lang == head[j].cand.lang:
            out.append((i, j, float(closeness[x, y])) if ti < tj else (j, i, float(closeness[x, y])))
    return out
