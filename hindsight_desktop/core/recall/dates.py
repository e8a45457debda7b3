"""A question's dates as periods of time, and which memories fall in them.

"上个月我去了哪里？" / "what did I do last month?" names a period (a month), not a day. A memory is in
it when it happened then (occurred_at) or names a date inside it ("下周三" written a week earlier,
resolved against the memory's own time). Being in the period counts as entity evidence, weighted
like any other entity by how rare it is (IDF over the store): "后天" with two memories points
somewhere, "去年" with a thousand barely does. No separate weight to tune, and the same for every
language. The period words themselves are taken out of the keyword query (a memory that also says
"上个月" is not thereby about the same month).
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, time

import apsw

from hindsight_desktop.core.store import entities, memories
from hindsight_desktop.core.text.extract_dates import Found, find_dates, period

Period = tuple[date, date]  # [first day, day after the last), UTC days


def question_dates(text: str, now: datetime) -> list[Found]:
    """The date expressions in a question, relative ones resolved against `now`'s UTC day. A search finds
    them once and passes them to the entity extractor, `question_periods` and `without_dates`."""
    return find_dates(text, now.astimezone(UTC).date())


def question_periods(found: list[Found]) -> list[Period]:
    """The periods a question's dates (`question_dates`) name."""
    return [period(f) for f in found]


def without_dates(text: str, found: list[Found]) -> str:
    """The question with its Chinese date words (`question_dates`) blanked out (English ones stay: the
    keyword index holds each memory's own date in English words, which those still match)."""
    for f in sorted(found, key=lambda f: -f.start):
        if not f.text.isascii():
            text = text[: f.start] + " " + text[f.end :]
    return text


def _stamp(day: date) -> str:
    return datetime.combine(day, time(0), UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _members(db: apsw.Connection, first: date, after: date, viewer: str | None) -> set[int]:
    """Memories `viewer` may see that happened in the period or name a date in it."""
    found = set(memories.occurred_between(db, _stamp(first), _stamp(after), viewer))
    found.update(entities.naming_dates_between(db, first.isoformat(), after.isoformat(), viewer))
    years = [str(y) for y in range(first.year, after.year) if date(y, 1, 1) >= first]
    if years:  # a year-long period also takes memories that name just that year ("去年", "in 2023")
        found.update(entities.naming_dates(db, years, viewer))
    return found


def period_hits(
    db: apsw.Connection, periods: list[Period], candidates: set[int], pool: int, viewer: str | None, total: int
) -> dict[int, float]:
    """Entity-scale evidence (0..1) for memories in the question's periods, weighed by rarity among the
    `total` memories `viewer` may see. All of a period's memories
    become candidates when there are at most `pool` of them; otherwise only candidates found by
    other means are marked (the period then counts for little anyway)."""
    if not periods:
        return {}
    norm = math.log((total + 1) / 2) or 1.0
    scores: dict[int, float] = {}
    for first, after in periods:
        members = _members(db, first, after, viewer)
        weight = math.log((total + 1) / (len(members) + 1)) / norm
        if len(members) > pool:
            members &= candidates
        for rowid in members:
            scores[rowid] = scores.get(rowid, 0.0) + max(0.0, weight)
    return scores
