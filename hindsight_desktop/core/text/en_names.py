"""Whether a run of capitalised English words names a person, an organisation, or neither.

A capital letter alone says little: sentences, headings and list items start with one ("Notes from the
call", "Meeting: budget"), and products are often ordinary words ("Stripe", "Notion", "Slack"). So the
words themselves count (en_words.py: an ordinary English word, a word that is also a name such as
Grace or Bill, or neither, as Priya or Caroline), and so do the words around the run:

- person cues: a verb people do ("Grace said", "met Rose", "told Bill"), a relative or title before it
  ("my sister May"), a possessive with a relative after it ("Will's wife"), "X and I"; softer ones
  ("with Rose", "Cool, John!") only for a word that is also a name;
- organisation cues: a service's words after it ("Stripe account", "Notion doc") or a tool's words
  before it ("via Stripe", "using Slack", "works at Figma").

An ordinary word needs a person cue to be a name; a word that is also a name needs any cue, or a second
name beside it ("Will Smith"); other words are names unless an organisation cue says otherwise.
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["word", "name_word", "other"]
Verdict = Literal["person", "org", "not_person", "undecided"]

_RELATIVES = (
    r"friend|sister|brother|mom|mum|mother|dad|father|wife|husband|son|daughter|boss|colleague|coworker"
    r"|co-worker|cousin|aunt|uncle|neighbou?r|partner|boyfriend|girlfriend|fianc[ée]e?|teacher|doctor|niece"
    r"|nephew|grandma|grandpa|grandmother|grandfather|roommate|flatmate|manager|mentor|therapist|kid|child"
    r"|baby|buddy|classmate|landlord|tutor|coach"
)
# Verbs and phrases only a person is the subject of, right after the run. (The look-behinds keep a search
# to one attempt per run of blanks.)
_PERSON_AFTER = re.compile(
    r",\s+my\b|(?<!\s)\s+(?:said|says|told|tells|asked|asks|thinks|thought|feels|felt|texted|texts|emailed|messaged"
    r"|replied|married|loves|loved|likes|liked|hates|hated|lives|lived|studies|studied|turned|turns|smiled"
    r"|laughed|cried|agreed|promised|suggested|mentioned|recommended|invited|visited|met|was\s+born|is\s+pregnant"
    r"|and\s+I\b|and\s+me\b|(?:is|was)\s+my\b|(?:is|was)\s+(?:a|an|the)\s+(?:\w+\s+)?(?:"
    + _RELATIVES
    + r")\b|(?:he|she)\b)"
    r"|['’]s\s+(?:\w+\s+)?(?:" + _RELATIVES + r"|kids|children|parents|family|birthday|wedding|funeral|house|place)\b",
    re.IGNORECASE,
)
# Words right before the run that only lead to a person. Matched against the lower-cased text before it.
_PERSON_BEFORE = re.compile(
    r"(?:\b(?:met|meet|told|tell|asked|ask|married|marry|texted|hugged|kissed|dating|dated|thank|thanked|thanks"
    r"|dear|hi|hello|hey|invited|invite|miss|missed|visiting|me\s+and)\.?,?"
    r"|\bmy\s+(?:\w+\s+)?(?:" + _RELATIVES + r")s?,?|\b(?:" + _RELATIVES + r")s?,?)\s+$"
)
# Softer leads: a person or a company may follow them; enough for a word that is also a name.
_SOFT_BEFORE = re.compile(
    r"\b(?:with|and|from|for|to|by|call|called|email|emailed|see|saw|visit|visited|help|helped)\s+$"
)
# A service's words after the run: "Stripe account", "Notion page".
_ORG_AFTER = re.compile(
    r"(?<!\s)\s+(?:app|apps|account|accounts|subscription|subscriptions|invoice|invoices|dashboard|api|support"
    r"|workspace|workspaces|premium|integration|checkout|payout|payouts|webhook|webhooks|plugin|extension"
    r"|doc|docs|page|pages|board|channel|login|password|server|membership|stock|shares)\b",
    re.IGNORECASE,
)
# A tool's words before the run: "via Stripe", "using Notion", "works at Figma".
_ORG_BEFORE = re.compile(
    r"(?:\b(?:via|using|use|uses|used|through|thru|into)|\bwork(?:s|ed|ing)?\s+(?:at|for)|\bjob\s+at"
    r"|\bjoin(?:s|ed|ing)?|\bsigned\s+up\s+(?:for|with)|\bsubscribed\s+to|\bswitched\s+to|\bpaid\s+with)\s+$"
)
# Before these an ordinary word is no person, but nothing says it is an organisation either ("on Slack",
# "at Notion"); after an article no capitalised word is ("the Figma file").
_NOT_PERSON_BEFORE = re.compile(r"\b(?:on|at)\s+$")
_ARTICLE_BEFORE = re.compile(r"\b(?:the|a|an)\s+$")
# Someone spoken to: "Cool, John.", "Wow Maria, that sounds fun", "Maria, thank you!". Enough for a word
# that is also a name, never for an ordinary word ("Honestly, I…").
_CALLED_BEFORE = re.compile(
    r"(?:,|\b(?:yeah|yes|wow|woah|whoa|oh|hey|hi|hello|thanks|congrats|congratulations|cool|nice|great|awesome"
    r"|sorry|okay|ok|sure|aw+|haha|lol|omg|bye|ah|definitely|absolutely|totally|exactly|indeed|love\s+you))\s*$"
)
_CALLED_AFTER = re.compile(
    r"[,!?.;]|(?<!\s)\s*$|,\s+(?:thank|thanks|you|i|i'm|we|how|what|did|do|have|are|can|congrats)\b"
)
_LOOK_BACK = 40  # characters before the run that the cues read


def load_words() -> None:
    """Import the word lists now (a served process's warm-up), not in the first search that reads a name."""
    from hindsight_desktop.core.text.en_words import WORDS  # noqa: F401


def word_kind(word: str) -> Kind:
    """An ordinary English word, a word that is also a name, or neither (a name, or a word it lacks)."""
    # Imported on first use: 60k words cost about 20 ms, which a command that reads no text need not pay.
    from hindsight_desktop.core.text.en_words import NAME_WORDS, WORDS

    parts = word.lower().split("-")
    if all(p in WORDS for p in parts):
        return "word"
    if all(p in WORDS or p in NAME_WORDS for p in parts):
        return "name_word"
    return "other"


def _before(text: str, start: int) -> str:
    return text[max(0, start - _LOOK_BACK) : start].lower()


def sentence_start(text: str, start: int) -> bool:
    """Whether text[start] begins a sentence, a heading or a list item (after a colon or a line break)."""
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?\"'\n:;"


def _called(text: str, start: int, end: int, before: str) -> bool:
    if _CALLED_BEFORE.search(before):
        return _CALLED_AFTER.match(text, end) is not None
    return sentence_start(text, start) and text[end : end + 1] == "," and _CALLED_AFTER.match(text, end) is not None


def person_cue(text: str, start: int, end: int) -> bool:
    """Whether the words around text[start:end] say it is a person ("Grace said", "my sister May")."""
    return _PERSON_AFTER.match(text, end) is not None or _PERSON_BEFORE.search(_before(text, start)) is not None


def judge(text: str, start: int, end: int) -> Verdict:
    """What the capitalised run text[start:end] is, by its words and the cues around it.

    "undecided" leaves the old rules (sentence start, "in X") to decide: a word the lists do not hold."""
    before = _before(text, start)
    possessive = text[end : end + 1] in ("'", "’")
    cued = person_cue(text, start, end)
    kinds = [word_kind(w) for w in text[start:end].split()]
    if cued:
        return "person"
    # "Family support" opening a sentence is no service: an ordinary word there is the sentence's own.
    org_after = _ORG_AFTER.match(text, end) and ("other" in kinds or not sentence_start(text, start))
    if org_after or (not possessive and _ORG_BEFORE.search(before)):
        return "org"
    if _ARTICLE_BEFORE.search(before):
        return "not_person"
    if "other" not in kinds and not possessive and _NOT_PERSON_BEFORE.search(before):
        return "not_person"
    if "other" in kinds:
        return "undecided"
    soft = _SOFT_BEFORE.search(before) is not None or _called(text, start, end, before)
    if "name_word" in kinds and (soft or (len(kinds) > 1 and kinds[-1] == "name_word")):
        return "person"
    return "not_person"
