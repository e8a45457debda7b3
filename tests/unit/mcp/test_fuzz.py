"""Fuzzing the input edges with hypothesis: the MCP argument coercion, date parsing, and memory_write
through the real MCP server over a real engine. No input may raise anything but a validation error
(the product's InvalidInput, or pydantic's argument error naming the field), and no call may leave
half a memory behind. The explicit cases below pin the limits the fuzzing relies on."""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from pydantic import BaseModel, ValidationError

from hindsight_desktop.core import timeutil
from hindsight_desktop.core.diagnose.checks import check_indexes
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.text import extract_dates
from hindsight_desktop.core.validate import MAX_IDS, MAX_LIST_ITEMS
from hindsight_desktop.mcp import coerce
from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.server import build_server

# Everything JSON (or a confused client) can carry, plus the strings clients really send.
ODD_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "null",
        "None",
        "undefined",
        "nan",
        "NaN",
        "-inf",
        "Infinity",
        "1e999",
        "-1e999",
        "1e308",
        "5",
        " 0.8 ",
        "true",
        "yes",
        "0",
        "1",
        "2",
        "[",
        "[]",
        "[1,2]",
        '["a","b"]',
        "a, b",
        ",,,",
        "{",
        "{}",
        '{"a": NaN}',
        "[" * 5000,
        "9" * 5000,
        "0x10",
        "1_000",
        "١٢",
        "½",
        "\x00",
        "\ud7ff",
    ]
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=40), ODD_STRINGS)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
FUZZ = settings(max_examples=300, deadline=None)


class Arguments(BaseModel):
    """Every coercing type the tools use, each with a default (as in the tool signatures)."""

    i: coerce.Int = 5
    f: coerce.Float | None = None
    b: coerce.Bool = False
    t: coerce.Text | None = None
    tl: coerce.TextList | None = None
    tol: coerce.TextOrList | None = None
    obj: coerce.JsonObject | None = None


@FUZZ
@given(field=st.sampled_from(sorted(Arguments.model_fields)), value=VALUES)
def test_coercion_accepts_or_names_the_field(field: str, value: Any):
    try:
        parsed = Arguments.model_validate({field: value})
    except ValidationError as exc:
        assert all(error["loc"][:1] == (field,) for error in exc.errors())
        return
    if parsed.f is not None:
        assert math.isfinite(parsed.f)
    for items in (parsed.tl, parsed.tol if isinstance(parsed.tol, list) else None):
        assert items is None or len(items) <= MAX_LIST_ITEMS


@FUZZ
@given(
    value=st.one_of(
        VALUES,
        st.datetimes(timezones=st.one_of(st.none(), st.timezones())),
        st.datetimes().map(lambda d: d.isoformat()),
        st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    )
)
def test_parse_when_returns_a_sane_utc_date_or_invalid_input(value: Any):
    try:
        parsed = timeutil.parse_when(value, "timestamp")
    except InvalidInput as exc:
        assert "timestamp" in str(exc)
        return
    assert parsed.tzinfo is UTC
    assert timeutil.MIN_YEAR - 1 <= parsed.year <= timeutil.MAX_YEAR + 1  # a zone may cross New Year


DATE_WORDS = [
    "in",
    "on",
    "the",
    "of",
    "3",
    "12",
    "31",
    "99",
    "999",
    "2023",
    "1899",
    "9999",
    "0",
    "days",
    "day",
    "weeks",
    "months",
    "years",
    "ago",
    "later",
    "next",
    "last",
    "this",
    "coming",
    "week",
    "month",
    "year",
    "May",
    "may",
    "February",
    "Feb",
    "29th",
    "Friday",
    "/",
    "-",
    ".",
    ",",
    " ",
    "年",
    "月",
    "日",
    "号",
    "后",
    "前",
    "以后",
    "之前",
    "下下个",
    "上上",
    "周",
    "星期",
    "三",
    "十",
    "百",
    "两",
    "零",
    "九九九",
    "天",
    "个月",
    "去年",
    "明年",
    "大前年",
    "下午",
    "点",
    "半",
    "一刻",
    "3pm",
    "12am",
    "13:61",
    "23:59",
    "noon",
    "o'clock",
]
DATE_TEXT = st.lists(st.one_of(st.sampled_from(DATE_WORDS), st.text(max_size=3)), max_size=14).map("".join)


@FUZZ
@given(text=DATE_TEXT, ref=st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31)), relative=st.booleans())
def test_date_extraction_never_raises(text: str, ref: date, relative: bool):
    for found in extract_dates.find_dates(text, ref, relative):
        assert text[found.start : found.end] == found.text
        value = found.value
        if len(value) == 4:
            int(value)  # a year
        else:
            date.fromisoformat(value)
    for found in extract_dates.find_times(text):
        hour, minute = map(int, found.value.split(":"))
        assert 0 <= hour <= 23 and 0 <= minute <= 59


# ---- through the real MCP server ---------------------------------------------------------------

WRITE_ARGS = st.fixed_dictionaries(
    {},
    optional={
        "content": st.one_of(st.text(max_size=60), VALUES, st.just("x" * 40_000), st.just("My cat is called Miso.")),
        "type": st.one_of(VALUES, st.sampled_from(["fact", "preference", "FACT ", "a b", "x" * 50])),
        "importance": VALUES,
        "metadata": st.one_of(VALUES, st.just('{"a": NaN}'), st.just({"deep": [[[[1]]]]}), st.just("[" * 3000)),
        "timestamp": st.one_of(
            VALUES, st.datetimes().map(lambda d: d.isoformat()), st.just("0001-01-01T00:00:00+05:00")
        ),
        "session_id": VALUES,
        "scope": st.one_of(VALUES, st.sampled_from(["private", "shared", "PRIVATE", "public"])),
    },
)


def counts(engine) -> tuple[int, int]:
    with engine.store.read() as db:
        return (
            db.execute("SELECT count(*) FROM memories").fetchone()[0],
            db.execute("SELECT count(*) FROM events").fetchone()[0],
        )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=WRITE_ARGS)
def test_memory_write_is_all_or_nothing(engine, arguments: dict[str, Any]):
    server = build_server(engine, Identity(local="fuzzer"))
    before = counts(engine)

    async def call():
        async with Client(server) as client:
            return await client.call_tool("memory_write", arguments)

    result = anyio.run(call)
    if result.is_error:
        assert counts(engine) == before, result.content[0].text
        assert "\nTraceback" not in result.content[0].text
    else:
        stored = engine.get(result.structured_content["id"])
        assert stored.content and timeutil.MIN_YEAR <= stored.occurred_at.year <= timeutil.MAX_YEAR
        json.dumps(stored.metadata, allow_nan=False)
    assert check_indexes(engine.store).ok
    with engine.store.read() as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# ---- the limits, case by case ------------------------------------------------------------------


@pytest.mark.parametrize(
    "when",
    [
        "0001-01-01T00:00:00+05:00",
        "9999-12-31T23:59:59-05:00",
        "1899-12-31T23:59:59Z",
        "2201-01-01",
        datetime(1, 1, 1, tzinfo=UTC),
    ],
)
def test_timestamps_outside_1900_to_2200_are_refused(engine, when):
    # A year past 2200 is also more than a day ahead: either refusal names the timestamp.
    with pytest.raises(
        InvalidInput,
        match=r"timestamp is (in the year \d+; dates must fall between 1900 and 2200"
        r"|more than a day ahead)",
    ):
        engine.write("The old mill burned down.", occurred_at=when, explicit=True)
    assert engine.write("The mill was rebuilt.", occurred_at="1900-01-02T00:00:00Z", explicit=True).stored


@pytest.mark.parametrize("days", [math.nan, math.inf, -math.inf, 1e12])
def test_non_finite_or_huge_day_counts_are_refused(engine, days):
    with pytest.raises(InvalidInput, match="time_range_days"):
        engine.search("anything", time_range_days=days)
    with pytest.raises(InvalidInput, match="older_than_days"):
        engine.forget(older_than_days=days)


def test_list_arguments_are_capped(engine):
    with pytest.raises(InvalidInput, match=f"memory_id has 10001 items; the limit is {MAX_IDS} per call"):
        engine.forget(ids=[f"mem_{n}" for n in range(MAX_IDS + 1)])
    with pytest.raises(InvalidInput, match="memory_id must hold text of at most 100 characters"):
        engine.forget(ids=["mem_" + "x" * 5000])
    with pytest.raises(InvalidInput, match="type has 500 items"):
        engine.search("anything", type=["fact"] * 500)


def test_tools_name_the_argument_that_is_not_finite_or_too_long(engine):
    async def scenario():
        async with Client(build_server(engine, Identity(local="fuzzer"))) as client:
            calls = [
                ("memory_write", {"content": "I like figs.", "importance": "nan"}),
                ("memory_write", {"content": "I like figs.", "importance": "-1e999"}),
                ("memory_search", {"query": "figs", "time_range_days": "inf"}),
                ("memory_forget", {"memory_id": [f"mem_{n}" for n in range(300)]}),
                ("memory_forget", {"memory_id": ",".join(f"mem_{n}" for n in range(300))}),
                ("memory_write", {"content": "I like figs.", "timestamp": "9999-01-01T00:00:00Z"}),
            ]
            return [await client.call_tool(name, args) for name, args in calls]

    results = anyio.run(scenario)
    assert all(r.is_error for r in results), [r.content[0].text[:100] for r in results]
    texts = [r.content[0].text for r in results]
    assert "importance" in texts[0] and "finite" in texts[0]
    assert "importance" in texts[1] and "finite" in texts[1]
    assert "time_range_days" in texts[2] and "finite" in texts[2]
    assert "memory_id" in texts[3] and "limit is 100" in texts[3]
    assert "memory_id" in texts[4] and "limit is 100" in texts[4]
    assert "timestamp is in the year 9999" in texts[5]
    assert counts(engine)[0] == 0
