"""Who a question is about, and whether a memory is about the same one.

"What is my daughter allergic to?" and "I am allergic to penicillin" are close in meaning (an allergy,
the same family), and so are "where does Priya live?" and "I live in Beijing": the model places a near
miss about another person as close as an answer. A question that names someone (a name, or a relation
such as daughter / 女儿) is answered only by a memory that names the same one, by the name, by the
relation in either language, or by a name the memories tie to that relation ("My wife Sarah ...",
"女儿朵朵今年六岁"). A name written in Latin letters and one in Chinese characters are the same person
when the letters spell the characters' pinyin (Duoduo and 朵朵, Su Qing and 苏晴).
"""

from __future__ import annotations

import functools
import gzip
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import IntEnum

from hindsight_desktop.core.index import bilingual
from hindsight_desktop.core.index.keyword import STOP_WORDS
from hindsight_desktop.core.text import segment
from hindsight_desktop.core.text.extract import extract_entities
from hindsight_desktop.core.text.extract_dates import MONTH_NAMES, WEEKDAY_NAMES, Found

# A relation in either language, to one key. Chinese forms are matched inside the text (no spaces).
_RELATIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "daughter": (("daughter", "daughters"), ("女儿", "闺女")),
    "son": (("son", "sons"), ("儿子",)),
    "wife": (("wife",), ("老婆", "妻子", "太太", "媳妇")),
    "husband": (("husband",), ("老公", "丈夫")),
    "sister": (("sister", "sisters"), ("姐姐", "妹妹", "姐", "妹")),
    "brother": (("brother", "brothers"), ("哥哥", "弟弟", "哥", "弟")),
    "mother": (("mother", "mum", "mom", "mummy", "mommy"), ("妈妈", "母亲", "妈")),
    "father": (("father", "dad", "daddy"), ("爸爸", "父亲", "爸")),
    "grandmother": (("grandmother", "grandma", "granny", "nan"), ("奶奶", "外婆", "姥姥")),
    "grandfather": (("grandfather", "grandpa", "grandad"), ("爷爷", "外公", "姥爷")),
    "manager": (("manager", "boss"), ("领导", "经理", "老板", "上司")),
    "friend": (("friend", "friends"), ("朋友", "好友", "哥们", "闺蜜")),
    "nephew": (("nephew",), ("外甥", "侄子")),
    "niece": (("niece",), ("外甥女", "侄女")),
    "cousin": (("cousin",), ("表姐", "表妹", "表哥", "表弟", "堂姐", "堂妹", "堂哥", "堂弟")),
    "aunt": (
        ("aunt", "auntie"),
        ("阿姨", "姑姑", "姨妈", "舅妈", "姑妈", "大姨", "二姨", "三姨", "小姨", "大姑", "二姑", "三姑", "小姑"),
    ),
    "uncle": (
        ("uncle",),
        ("叔叔", "舅舅", "伯伯", "姑父", "伯父", "大伯", "二叔", "三叔", "小叔", "大舅", "二舅", "三舅", "小舅"),
    ),
    "mother_in_law": (("mother-in-law",), ("岳母", "丈母娘", "婆婆")),
    "father_in_law": (("father-in-law",), ("岳父", "老丈人", "丈人", "公公")),
    "sister_in_law": (("sister-in-law",), ("嫂子", "大嫂", "堂嫂", "表嫂", "弟妹", "小姑子", "小姨子")),
    "brother_in_law": (("brother-in-law",), ("姐夫", "妹夫", "小舅子", "大舅子", "连襟")),
    "grandchild": (
        ("grandson", "granddaughter", "grandchild", "grandchildren"),
        ("孙子", "孙女", "外孙", "外孙女"),
    ),
    "partner": (
        ("partner", "girlfriend", "boyfriend", "fiancé", "fiancée", "fiance", "fiancee"),
        ("对象", "女朋友", "男朋友"),
    ),
    "colleague": (("colleague", "coworker", "co-worker"), ("同事",)),
    "neighbour": (("neighbour", "neighbor"), ("邻居",)),
}
# Calendar words are capitalised in English but name no one ("Where did I travel in June?").
_CALENDAR = frozenset(MONTH_NAMES + WEEKDAY_NAMES)
# How a relation is followed by the name in Chinese: "女儿朵朵", "老婆叫苏晴", "儿子小宇". A name the
# entity finder misses is most often a nickname: a doubled character (朵朵) or 小/老/阿 and one character
# that together make no dictionary word (小宇, not 小学).
_NAMING = re.compile("(?:叫做|名叫|叫|是)?")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_DOUBLED = re.compile("([\u3400-\u4dbf\u4e00-\u9fff])\\1")
# A question asking who someone is, or their name.
_ASKS_NAME = re.compile(r"是谁|叫什么|什么名字|名字是|叫啥|\bwho(?:'s|\s+is|\s+was|\s+are)\b|\bname\b|\bcalled\b", re.I)
# An English relation word and the name after it: "my manager Laura", "my manager is Laura", "my wife, Sarah".
_NAMED_AFTER = re.compile(r"\b([a-z]+)(?:,|\s+is|\s+called|\s+named)?\s+([A-Z][a-z]+)")
_REFERENCE = datetime(2000, 1, 1, tzinfo=UTC)  # names do not depend on when a text is read
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
# Words after which an English relation word names a person: "my manager", "the boss".
_DETERMINERS = frozenset(["my", "our", "his", "her", "their", "your", "the", "a", "an", "whose"])
_ENGLISH = {word: key for key, (english, _) in _RELATIONS.items() for word in english}
# Longest first, so 外甥女 is a niece, not a nephew, and 表姐 a cousin, not a sister.
_CHINESE = sorted(
    ((word, key) for key, (_, chinese) in _RELATIONS.items() for word in chinese), key=lambda p: -len(p[0])
)


@dataclass(frozen=True)
class Subjects:
    """The people a text names: by name (lower-case) and by relation key."""

    names: frozenset[str] = field(default_factory=frozenset)
    relations: frozenset[str] = field(default_factory=frozenset)
    asks_name: bool = False  # a question asking who someone is ("Who is my manager?", "我女儿叫什么？")

    def __bool__(self) -> bool:
        return bool(self.names or self.relations)


# Any relation word anywhere in a text, in either language: a text with none (most memories) names no
# relation, found in one pass instead of word by word (recall asks it of every candidate).
_ANY_ENGLISH = re.compile("|".join(re.escape(word) for word in sorted(_ENGLISH)))
_ANY_CHINESE = re.compile("|".join(re.escape(word) for word, _ in _CHINESE))


def relations_in(text: str) -> set[str]:
    """The relation keys a text names ("my daughter", "我女儿")."""
    found: set[str] = set()
    # A word that lowers to a relation word is a piece of the lowered text: none there, none to find.
    if _ANY_ENGLISH.search(text.lower()):
        words = (_possessive(w.lower()) for w in _LATIN_WORD.findall(text))
        found = {_ENGLISH[w] for w in words if w in _ENGLISH}
    if not _ANY_CHINESE.search(text):
        return found
    rest = text
    for word, key in _CHINESE:
        if word in rest:
            found.add(key)
            rest = rest.replace(word, " ")  # 外甥女 found: its 外甥 is not a nephew as well
    return found


def of(text: str, now: datetime, dates: list[Found] | None = None, *, question: bool = False) -> Subjects:
    """Who `text` names. `dates`: the text's dates when the caller has found them (extract_entities).

    `question`: when no person is found, a lone capitalised word past the first that names nothing else
    (no place, organisation or other entity): in a question a name stands alone, with none of the cues
    that tell a person in a memory ("How does Tom prefer to be updated?"); a Chinese nickname that
    opens it ("朵朵怕什么？") or follows a relation ("我儿子小宇…")."""
    found = extract_entities(text, now, dates)
    names = {e.value.lower() for e in found if e.kind == "person"}
    if question:
        names |= {name for _, name in _named_after_relation(text, names)}
        if (nickname := _nickname(text)) is not None:
            names.add(nickname)
    if question and not names:
        taken = " ".join(e.text.lower() for e in found)
        lone = [
            bare
            for word in _LATIN_WORD.findall(text)[1:]
            if word[0].isupper()
            and len(bare := _possessive(word.lower())) > 1
            and bare not in STOP_WORDS
            and bare not in _CALENDAR
            and bare not in taken
        ]
        if len(lone) == 1:  # several ("the Mid-Autumn Festival") are more likely a title than a person
            names.add(lone[0])
    relations = frozenset(_asked_relations(text) if question else relations_in(text))
    return Subjects(frozenset(names), relations, question and bool(relations) and bool(_ASKS_NAME.search(text)))


def _asked_relations(question: str) -> set[str]:
    """The relations a question asks about: as relations_in finds them, less an English relation word that
    heads a compound ("Which password manager am I using?", "the project manager"): one counts after a
    possessive or an article ("my manager", "Tom's wife", "the boss"), before or as a name ("Aunt Rosa"),
    or opening the question."""
    found = relations_in(question)
    if not found or not _ANY_ENGLISH.search(question.lower()):
        return found
    words = _LATIN_WORD.findall(question)
    english = set()
    for i, word in enumerate(words):
        key = _ENGLISH.get(_possessive(word.lower()))
        if key is None:
            continue
        before = words[i - 1].lower() if i else ""
        named = word[0].isupper() or (i + 1 < len(words) and words[i + 1][0].isupper())
        if not before or before in _DETERMINERS or before.endswith(("'s", "\u2019s", "s'")) or named:
            english.add(key)
    chinese = relations_in("".join(ch for ch in question if not ch.isascii()))
    return english | chinese


def aliases(asked: Subjects, texts: Iterable[str], now: datetime) -> Subjects:
    """`asked` with the names that memories tie to its relations ("My wife Sarah teaches maths" makes Sarah
    one way to name the wife, as "女儿朵朵今年六岁" makes 朵朵 the daughter), and the relations tied to
    its names."""
    names, relations = set(asked.names), set(asked.relations)
    for text in texts:
        held = relations_in(text)
        if not held or (not held & asked.relations and not any(_names(text, {n}) for n in asked.names)):
            continue  # a text with no relation word ties no name to one
        for relation, name in _ties(text, now):
            if relation in asked.relations:
                names.add(name)
            if any(_same_name(name, n) for n in asked.names):
                relations.add(relation)
    return Subjects(frozenset(names), frozenset(relations), asked.asks_name)


def _ties(text: str, now: datetime) -> set[tuple[str, str]]:
    """(relation, name) pairs a memory ties: a name right after a relation, or its one person named both
    ways ("My wife Sarah teaches maths")."""
    subject = of(text, now)
    ties = set(_named_after_relation(text, subject.names))
    if len(subject.names) == 1 and len(subject.relations) == 1:
        ties.add((next(iter(subject.relations)), next(iter(subject.names))))
    return ties


def _named_after_relation(text: str, found: Iterable[str]) -> Iterable[tuple[str, str]]:
    """(relation, name) where a relation word is directly followed by a name ("朋友老周（周鹏）", "老婆叫苏晴",
    "女儿朵朵": a name the entity finder found there, or a nickname; "my manager Laura", "my manager is
    Laura": a found name)."""
    found = list(found)
    han = sorted((n for n in found if _HAN.match(n)), key=len, reverse=True)
    for word, key in _CHINESE:
        start = text.find(word)
        while start >= 0:
            after = start + len(word)
            after += len(_NAMING.match(text, after).group())  # type: ignore[union-attr]
            rest = text[after : after + 4]
            name = next((n for n in han if rest.startswith(n)), None) or _nickname(rest)
            if name is not None:
                yield key, name
            start = text.find(word, start + 1)
    latin = {n for n in found if n.isascii()}
    for m in _NAMED_AFTER.finditer(text):
        relation, name = _ENGLISH.get(_possessive(m.group(1).lower())), m.group(2).lower()
        if relation is not None and name in latin:
            yield relation, name


def _nickname(text: str) -> str | None:
    """A nickname at the start of `text`: a doubled character (朵朵), or 小/老/阿 and a character that
    together make no dictionary word (小宇, not 小学)."""
    if _DOUBLED.match(text):
        return text[:2]
    if len(text) >= 2 and text[0] in "小老阿" and _HAN.match(text[1]) and not segment.known(text[:2]):
        return text[:2]
    return None


def _possessive(word: str) -> str:
    """The word without a possessive ending ("wife's": "wife")."""
    if "'" not in word and "’" not in word:  # every ending has one
        return word
    for mark in ("'s", "’s", "s'", "s’"):
        if word.endswith(mark):
            return word[: -len(mark)] if mark[0] in "'’" else word[:-1]
    return word


def _names(text: str, names: set[str]) -> bool:
    """A Latin name as a whole word ("Tom", not "tomatoes"); a Chinese one anywhere in the text; either
    written in the other script (Duoduo for 朵朵, 苏晴 for Su Qing)."""
    lowered = text.lower()
    words = [_possessive(w.lower()) for w in _LATIN_WORD.findall(text)]
    for name in names:
        if name.isascii() and " " not in name:
            if name in words:
                return True
        elif name in lowered:
            return True
        if name.isascii() and _HAN.search(text) and _spelt_in(_letters(name), text):
            return True
        if not name.isascii() and any(
            _spells(name, "".join(words[i : i + n])) for i in range(len(words)) for n in (1, 2)
        ):
            return True
    return False


def _same_name(a: str, b: str) -> bool:
    """Whether two names are one, in the same script or spelt in the other's."""
    if a == b:
        return True
    if a.isascii() == b.isascii():
        return False
    latin, han = (a, b) if a.isascii() else (b, a)
    return _spells(han, _letters(latin))


def _letters(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalpha())


def _spelt_in(letters: str, text: str) -> bool:
    """Whether two to four consecutive Chinese characters of `text` are spelt `letters` in pinyin."""
    if len(letters) < 4 or not _HAN.search(text):  # "Li", "Lu": too many characters are read so
        return False
    readings = _readings()
    for start in range(len(text)):
        ends = {0}  # how much of `letters` the characters from `start` on have spelt
        for n, char in enumerate(text[start : start + 4], 1):
            ends = {e + len(r) for e in ends for r in readings.get(char, ()) if letters.startswith(r, e)}
            if not ends:
                break
            if n >= 2 and len(letters) in ends:
                return True
    return False


def _spells(han: str, letters: str) -> bool:
    """Whether `letters` (lower-case, no spaces) are one pinyin reading of every character of `han`."""
    if len(han) < 2 or not all(_HAN.match(c) for c in han):
        return False
    readings = _readings()
    ends = {0}
    for char in han:
        ends = {e + len(r) for e in ends for r in readings.get(char, ()) if letters.startswith(r, e)}
        if not ends:
            return False
    return len(letters) in ends


@functools.cache
def _readings() -> dict[str, frozenset[str]]:
    """Each Chinese character's pinyin readings without tones, from CC-CEDICT's single-character entries
    (read once, when a name is first compared across scripts)."""
    found: dict[str, set[str]] = {}
    try:
        with gzip.open(bilingual.dictionary_file(), "rt", encoding="utf-8") as lines:
            for line in lines:
                parts = line.split(" ", 3)
                if len(parts) < 3 or len(parts[1]) != 1 or not parts[2].startswith("["):
                    continue
                reading = parts[2].strip("[]").lower().replace("u:", "v")
                found.setdefault(parts[1], set()).add("".join(c for c in reading if c.isalpha()))
    except (OSError, ModuleNotFoundError):  # no dictionary: names are matched in their own script only
        return {}
    return {char: frozenset(r) for char, r in found.items()}


def names_someone(asked: Subjects, term: str) -> bool:
    """Whether a question's search term is one of its subjects' names (or a piece of a Chinese one, which
    the segmenter may split: 王磊 into 王, 磊) or a relation word."""
    lowered = term.lower()
    return (
        lowered in asked.names
        or (not lowered.isascii() and any(lowered in name for name in asked.names))
        or bool(relations_in(term))
    )


class Match(IntEnum):
    """Whether a memory is about whom a question asks: false only for someone else."""

    OTHER = 0  # it names someone, not the one asked about
    SAME = 1  # the one asked about (or the question names no one)
    NAMES = 2  # it says the name the question asks for ("My manager is Laura" for "Who is my manager?")


def same(asked: Subjects, memory: str, now: datetime | None = None) -> Match:
    """Whether a memory names someone the question asks about (SAME when the question names no one), and
    whether it gives the name of the relation a question asks the name of (`now`: for reading its names)."""
    if not asked:
        return Match.SAME
    if not _names(memory, set(asked.names)) and not relations_in(memory) & asked.relations:
        return Match.OTHER
    people = of(memory, now or _REFERENCE).names if asked.asks_name else ()
    if asked.asks_name and any(r in asked.relations for r, _ in _named_after_relation(memory, people)):
        return Match.NAMES
    return Match.SAME
