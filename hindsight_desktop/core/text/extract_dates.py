"""Dates and times in English and Chinese; relative dates are resolved against a reference day.

Week semantics: weeks start on Monday (ISO calendar weeks).
- "this Wednesday" / 这周三 / 本周三: the Wednesday of the reference's own week (may be in the past).
- "next Wednesday" / 下周三: the Wednesday of the following calendar week.
- "last Wednesday" / 上周三: the Wednesday of the previous calendar week.
- a bare weekday ("Friday", "on Friday", 周五, 星期五): the nearest one on or after the reference day
  (the reference day itself counts). "this coming Friday" is the nearest one strictly after it.
Granularity of values:
- day-level expressions give "YYYY-MM-DD";
- week-level ("next week", 下周) give the Monday of that week; "next weekend" / 下周末 its Saturday;
- month-level ("next month", 下个月, "May 2023") give the first day of that month;
- year-level ("last year", 去年, "in 2023", 2023年) give "YYYY" only, because a first-of-January
  date would claim a precision the text does not have;
- offsets ("in 3 days", "2 weeks ago", 三天后, "3 months ago") give the exact day, months clamped
  to the month's end (Jan 31 + 1 month = Feb 28/29);
- dates written without a year ("May 3", 5月3日, 3/5) take the reference's year;
- "05/03/2023" is month/day/year (US) unless the first number is over 12; "3/5" is March 5.
- parts of a month: 三月初 / 上旬 the 1st-10th, 三月中 / 中旬 the 11th-20th, 三月底 / 末 / 下旬 the 21st
  to the end (value: the first day of the part); 年初 January-February, 年底 / 年末 November-December;
- holidays: 国庆 (1-7 Oct), 春节 / 过年 (除夕 to 初六), 除夕, 元宵, 元旦, 五一, 清明, 端午, 中秋, 圣诞,
  情人节; with a year word (去年国庆, 今年春节, 2025年中秋) in that year, bare in the occurrence nearest
  the reference day. Lunar holidays come from a fixed table (2020-2035, checked against lunardate 0.3.0);
  outside it they give nothing rather than a wrong day.
Every expression also has a period (Found.until, exclusive): a day, a week, a weekend, a part of a
month, a month, a holiday, a year. Recall matches a question's periods against memories' times.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import NamedTuple

from hindsight_desktop.core.text.calendar_days import (
    HOLIDAYS,
    add_months,
    day_span,
    holiday_start,
    iso_day,
    month_span,
    shift,
    unit_period,
    upcoming,
    week_start,
)
from hindsight_desktop.core.text.spans import Taken


class Found(NamedTuple):
    """One expression found in a text: its span, the text as written and its normalised value."""

    start: int
    end: int
    text: str
    value: str
    until: str = ""  # the day after the period the expression names (ISO); "" for times


def period(found: Found) -> tuple[date, date]:
    """The days a date expression covers, as [first, after-last)."""
    if len(found.value) == 4:
        return date(int(found.value), 1, 1), date(int(found.value) + 1, 1, 1)
    first = date.fromisoformat(found.value)
    return first, date.fromisoformat(found.until) if found.until else first + timedelta(days=1)


_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
CN_NUM = r"(?:\d{1,3}|[零〇一二两三四五六七八九十百]{1,4})"


def cn_to_int(word: str) -> int | None:
    """'3', '三', '十五', '二十三', '两', '一百' -> int; None when it is not a number we read."""
    if word.isascii() and word.isdigit():
        return int(word)
    if not word or any(ch not in _CN_DIGITS and ch not in "十百" for ch in word):
        return None
    if "十" not in word and "百" not in word:
        # A run of digit words such as 二〇二三 is read digit by digit.
        return int("".join(str(_CN_DIGITS[ch]) for ch in word))
    total = current = 0
    for ch in word:
        if ch == "百":
            total += (current or 1) * 100
            current = 0
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        else:
            current = _CN_DIGITS[ch]
    return total + current


_EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
}
_EN_NUM = r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)"
# Full month and weekday names, in calendar order; recall/subjects.py reads them too (a capitalised
# calendar word names no one).
MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = {name: number for number, name in enumerate(MONTH_NAMES, 1)} | {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sept": 9,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MON = r"(?P<mon>" + "|".join(_MONTHS) + r")\b\.?"  # full names come first so 'march' beats 'mar'
_WEEKDAYS = {name: number for number, name in enumerate(WEEKDAY_NAMES)} | {
    "mon": 0,
    "tues": 1,
    "tue": 1,
    "wed": 2,
    "thurs": 3,
    "thur": 3,
    "thu": 3,
    "fri": 4,
    "sat": 5,
    "sun": 6,
}
_WD_FULL = r"(?P<wd>" + "|".join(WEEKDAY_NAMES) + r")"
_WD_ANY = r"(?P<wd>" + "|".join(_WEEKDAYS) + r")"
_CN_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_UNITS = {"day": "day", "week": "week", "month": "month", "year": "year", "fortnight": "fortnight"}
_CN_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}


def _year(text: str) -> int:
    year = int(text) if text.isdigit() else cn_to_int(text) or 0
    return year + 2000 if year < 100 else year


# ---- rules: (pattern, resolver) ------------------------------------------------------------------

# A resolver gives the first day ("YYYY-MM-DD", or "YYYY" for a year), or (first day, day after the period).
Resolver = Callable[[re.Match[str], date], str | tuple[str, str] | None]
_I = re.IGNORECASE


def _dmy(m: re.Match[str], ref: date) -> str | None:
    if m.group("mon") == "may":  # lower-case 'may' is nearly always the verb
        return None
    year = int(m.group("y")) if m.group("y") else ref.year
    return iso_day(year, _MONTHS[m.group("mon").lower()], int(m.group("d")))


def _month_year(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    if m.group("mon") == "may":
        return None
    return month_span(date(int(m.group("y")), _MONTHS[m.group("mon").lower()], 1))


def _numeric(m: re.Match[str], ref: date) -> str | None:
    return iso_day(int(m.group("y")), int(m.group("m")), int(m.group("d")))


def _us_slash(m: re.Match[str], ref: date) -> str | None:
    first, second = int(m.group("m")), int(m.group("d"))
    if first > 12 >= second:  # only day/month reads as a date
        first, second = second, first
    return iso_day(_year(m.group("y")), first, second)


def _cn_full(m: re.Match[str], ref: date) -> str | None:
    year = _year(m.group("y")) if m.group("y") else ref.year
    month, day = cn_to_int(m.group("m")), cn_to_int(m.group("d") or "1")
    return iso_day(year, month, day) if month and day else None


def _cn_month(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    month = cn_to_int(m.group("m"))
    return month_span(date(_year(m.group("y")), month, 1)) if month and 1 <= month <= 12 else None


def _month_day(m: re.Match[str], ref: date) -> str | None:
    if m.group(0) in _FRACTIONS:
        return None
    return iso_day(ref.year, int(m.group("m")), int(m.group("d")))


_FRACTIONS = frozenset(["1/2", "1/3", "2/3", "1/4", "3/4"])
_CN_YEAR_WORDS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "後年": 2}
_CN_YEAR_PREFIX = r"(?P<y>大前年|前年|去年|今年|明年|[后後]年|\d{4}\s*年|[零〇一二三四五六七八九]{4}年)"


def _prefixed_year(word: str | None, ref: date) -> int | None:
    if not word:
        return None
    if word in _CN_YEAR_WORDS:
        return ref.year + _CN_YEAR_WORDS[word]
    return _year(word.rstrip("年").strip())


def _month_part(year: int, month: int, part: str) -> tuple[str, str] | None:
    if not 1 <= month <= 12:
        return None
    first = date(year, month, 1)
    if part in ("初", "上旬"):
        return day_span(first, 10)
    if part in ("中", "中旬"):
        return day_span(first.replace(day=11), 10)
    return first.replace(day=21).isoformat(), add_months(first, 1).isoformat()


def _cn_month_part(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    month = cn_to_int(m.group("m"))
    year = _prefixed_year(m.group("y"), ref) or ref.year
    return _month_part(year, month, m.group("p")) if month else None


def _cn_rel_month_part(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    first = add_months(ref.replace(day=1), _cn_shift_word(m.group("pre")) or 0)
    return _month_part(first.year, first.month, m.group("p"))


def _cn_year_part(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    year = _prefixed_year(m.group("y"), ref) or ref.year
    if m.group("p") == "初":
        return date(year, 1, 1).isoformat(), date(year, 3, 1).isoformat()
    return date(year, 11, 1).isoformat(), date(year + 1, 1, 1).isoformat()


def _cn_holiday(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    name = m.group("h")
    year = _prefixed_year(m.group("y"), ref)
    if year is not None:
        first = holiday_start(name, year)
    else:  # bare: the occurrence nearest the reference day, before or after
        days = [d for y in (ref.year - 1, ref.year, ref.year + 1) if (d := holiday_start(name, y))]
        first = min(days, key=lambda d: abs((d - ref).days)) if days else None
    return day_span(first, HOLIDAYS[name][2]) if first else None


def _year_only(m: re.Match[str], ref: date) -> str | None:
    return str(_year(m.group("y")))


_ABSOLUTE_RULES: list[tuple[re.Pattern[str], Resolver]] = [
    (re.compile(r"\b(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})\b"), _numeric),
    (re.compile(r"\b(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4}|\d{2})\b"), _us_slash),
    (
        re.compile(
            r"\b(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + r"(?:,?\s+(?P<y>\d{4})\b)?", _I
        ),
        _dmy,
    ),
    (re.compile(r"\b" + _MON + r"\s+(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{4})\b)?", _I), _dmy),
    (re.compile(r"\b" + _MON + r",?\s+(?P<y>\d{4})\b", _I), _month_year),
    (re.compile(r"\b(?:in|since|during|of|from)\s+(?P<t>(?P<y>(?:19|20)\d{2}))\b(?![-/.]\d)", _I), _year_only),
    (
        re.compile(
            r"(?:(?P<y>\d{4}|[零〇一二三四五六七八九]{4})\s*年\s*)?(?P<m>"
            + CN_NUM
            + r")\s*月\s*(?P<d>"
            + CN_NUM
            + r")\s*[日号號]"
        ),
        _cn_full,
    ),
    (re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>" + CN_NUM + r")\s*(?:月份|月)"), _cn_month),
    (re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})\s*年(?!\s*\d{1,2}\s*月)"), _year_only),
    (re.compile(r"(?<![\d/.])(?P<m>1[0-2]|0?[1-9])/(?P<d>3[01]|[12]\d|0?[1-9])(?![\d/.%])"), _month_day),
    # The blanks belong to the year: a leading optional run would be tried from every blank of a long run.
    (
        re.compile(
            r"(?:" + _CN_YEAR_PREFIX + r"\s*)?(?P<m>" + CN_NUM + r")\s*月(?:份)?(?P<p>初|上旬|中旬|中|底|末|下旬)"
        ),
        _cn_month_part,
    ),
    (
        re.compile(
            _CN_YEAR_PREFIX + r"?的?(?P<h>国庆|十一(?=长假|假期|黄金周)|元旦|五一|劳动节|清明|圣诞|平安夜|情人节"
            r"|春节|过年|除夕|元宵|端午|中秋)(?:节|假期|长假|黄金周|小长假)?"
        ),
        _cn_holiday,
    ),
]


def _fixed(offset: int) -> Resolver:
    return lambda m, ref: (ref + timedelta(days=offset)).isoformat()


def _en_weekday(m: re.Match[str], ref: date) -> str | None:
    weekday = _WEEKDAYS[m.group("wd").lower()]
    which = (m.groupdict().get("which") or "").lower().split()
    if not which:
        return upcoming(ref, weekday).isoformat()
    if which[-1] == "coming":
        return upcoming(ref, weekday, strict=True).isoformat()
    if which[-1] == "past":
        return (ref - timedelta(days=(ref.weekday() - weekday) % 7 or 7)).isoformat()
    weeks = {"this": 0, "next": 1, "last": -1}[which[-1]]
    return (week_start(ref) + timedelta(weeks=weeks, days=weekday)).isoformat()


def _en_unit(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    offset = {"this": 0, "next": 1, "last": -1, "past": -1}[m.group("which").lower()]
    unit = m.group("unit").lower()
    if unit == "weekend":
        return day_span(week_start(ref) + timedelta(weeks=offset, days=5), 2)
    return unit_period(ref, unit, offset)


def _en_offset(m: re.Match[str], ref: date) -> str | None:
    amount = int(m.group("n")) if m.group("n").isdigit() else _EN_NUMBERS[m.group("n").lower()]
    direction = (m.groupdict().get("dir") or "later").lower()
    sign = -1 if direction in ("ago", "before", "earlier") else 1
    return shift(ref, sign * amount, _UNITS[m.group("unit").lower()]).isoformat()


def _cn_day(m: re.Match[str], ref: date) -> str | None:
    word = m.group(0)
    offsets = {"大前": -3, "前": -2, "昨": -1, "今": 0, "明": 1, "后": 2, "後": 2, "大后": 3, "大後": 3}
    key = word[:2] if word.startswith("大") else word[:1]
    return (ref + timedelta(days=offsets[key])).isoformat()


def _cn_shift_word(prefix: str) -> int | None:
    """下 = +1, 下下 = +2, 上 = -1, 上上 = -2, 这/本 = 0, nothing = None (bare)."""
    if not prefix:
        return None
    if prefix[0] in "这這本":
        return 0
    return (1 if prefix[0] == "下" else -1) * (2 if prefix[:2] in ("下下", "上上") else 1)


def _cn_weekday(m: re.Match[str], ref: date) -> str | None:
    weekday = _CN_WD[m.group("wd")]
    weeks = _cn_shift_word(m.group("pre") or "")
    if weeks is None:
        return upcoming(ref, weekday).isoformat()
    return (week_start(ref) + timedelta(weeks=weeks, days=weekday)).isoformat()


def _cn_week(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    weeks = _cn_shift_word(m.groupdict().get("pre") or "这")
    if m.group("end"):  # 周末 = that week's Saturday and Sunday
        return day_span(week_start(ref) + timedelta(weeks=weeks or 0, days=5), 2)
    return day_span(week_start(ref) + timedelta(weeks=weeks or 0), 7)


def _cn_month_rel(m: re.Match[str], ref: date) -> str | tuple[str, str] | None:
    return unit_period(ref, "month", _cn_shift_word(m.group("pre")) or 0)


def _cn_year_rel(m: re.Match[str], ref: date) -> str | None:
    offsets = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "後年": 2}
    return str(ref.year + offsets[m.group(0)])


def _cn_offset(m: re.Match[str], ref: date) -> str | None:
    amount = cn_to_int(m.group("n"))
    if amount is None:
        return None
    unit = _CN_UNITS[m.group("unit").lstrip("个個")]
    sign = -1 if m.group("dir").endswith("前") else 1
    return shift(ref, sign * amount, unit).isoformat()


_CN_WEEK = r"(?:周|週|星期|礼拜|禮拜)"
_CN_BARE_GUARD = r"(?<![一二三四五六七八九十两\d每])"  # 一周三次 is "three times a week", 每周三 a habit
_RELATIVE_RULES: list[tuple[re.Pattern[str], Resolver]] = [
    (re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", _I), _fixed(2)),
    (re.compile(r"\b(?:the\s+)?day\s+before\s+yesterday\b", _I), _fixed(-2)),
    (re.compile(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", _I), _fixed(0)),
    (re.compile(r"\btomorrow\b", _I), _fixed(1)),
    (re.compile(r"\b(?:yesterday|last\s+night)\b", _I), _fixed(-1)),
    (
        re.compile(r"\b(?P<which>next|last|this(?:\s+(?:coming|past))?|coming|past)\s+" + _WD_ANY + r"\b", _I),
        _en_weekday,
    ),
    (re.compile(r"\b" + _WD_FULL + r"\b", _I), _en_weekday),
    (re.compile(r"\b(?P<which>next|last|this|past)\s+(?P<unit>weekend|week|month|year)\b", _I), _en_unit),
    (re.compile(r"\bin\s+(?P<n>" + _EN_NUM + r")\s+(?P<unit>day|week|fortnight|month|year)s?\b", _I), _en_offset),
    (
        re.compile(
            r"\b(?P<n>" + _EN_NUM + r")\s+(?P<unit>day|week|fortnight|month|year)s?\s+"
            r"(?P<dir>ago|before|earlier|later|after|from\s+now|from\s+today)\b",
            _I,
        ),
        _en_offset,
    ),
    (re.compile(r"大?前天|昨天|昨日|昨晚|昨儿|今天|今日|今晚|今早|今儿|明天|明日|明晚|明早|明儿|大?[后後]天"), _cn_day),
    (
        re.compile(
            r"(?P<pre>(?:下下?|上上?)个?|這個?|这个?|本)?" + _CN_BARE_GUARD + _CN_WEEK + r"(?P<wd>[一二三四五六日天])"
        ),
        _cn_weekday,
    ),
    (
        re.compile(r"(?P<pre>(?:下下?|上上?)个?|这个?|這個?|本)" + _CN_WEEK + r"(?P<end>末)?(?![一二三四五六日天])"),
        _cn_week,
    ),
    (re.compile(_CN_BARE_GUARD + r"(?P<end>周末|週末)"), _cn_week),
    (re.compile(r"(?P<pre>下下?个?|上上?个?|这个|這個|本)月(?!\s*" + CN_NUM + r"\s*[日号號])"), _cn_month_rel),
    (re.compile(r"(?P<pre>下下?个?|上上?个?|这个|這個|本)?月(?P<p>初|中旬|底|末|上旬|下旬)"), _cn_rel_month_part),
    (re.compile(r"(?:(?P<y>大前年|前年|去年|今年|明年|[后後]年)年?|(?<![\d年])年)(?P<p>初|底|末)"), _cn_year_part),
    (re.compile(r"大前年|前年|去年|今年|明年|[后後]年"), _cn_year_rel),
    (
        re.compile(
            r"(?P<n>"
            + CN_NUM
            + r")\s*(?P<unit>天|日|周|週|个?星期|个?礼拜|个月|個月|年)\s*(?P<dir>以后|之后|以後|之後|后|後|以前|之前|前)"  # noqa: E501 (one alternation; Chinese counts double)
        ),
        _cn_offset,
    ),
]


def _select(candidates: list[Found]) -> list[Found]:
    """Longest expressions win; the rest must not overlap them. Result in text order."""
    chosen: list[Found] = []
    taken = Taken()
    for cand in sorted(candidates, key=lambda f: (f.start - f.end, f.start)):
        if taken.take(cand.start, cand.end):
            chosen.append(cand)
    return sorted(chosen)


def _run(rules: list[tuple[re.Pattern[str], Resolver]], text: str, ref: date) -> list[Found]:
    found: list[Found] = []
    for pattern, resolve in rules:
        for m in pattern.finditer(text):
            resolved = resolve(m, ref)
            if resolved:
                value, until = resolved if isinstance(resolved, tuple) else (resolved, "")
                start, end = m.span("t") if "t" in pattern.groupindex else m.span()
                found.append(Found(start, end, text[start:end], value, until))
    return found


def find_dates(text: str, ref: date, relative: bool = True) -> list[Found]:
    """Every date expression in `text`, relative ones resolved against the day `ref`."""
    found = _run(_ABSOLUTE_RULES, text, ref)
    if relative:
        found += _run(_RELATIVE_RULES, text, ref)
    return _select(found)


# ---- times ---------------------------------------------------------------------------------------

_CN_PERIOD_PM = ("下午", "傍晚", "晚上", "夜里", "夜晚")
_TIME_RULES = [
    re.compile(r"\b(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?\s*(?P<ap>a\.m\.|p\.m\.|am|pm)(?![A-Za-z])", _I),
    re.compile(r"(?<![\d:.])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::[0-5]\d)?(?![\d:])"),
    re.compile(r"\b(?P<h>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+o'?clock\b", _I),
    re.compile(r"\b(?P<word>noon|midday|midnight)\b", _I),
    re.compile(
        r"(?P<p>凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜晚|半夜)?(?P<h>\d{1,2}|[零一二两三四五六七八九十]{1,3})"
        r"(?:点|點|时|時)(?P<mm>半|一刻|三刻|整|钟|鐘|(?P<m>\d{1,2}|[零一二三四五六七八九十]{1,3})分?)?"
    ),
]


def _time_value(m: re.Match[str]) -> str | None:
    groups = m.groupdict()
    if groups.get("word"):
        return "00:00" if groups["word"].lower() == "midnight" else "12:00"
    raw = groups["h"]
    hour = _EN_NUMBERS.get(raw.lower()) if raw.isalpha() and raw.isascii() else cn_to_int(raw)
    if hour is None:
        return None
    minute = 0
    if "mm" in groups:  # the Chinese form
        period, tail = groups["p"] or "", groups["mm"] or ""
        # 一点 / 三点 alone are "a little" / "three points": need a period, digits or a minute part.
        if not (period or raw.isdigit() or tail in ("半", "一刻", "三刻", "整", "钟", "鐘") or tail.endswith("分")):
            return None
        if groups["m"] and not (period or tail.endswith("分")):
            return None  # 三点五 is the decimal 3.5
        minute = {"半": 30, "一刻": 15, "三刻": 45}.get(tail, cn_to_int(groups["m"]) if groups["m"] else 0) or 0
        if period in _CN_PERIOD_PM and hour < 12 or period == "中午" and hour < 6:
            hour += 12
        elif period in ("晚上", "夜里", "夜晚", "半夜", "凌晨") and hour == 12:
            hour = 0
    else:
        minute = int(groups["m"]) if groups.get("m") else 0
        marker = (groups.get("ap") or "").lower().replace(".", "")
        if marker and not 1 <= hour <= 12:
            return None
        if marker == "pm" and hour != 12:
            hour += 12
        elif marker == "am" and hour == 12:
            hour = 0
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


def find_times(text: str) -> list[Found]:
    """Clock times ("3pm", "15:30", "下午三点半") as "HH:MM"."""
    found = []
    for pattern in _TIME_RULES:
        for m in pattern.finditer(text):
            value = _time_value(m)
            if value:
                found.append(Found(m.start(), m.end(), m.group(0), value))
    return _select(found)
