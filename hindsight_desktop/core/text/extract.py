"""Rule-based extraction for writing, recall and upkeep: entities, dates and single-valued facts.

Everything here is plain regular expressions and small word lists, in English and Chinese, so it is
fast, deterministic and private. Date rules and week semantics live in extract_dates.py, fact keys in
extract_facts.py, shared word lists in extract_lexicon.py (secrets are redact/'s, before this runs);
this module re-exports the public functions.

Entity values: names and places are lower-cased as written (北京 stays 北京, Beijing becomes
"beijing"). Entities are deduplicated by (kind, value) and returned in text order. Fact values
(fact_key) for residence/employer map known Chinese places and companies to their English name,
so that "I live in Beijing" and "我住在北京" are the same fact rather than a contradiction.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from hindsight_desktop.core.records import Entity
from hindsight_desktop.core.text import en_names, segment
from hindsight_desktop.core.text.extract_dates import Found, find_dates, find_times
from hindsight_desktop.core.text.extract_facts import fact_key
from hindsight_desktop.core.text.extract_lexicon import (
    _AIRLINES,
    _CN_AFTER,
    _CN_AFTER_STRONG,
    _CN_BEFORE,
    _CN_COMMON_WORDS,
    _CN_COMPOUND,
    _CN_NOT_IN_NAME,
    _CN_SURNAMES,
    _CURRENCY,
    _NAMES_AMONG_NOT_NAMES,
    _NOT_NAMES,
    _OBJECT_WORDS,
    _ORG_SUFFIX_EN,
    _ORG_SUFFIX_ZH,
    _ORGS,
    _PLACE_SUFFIX_EN,
    _PLACES_EN,
    _PLACES_ZH,
    CJK,
    _check,
)
from hindsight_desktop.core.text.spans import Taken

__all__ = ["extract_entities", "fact_key", "resolve_dates"]


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# ---- patterns ------------------------------------------------------------------------------------

_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_URL = re.compile(
    r"\b(?:https?://|www\.)[^\s<>\"'，。）]+"
    r"|(?<![@\w.-])(?:[a-z0-9][a-z0-9-]*\.)+(?:com|org|net|io|ai|dev|cn|app)\b(?:/[^\s<>\"'，。）]*)?"
)
_PHONE = re.compile(
    r"(?<![\d+])(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?!\d)"
    r"|(?<![\w+])\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{1,4}(?:[\s.-]?\d{2,4}){1,4}(?!\d)"
    r"|(?<!\d)(?:\(\d{3}\)\s?|\d{3}[.-])\d{3}[.-]\d{4}(?!\d)"
)
# Chinese licence plates: province character, city letter, 5 characters (6 for new-energy cars).
_PLATE = re.compile(
    r"(?P<p>[京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼])\s?(?P<c>[A-HJ-Za-hj-z])\s?[·•・.\-]?\s?"
    r"(?P<n>[A-HJ-NP-Za-hj-np-z0-9]{5,6})(?![A-Za-z0-9])"
)
_FLIGHT = re.compile(r"\b(?P<a>[A-Z]{2}|[A-Z]\d|\d[A-Z])(?P<sp>\s?)(?P<n>\d{2,4})(?![A-Za-z0-9])")
_ROOM = re.compile(
    r"\b(?P<k>[Rr]oom|[Rr]m\.?|[Ss]uite|[Gg]ate|[Ss]eat|[Aa]pt\.?|[Aa]partment|[Uu]nit|[Pp]latform|[Tt]erminal)"
    r"\s*#?\s?(?P<n>[A-Z]?\d{1,5}[A-Z]?)(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(?P<n2>[A-Z]?\d{1,5}[A-Z]?)\s*(?P<k2>号房间|号房|房间|室|号登机口|登机口)"
    r"|(?P<k3>房间|登机口)\s*(?P<n3>[A-Z]?\d{1,5}[A-Z]?)(?![A-Za-z0-9])"
)
_VERSION = re.compile(
    r"(?<![\w.])(?:[vV](?P<a>\d+(?:\.\d+){0,3})|(?P<b>\d+\.\d+\.\d+(?:\.\d+)?)"
    r"|(?:[Vv]ersion|ver\.?)\s+(?P<c>\d+(?:\.\d+)*))(?!\.?\w)"
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# A number starts where no digit is before it: \d also takes full-width digits, and a start inside a
# long run of them would scan the rest of the run once per digit.
_MONEY = re.compile(
    r"(?P<cur>[$€£¥￥])\s?(?P<n>" + _NUMBER + r")(?:\s?(?P<mult>[kKmM]|million|billion)\b)?"
    r"|(?<![A-Za-z\d.])(?P<n2>"
    + _NUMBER
    + r")\s?(?P<cur2>块钱|人民币|美元|欧元|英镑|日元|元|块|(?i:usd|dollars?|bucks|euros?|rmb|yuan)(?![A-Za-z]))"
)
_UNIT = re.compile(
    r"(?<![A-Za-z\d.])(?P<n>"
    + _NUMBER
    + r")\s?(?P<u>%|(?i:percent|kgs?|mg|g|lbs?|km|miles?|mi|cm|mm|ml|m|l|gb|mb|tb|kb"
    r"|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|yrs?|people|times|steps|kcal|calories)"
    r"(?![A-Za-z])|°[CF]|公斤|千克|克|公里|千米|厘米|米|斤|岁|个|人|次|小时|分钟|天|年|页|本)"
)
# A token with both letters and digits (booking refs, order numbers); the length check is in _numbers.
_ORDER = re.compile(
    r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*[A-Za-z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9](?![A-Za-z0-9-])"
)
_PLAIN_NUMBER = re.compile(r"(?<![A-Za-z0-9.,])(?:" + _NUMBER + r")(?![A-Za-z0-9]|[.,]\d)")
_KNOWN_ORG = re.compile(r"(?<![A-Za-z])(?:" + _alternation(_ORGS) + r")(?![A-Za-z])")
# A word of a name is at most 41 characters: a hyphenated run ("AB-AB-...") has a word start every few
# characters, and an unbounded word would be scanned to its end from each of them.
_ORG_EN = re.compile(
    r"\b(?:[A-Z][a-z]+\s+)?(?:University|Bank|Institute|College) of(?:\s+[A-Z][a-z]+){1,3}"
    r"|\b(?:[A-Z][A-Za-z&'-]{0,40}\s+){1,4}(?:" + _ORG_SUFFIX_EN + r")(?![A-Za-z])"
)
_KNOWN_PLACE = re.compile(r"(?<![A-Za-z])(?:" + _alternation(_PLACES_EN) + r")(?![A-Za-z])|" + _alternation(_PLACES_ZH))
_PLACE_CONTEXT = re.compile(r"\b(?:[A-Z][a-z]+\s+){1,3}(?:" + _PLACE_SUFFIX_EN + r")\b")
_PLACE_CUE = re.compile(
    r"\b(?:live[sd]?|living|based|born|located|moved|moving|relocated|travel(?:l)?ed|flew|flying|trip|"
    r"vacation|holiday|arrived|landed|I'm|I am|comes?|came)\s+(?:back\s+)?(?:in|to|from)\s+"
    r"(?P<p>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?!['’]s)\b"
)
_TITLE_NAME = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof|Professor|Sir|Aunt|Uncle)\.?\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?")
_CAP_RUN = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?(?:\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?){0,2}\b")


# ---- entity extraction ---------------------------------------------------------------------------


class _Collector:
    """Collects entities while remembering which characters are already claimed by an earlier kind."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.taken = Taken()
        self.found: list[tuple[int, Entity]] = []

    def free(self, start: int, end: int) -> bool:
        return self.taken.free(start, end)

    def add(self, kind: str, start: int, end: int, value: str) -> bool:
        if start >= end or not value or not self.taken.take(start, end):
            return False
        self.found.append((start, Entity(kind, self.text[start:end], value)))
        return True

    def entities(self) -> list[Entity]:
        seen: set[tuple[str, str]] = set()
        result = []
        for _, entity in sorted(self.found, key=lambda item: item[0]):
            if (entity.kind, entity.value) not in seen:
                seen.add((entity.kind, entity.value))
                result.append(entity)
        return result


def _strip_trailing(text: str, start: int, end: int, chars: str = ".,;:!?)]}'\"") -> int:
    while end > start and text[end - 1] in chars:
        end -= 1
    return end


def _contacts(c: _Collector) -> None:
    for m in _EMAIL.finditer(c.text):
        c.add("email", m.start(), m.end(), m.group(0).lower())
    for m in _URL.finditer(c.text):
        end = _strip_trailing(c.text, m.start(), m.end())
        url = c.text[m.start() : end]
        # Scheme and host are case-insensitive, the path is not.
        scheme, sep, rest = url.rpartition("://")
        host, slash, path = rest.partition("/")
        c.add("url", m.start(), end, f"{scheme.lower()}{sep}{host.lower()}{slash}{path}")
    for m in _PHONE.finditer(c.text):
        digits = re.sub(r"\D", "", m.group(0))
        c.add("phone", m.start(), m.end(), ("+" if m.group(0).startswith("+") else "") + digits)


def _codes(c: _Collector) -> None:
    for m in _PLATE.finditer(c.text):
        if any(ch.isdigit() for ch in m.group("n")):
            c.add("code", m.start(), m.end(), (m.group("p") + m.group("c") + m.group("n")).upper())
    for m in _FLIGHT.finditer(c.text):
        # "UA 857" only for known airlines; "CA981" (no space) for any two-character prefix.
        if m.group("sp") and m.group("a") not in _AIRLINES:
            continue
        c.add("code", m.start(), m.end(), (m.group("a") + m.group("n")).lower())
    for m in _ROOM.finditer(c.text):
        kind = (m.group("k") or m.group("k2") or m.group("k3")).lower().rstrip(".")
        kind = {"rm": "room", "apt": "apartment", "号房间": "room", "号房": "room", "房间": "room", "室": "room"}.get(
            kind, kind
        )
        kind = "gate" if "登机口" in kind else kind
        c.add("code", m.start(), m.end(), f"{kind} {(m.group('n') or m.group('n2') or m.group('n3')).lower()}")
    for m in _VERSION.finditer(c.text):
        version = m.group("a") or m.group("b") or m.group("c")
        is_ip = m.group("b") and version.count(".") == 3  # 192.168.1.1 is an address, not a version
        c.add("code", m.start(), m.end(), version if is_ip else "v" + version)


def _numbers(c: _Collector) -> None:
    for m in _MONEY.finditer(c.text):
        amount = (m.group("n") or m.group("n2")).replace(",", "")
        currency = _CURRENCY[(m.group("cur") or m.group("cur2")).lower()]
        mult = (m.group("mult") or "").lower()
        c.add("number", m.start(), m.end(), f"{amount}{mult[:1] if mult else ''} {currency}")
    for m in _UNIT.finditer(c.text):
        amount, unit = m.group("n").replace(",", ""), m.group("u")
        value = f"{amount}%" if unit in ("%", "percent") else f"{amount} {unit.lower()}"
        c.add("number", m.start(), m.end(), value)
    for m in _ORDER.finditer(c.text):
        word = m.group(0)
        if len(word) >= 5 and not re.fullmatch(r"\d+(?:st|nd|rd|th|s)", word, re.I):
            c.add("code", m.start(), m.end(), word.lower())
    for m in _PLAIN_NUMBER.finditer(c.text):
        if sum(ch.isdigit() for ch in m.group(0)) >= 2:
            c.add("number", m.start(), m.end(), m.group(0).replace(",", ""))


def _org_char(ch: str) -> bool:
    return bool(re.match(f"[{CJK}]", ch)) and ch not in _CN_NOT_IN_NAME and ch not in "家所位一"


def _orgs_and_places(c: _Collector) -> None:
    text = c.text
    for m in _ORG_EN.finditer(text):
        start = m.start()
        words = m.group(0).split()
        while len(words) > 2 and words[0] in _NOT_NAMES:  # "Yesterday Acme Corp" -> "Acme Corp"
            start = text.index(words[1], start + len(words[0]))
            words.pop(0)
        c.add("org", start, m.end(), text[start : m.end()].lower().rstrip("."))
    for m in re.finditer(_ORG_SUFFIX_ZH, text):
        # Walk back over the name part, stopping at function characters (在/的/我...).
        start = m.start()
        while start > max(0, m.start() - 8) and _org_char(text[start - 1]) and c.free(start - 1, start):
            start -= 1
        if m.start() - start >= 2:
            c.add("org", start, m.end(), text[start : m.end()])
    for m in _KNOWN_ORG.finditer(text):
        c.add("org", m.start(), m.end(), m.group(0).lower())
    for m in _KNOWN_PLACE.finditer(text):
        c.add("place", m.start(), m.end(), m.group(0).lower())
    for m in _PLACE_CONTEXT.finditer(text):
        words = m.group(0).split()
        start = m.start() + (len(words[0]) + 1 if words[0] in _NOT_NAMES and len(words) > 2 else 0)
        c.add("place", start, m.end(), text[start : m.end()].lower())
    for m in _PLACE_CUE.finditer(text):
        if m.group("p").split()[0] not in _NOT_NAMES:
            c.add("place", m.start("p"), m.end("p"), m.group("p").lower())


def _looks_like_subject(text: str, end: int) -> bool:
    """After a sentence-initial word: a name is followed by a verb, an imperative by its object."""
    word = text[:end].split()[-1]
    if len(word) >= 6 and word.endswith(("ing", "ed")):
        return False  # "Running late", "Walked home"
    rest = text[end:]
    if rest[:1] in ("'", "’"):
        return True  # "Caroline's ..."
    nxt = re.match(r"\s*([a-z]+)\b", rest)
    return nxt is not None and nxt.group(1) not in _OBJECT_WORDS


def _english_people(c: _Collector) -> None:
    text = c.text
    for m in _TITLE_NAME.finditer(text):
        c.add("person", m.start(), m.end(), m.group(0).lower())
    for m in _CAP_RUN.finditer(text):
        # Split the run on non-name words ("Yesterday Caroline" -> "Caroline").
        words = [(w.start() + m.start(), w.end() + m.start(), w.group(0)) for w in re.finditer(r"\S+", m.group(0))]
        run: list[tuple[int, int, str]] = []
        for word in [*words, (0, 0, "The")]:
            # "Will" and "May" are names too, where the words around them say so ("my sister May").
            named = word[2] in _NAMES_AMONG_NOT_NAMES and (
                en_names.person_cue(text, word[0], word[1]) or en_names.person_cue(text, word[0], m.end())
            )
            if word[2] not in _NOT_NAMES or named:
                run.append(word)
                continue
            if run:
                run = _without_opening_word(text, run)
                _judge_run(c, run[0][0], run[-1][1], single=len(run) == 1)
            run = []


def _without_opening_word(text: str, run: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """An ordinary word opening the sentence before a name is not part of it ("Yeah John", "Cancel Hulu")."""
    if len(run) < 2 or not en_names.sentence_start(text, run[0][0]) or en_names.word_kind(run[0][2]) != "word":
        return run
    return run[1:] if any(en_names.word_kind(w[2]) != "word" for w in run[1:]) else run


def _judge_run(c: _Collector, start: int, end: int, single: bool) -> None:
    """A person, an organisation or neither, for a run of capitalised words (en_names.py)."""
    text = c.text
    verdict = en_names.judge(text, start, end)
    if verdict == "org":
        c.add("org", start, end, text[start:end].lower())
        return
    if verdict == "undecided":
        single_initial = single and en_names.sentence_start(text, start)
        # "in Lisbon": an unknown capitalised word after "in" is more likely a place than a person.
        after_in = single and text[max(0, start - 3) : start].lower() == "in "
        if after_in or (single_initial and not _looks_like_subject(text, end)):
            return
    elif verdict != "person":
        return
    c.add("person", start, end, text[start:end].lower())


_CN_PLACE_SUFFIX = (
    "省",
    "市",
    "区",
    "县",
    "镇",
    "乡",
    "村",
    "路",
    "街",
    "大道",
    "大街",
    "胡同",
    "广场",
    "公园",
    "机场",
    "车站",
    "火车站",
    "高铁站",
    "地铁站",
    "小区",
    "景区",
    "新区",
)
_CN_TITLES = re.compile(f"[{_CN_SURNAMES}](?:医生|大夫|主任|老师|教授|律师|先生|女士|小姐|阿姨|叔叔|师傅|经理|护士)")
_CN_TITLE_BEFORE = "的是和跟找叫给问位个见与同让"


def _chinese_words(c: _Collector) -> None:
    """Names jieba's HMM finds that its dictionary does not know ("王小红", "刘子轩"), when they
    start with a surname; and places the segmenter cuts as one word with a place ending (西湖区, 文三路)."""
    if not segment.has_han(c.text):
        return
    for start, end, word in segment.new_words(c.text):
        compound = word.startswith(_CN_COMPOUND)
        size = len(word) - (1 if compound else 0)
        if (compound or word[0] in _CN_SURNAMES) and 2 <= size <= 3 and not _CN_NOT_IN_NAME & set(word[1:]):
            c.add("person", start, end, word)
    tok = segment.tokenizer()
    for m in segment.HAN_RUN.finditer(c.text):
        pos, prev = m.start(), ""
        for word in tok.cut(m.group(0), HMM=True):
            if word.endswith(_CN_PLACE_SUFFIX) and len(word) >= 3 and not _CN_NOT_IN_NAME & set(word):
                c.add("place", pos, pos + len(word), word)
            elif word in _CN_PLACE_SUFFIX and len(word) == 2 and len(prev) >= 2 and not _CN_NOT_IN_NAME & set(prev):
                c.add("place", pos - len(prev), pos + len(word), prev + word)  # 中山 + 公园
            pos, prev = pos + len(word), word
    for m in _CN_TITLES.finditer(c.text):
        before = c.text[m.start() - 1] if m.start() else ""
        if not before or not re.match(f"[{CJK}]", before) or before in _CN_TITLE_BEFORE:
            c.add("person", m.start(), m.end(), m.group(0))


def _chinese_people(c: _Collector) -> None:
    text = c.text
    for i, ch in enumerate(text):
        if ch in "小老阿" and i + 1 < len(text) and text[i + 1] in _CN_SURNAMES:
            forms = [i + 2]
        elif text.startswith(_CN_COMPOUND, i):
            forms = [i + 3, i + 4]
        elif ch in _CN_SURNAMES:
            forms = [i + 2, i + 3]
        else:
            continue
        before = any(text.endswith(cue, 0, i) for cue in _CN_BEFORE)
        for end in forms:
            name = text[i:end]
            if end > len(text) or not re.fullmatch(f"[{CJK}]+", name) or _CN_NOT_IN_NAME & set(name[1:]):
                continue
            if name in _CN_COMMON_WORDS or not c.free(i, end):
                continue
            boundary = end == len(text) or not re.match(f"[{CJK}]", text[end])
            if (before and (boundary or text.startswith(_CN_AFTER, end))) or text.startswith(_CN_AFTER_STRONG, end):
                c.add("person", i, end, name)
                break


def _ref_day(reference: datetime) -> date:
    return reference.astimezone(UTC).date()


def resolve_dates(text: str, reference: datetime) -> list[tuple[str, str]]:
    """(text as written, ISO value) for every date expression, relative ones resolved against `reference`."""
    _check(text, reference, need_reference=True)
    return [(f.text, f.value) for f in find_dates(text, _ref_day(reference))]


def extract_entities(text: str, reference: datetime, dates: list[Found] | None = None) -> list[Entity]:
    """People, places, organisations, dates, times, numbers, codes, emails, urls and phones in `text`.

    `dates`: `find_dates(text, <reference's UTC day>)` when the caller has it already (a search uses a
    question's dates three ways and finds them once)."""
    _check(text, reference, need_reference=True)
    c = _Collector(text)
    _contacts(c)
    if dates is None:
        dates = find_dates(text, _ref_day(reference))
    found: list[tuple[str, Found]] = [("date", f) for f in dates]
    found += [("time", f) for f in find_times(text)]
    for kind, f in sorted(found, key=lambda item: item[1].start):
        c.add(kind, f.start, f.end, f.value)
    _codes(c)
    _numbers(c)
    _orgs_and_places(c)
    _english_people(c)
    _chinese_people(c)
    _chinese_words(c)
    return c.entities()
