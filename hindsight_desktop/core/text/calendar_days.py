"""Calendar arithmetic for date expressions: weeks start on Monday (ISO), months add with the day
clamped to the month's end, and the days Chinese holidays fall on (the lunar ones from a table)."""

from __future__ import annotations

import calendar
from datetime import date, timedelta


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def add_months(day: date, months: int) -> date:
    years, month0 = divmod(day.month - 1 + months, 12)
    year = day.year + years
    return date(year, month0 + 1, min(day.day, calendar.monthrange(year, month0 + 1)[1]))


def shift(day: date, amount: int, unit: str) -> date:
    if unit == "day":
        return day + timedelta(days=amount)
    if unit == "week":
        return day + timedelta(weeks=amount)
    if unit == "fortnight":
        return day + timedelta(weeks=2 * amount)
    if unit == "month":
        return add_months(day, amount)
    return add_months(day, 12 * amount)


def unit_start(day: date, unit: str, offset: int) -> str:
    """The calendar week/month/year `offset` units away: Monday, first of month, or 'YYYY'."""
    if unit == "week":
        return (week_start(day) + timedelta(weeks=offset)).isoformat()
    if unit == "month":
        return add_months(day.replace(day=1), offset).isoformat()
    return str(day.year + offset)


def unit_period(day: date, unit: str, offset: int) -> str | tuple[str, str]:
    """`unit_start` with the period's end: a week is seven days, a month a month, a year "YYYY"."""
    start = unit_start(day, unit, offset)
    if unit == "week":
        return start, (date.fromisoformat(start) + timedelta(weeks=1)).isoformat()
    if unit == "month":
        return start, add_months(date.fromisoformat(start), 1).isoformat()
    return start


def upcoming(day: date, weekday: int, strict: bool = False) -> date:
    delta = (weekday - day.weekday()) % 7
    if strict and delta == 0:
        delta = 7
    return day + timedelta(days=delta)


def iso_day(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def month_span(first: date) -> tuple[str, str]:
    return first.isoformat(), add_months(first, 1).isoformat()


def day_span(first: date, days: int) -> tuple[str, str]:
    return first.isoformat(), (first + timedelta(days=days)).isoformat()


# Lunar new year's day (正月初一), 端午 (五月初五) and 中秋 (八月十五), 2020-2035.
_SPRING = dict(
    zip(
        range(2020, 2036),
        (
            "01-25",
            "02-12",
            "02-01",
            "01-22",
            "02-10",
            "01-29",
            "02-17",
            "02-06",
            "01-26",
            "02-13",
            "02-03",
            "01-23",
            "02-11",
            "01-31",
            "02-19",
            "02-08",
        ),
        strict=True,
    )
)
_DRAGON_BOAT = dict(
    zip(
        range(2020, 2036),
        (
            "06-25",
            "06-14",
            "06-03",
            "06-22",
            "06-10",
            "05-31",
            "06-19",
            "06-09",
            "05-28",
            "06-16",
            "06-05",
            "06-24",
            "06-12",
            "06-01",
            "06-20",
            "06-10",
        ),
        strict=True,
    )
)
_MID_AUTUMN = dict(
    zip(
        range(2020, 2036),
        (
            "10-01",
            "09-21",
            "09-10",
            "09-29",
            "09-17",
            "10-06",
            "09-25",
            "09-15",
            "10-03",
            "09-22",
            "09-12",
            "10-01",
            "09-19",
            "09-08",
            "09-27",
            "09-16",
        ),
        strict=True,
    )
)
# holiday word -> (table or fixed "MM-DD", offset in days from that day, length in days)
HOLIDAYS: dict[str, tuple[dict[int, str] | str, int, int]] = {
    "国庆": ("10-01", 0, 7),
    "十一": ("10-01", 0, 7),
    "元旦": ("01-01", 0, 1),
    "五一": ("05-01", 0, 5),
    "劳动节": ("05-01", 0, 5),
    "清明": ("04-04", 0, 3),
    "圣诞": ("12-25", 0, 1),
    "平安夜": ("12-24", 0, 1),
    "情人节": ("02-14", 0, 1),
    "春节": (_SPRING, -1, 8),
    "过年": (_SPRING, -1, 8),
    "除夕": (_SPRING, -1, 1),
    "元宵": (_SPRING, 14, 1),
    "端午": (_DRAGON_BOAT, 0, 3),
    "中秋": (_MID_AUTUMN, 0, 3),
}


def holiday_start(name: str, year: int) -> date | None:
    source, offset, _ = HOLIDAYS[name]
    day = source if isinstance(source, str) else source.get(year)
    return date.fromisoformat(f"{year}-{day}") + timedelta(days=offset) if day else None
