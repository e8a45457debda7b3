"""What the write gate's rules read in a text: its type (fact, plan, small talk…) from cue patterns
(gate_language.py), whether it asks explicitly to be remembered, how dense and how emotional it is.
gate.py weighs these with novelty and, when the rules are unsure, with the model's vote."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

from hindsight_desktop.core.inbox import directives
from hindsight_desktop.core.text import tense
from hindsight_desktop.core.text.language import dominant_language
from hindsight_desktop.core.write import gate_language as lang

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
POSITIVE = (
    # (type, pattern, strength); order breaks ties: a standing order beats the fact inside it.
    ("instruction", lang.INSTRUCTION, 1.0),
    ("skill", lang.SKILL, 1.0),
    ("plan", lang.PLAN, 1.0),
    ("event", lang.EVENT, 1.0),
    ("preference", lang.PREFERENCE, 1.0),
    ("fact", lang.FACT, 1.0),
    ("plan", lang.PLAN_INTENT, 0.6),  # weak: the model decides
)
NEGATIVE = (
    ("question", lang.QUESTION_START_EN, 0.9),
    ("question", lang.QUESTION_ZH, 0.9),
    ("question", lang.REQUEST, 0.9),
    ("chatter", lang.GREETING, 0.9),
    ("chatter", lang.FILLER, 0.9),
    ("chatter", lang.TRANSIENT, 0.85),
    ("chatter", lang.REPORTED_CHATTER, 0.9),
)
# The rules read only the opening of a long text: it says what the text is about, and it keeps a long
# import from costing much time in regular expressions (bench/NOTES.md).
RULES_CHARS = 1000
SURE = 0.8  # a cue at least this strong decides without the model

_CLAUSE_SPLIT = re.compile(r"([!?;。\n]+|\.(?=\s|$)|~+)")
_WORD = re.compile(r"[a-z0-9][a-z0-9'_\-./:@#+]*|[\u4e00-\u9fff]")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SPECIFIC = re.compile(r"\d|[a-z0-9][./@_][a-z0-9]|\b[A-Z][a-z]+", re.UNICODE)
_CONTRACTION = re.compile(r"^(?:i|you|he|she|it|we|they|that|there|what|who|let)'(?:ll|re|ve|d|s|m)$")
_PUNCT_OR_SPACE = re.compile(r"[\s\W_]+", re.UNICODE)


@dataclass
class Reading:
    """What the rules saw in one text."""

    explicit: bool
    lang: str  # "en" or "zh": the dominant script
    positive: dict[str, float] = field(default_factory=dict)  # type -> strongest cue
    negative: dict[str, float] = field(default_factory=dict)
    pure_chatter: bool = False  # nothing but acknowledgements, laughter, emoji
    change: bool = False  # a statement says something changed (lang.CHANGE, outside questions and chatter)

    @property
    def pos(self) -> float:
        return max(self.positive.values(), default=0.0)

    @property
    def neg(self) -> float:
        return max(self.negative.values(), default=0.0)

    @property
    def sure_keep(self) -> bool:
        return self.pos >= SURE

    @property
    def sure_chatter(self) -> bool:
        return self.pure_chatter or (self.pos == 0.0 and self.neg >= SURE)

    def kind(self) -> str:
        if self.positive:
            best = self.pos
            return next(t for t, _, _ in POSITIVE if self.positive.get(t) == best)
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


def read_cues(text: str, written: date | None = None) -> Reading:
    """`written`: the write's day, so that a date the text names can be placed before or after it."""
    norm = _normalise(text)
    explicit, body = _explicit(norm)
    body = _first_person(body)
    reading = Reading(explicit=explicit, lang=dominant_language(norm))
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
        passing = False  # small talk or a passing state: "not hungry any more" changes nothing worth keeping
        unasked = lang.INDEFINITE_ZH.sub(" ", clause)  # "不怎么去了" asks nothing
        for kind, pattern, strength in NEGATIVE:
            read = unasked if pattern is lang.QUESTION_ZH else clause
            if pattern.search(read) and not (ordered and pattern is lang.REQUEST):
                reading.negative[kind] = max(reading.negative.get(kind, 0.0), strength)
                asked = asked or kind == "question"
                passing = True
        if asked:
            # What sits inside a question or a one-off request is not a statement about the person.
            reading.negative["question"] = max(reading.negative.get("question", 0.0), 0.9)
            continue
        if _is_pure_chatter(clause):
            continue
        if not passing and lang.CHANGE.search(clause):
            reading.change = True
        done: bool | None = None
        for kind, pattern, strength in POSITIVE:
            if pattern.search(clause):
                if kind == "plan":
                    # A time word and a verb make a plan only when they point forward: "去年国庆…去了" is done.
                    done = tense.orientation(clause, written) == tense.PAST if done is None else done
                    kind = "event" if done else kind
                elif kind == "instruction" and not _directs(clause):
                    # "Dad never eats cilantro", "外婆每次来都带饺子": a habit is a fact about a person.
                    kind = "fact"
                reading.positive[kind] = max(reading.positive.get(kind, 0.0), strength)
    return reading


def _directs(clause: str) -> bool:
    """A clause with a standing word is an instruction when it directs assistants (inbox.directives, which
    tells "always answer in French" from "I always take the 8:15 train") or speaks to the assistant
    ("帮我写邮件的时候别用敬语")."""
    return lang.ADDRESSED.search(clause) is not None or directives.classify(clause).directive


def density(text: str, entity_count: int, chatter: bool) -> float:
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


def emotion(text: str) -> float:
    norm = _normalise(text)
    words = len(lang.EMOTION.findall(norm))
    emoji = len(lang.EMOJI.findall(norm))
    bangs = min(3, norm.count("!"))
    shouting = 1 if re.search(r"\b[A-Z]{4,}\b", norm) else 0
    return min(1.0, 0.35 * words + 0.12 * emoji + 0.1 * bangs + 0.15 * shouting)
