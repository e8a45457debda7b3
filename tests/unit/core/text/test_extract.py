"""Rule-based extraction: secret redaction, entities, dates and fact keys, in English and Chinese."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.records import Entity
from hindsight_desktop.core.redact.text import redact_secrets
from hindsight_desktop.core.text.extract import extract_entities, fact_key, resolve_dates

# A Wednesday, so this/next/last week are all distinguishable.
REF = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def pairs(text: str, reference: datetime = REF) -> set[tuple[str, str]]:
    return {(e.kind, e.value) for e in extract_entities(text, reference)}


def of_kind(text: str, kind: str) -> list[str]:
    return [e.value for e in extract_entities(text, REF) if e.kind == kind]


# ---- redact_secrets ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "kinds"),
    [
        ("card 4111 1111 1111 1111 please", "card [REDACTED:card_number] please", ["card_number"]),
        ("pay with 4111-1111-1111-1111.", "pay with [REDACTED:card_number].", ["card_number"]),
        ("number 4111111111111111", "number [REDACTED:card_number]", ["card_number"]),
        ("my password is hunter2, remember it", "my password is [REDACTED:password], remember it", ["password"]),
        ("password: hunter2", "password: [REDACTED:password]", ["password"]),
        ("pwd=abc123", "pwd=[REDACTED:password]", ["password"]),
        ("the password for the wifi is hunter2.", "the password for the wifi is [REDACTED:password].", ["password"]),
        ('password is "correct horse battery"', "password is [REDACTED:password]", ["password"]),
        ("我的密码是abc123，别忘了", "我的密码是[REDACTED:password]，别忘了", ["password"]),
        ("WiFi密码：hunter2", "WiFi密码：[REDACTED:password]", ["password"]),
        ("key sk-proj-abcdefghijklmnopqrstuvwx ok", "key [REDACTED:api_key] ok", ["api_key"]),
        ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "[REDACTED:api_key]", ["api_key"]),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token [REDACTED:api_key]", ["api_key"]),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu", "[REDACTED:api_key]", ["api_key"]),
        ("aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED:api_key]", ["api_key"]),
        ("slack xoxb-1234567890-abcdefghij", "slack [REDACTED:api_key]", ["api_key"]),
        ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED:api_key]", ["api_key"]),
        (
            "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123",
            "Authorization: Bearer [REDACTED:api_key]",
            ["api_key"],
        ),
        ("api_key=abcd1234efgh5678", "api_key=[REDACTED:api_key]", ["api_key"]),
        ("secret: Zm9vYmFyYmF6cXV4MTIz", "secret: [REDACTED:api_key]", ["api_key"]),
        ("api_key=sk-abcdefghijklmnopqrstuvwxyz", "api_key=[REDACTED:api_key]", ["api_key"]),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter",
            "[REDACTED:private_key]\nafter",
            ["private_key"],
        ),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
            "jwt [REDACTED:jwt]",
            ["jwt"],
        ),
        (
            "db is postgres://admin:s3cret@db.example.com:5432/app",
            "db is postgres://admin:[REDACTED:connection_string]@db.example.com:5432/app",
            ["connection_string"],
        ),
    ],
)
def test_redact_positive(text: str, expected: str, kinds: list[str]) -> None:
    assert redact_secrets(text) == (expected, kinds)


@pytest.mark.parametrize(
    "text",
    [
        "call me at 13800138000",
        "flight CA981 lands at 3pm",
        "order 1234567890123 shipped",  # 13 digits, but not a card layout/issuer
        "4111 1111 1111 1112",  # fails Luhn
        "I forgot my password yesterday",
        "my password is too long",
        "the key to success is patience",
        "the secret is perseverance",
        "密码是多少？",
        "meet on 2023-05-03 at 15:30, room 1204",
        "",
    ],
)
def test_redact_negative(text: str) -> None:
    assert redact_secrets(text) == (text, [])


def test_redact_counts_each_secret() -> None:
    text = "pwd=abc123 and card 4111 1111 1111 1111 and again password: xyz789"
    redacted, kinds = redact_secrets(text)
    assert redacted == (
        "pwd=[REDACTED:password] and card [REDACTED:card_number] and again password: [REDACTED:password]"
    )
    assert sorted(kinds) == ["card_number", "password", "password"]


# ---- resolve_dates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("next Wednesday", "2026-12-02"),
        ("下周三", "2026-12-02"),
        ("this Saturday", "2026-11-28"),
        ("这周六", "2026-11-28"),
        ("本周六", "2026-11-28"),
        ("yesterday", "2026-11-24"),
        ("today", "2026-11-25"),
        ("tonight", "2026-11-25"),
        ("tomorrow", "2026-11-26"),
        ("the day after tomorrow", "2026-11-27"),
        ("in 3 days", "2026-11-28"),
        ("三天后", "2026-11-28"),
        ("last Friday", "2026-11-20"),
        ("上周五", "2026-11-20"),
        ("2 weeks ago", "2026-11-11"),
        ("两周前", "2026-11-11"),
        ("a week ago", "2026-11-18"),
        ("next week", "2026-11-30"),
        ("next month", "2026-12-01"),
        ("last month", "2026-10-01"),
        ("下个月", "2026-12-01"),
        ("上个月", "2026-10-01"),
        ("last year", "2025"),
        ("去年", "2025"),
        ("明年", "2027"),
        ("今天", "2026-11-25"),
        ("明天", "2026-11-26"),
        ("后天", "2026-11-27"),
        ("昨天", "2026-11-24"),
        ("前天", "2026-11-23"),
        ("周三", "2026-11-25"),  # bare weekday: the coming one, today included
        ("周五", "2026-11-27"),
        ("星期一", "2026-11-30"),
        ("Friday", "2026-11-27"),
        ("十天以后", "2026-12-05"),
        ("3 May 2023", "2023-05-03"),
        ("May 3rd", "2026-05-03"),
        ("May 3rd, 2023", "2023-05-03"),
        ("2023-05-03", "2023-05-03"),
        ("05/03/2023", "2023-05-03"),
        ("13/05/2023", "2023-05-13"),
        ("2023年5月3日", "2023-05-03"),
        ("5月3日", "2026-05-03"),
        ("二〇二三年五月三日", "2023-05-03"),
        ("May 2023", "2023-05-01"),
    ],
)
def test_single_date(text: str, value: str) -> None:
    assert resolve_dates(text, REF) == [(text, value)]


def test_dates_in_a_sentence_keep_order_and_text() -> None:
    text = "Booked on 3 May 2023 for next Wednesday; 三天后天气好, and we met last Friday."
    assert resolve_dates(text, REF) == [
        ("3 May 2023", "2023-05-03"),
        ("next Wednesday", "2026-12-02"),
        ("三天后", "2026-11-28"),
        ("last Friday", "2026-11-20"),
    ]


def test_month_end_clamps_and_reference_timezone() -> None:
    jan31 = datetime(2027, 1, 31, 9, tzinfo=UTC)
    assert resolve_dates("in 1 month", jan31) == [("in 1 month", "2027-02-28")]
    # A non-UTC reference is converted to UTC first: 01:00 at +08:00 is the previous UTC day.
    east = datetime(2026, 11, 26, 1, 0, tzinfo=timezone(timedelta(hours=8)))
    assert resolve_dates("today", east) == [("today", "2026-11-25")]


@pytest.mark.parametrize("text", ["一周三次", "每周三游泳", "I may 3D print it", "Feb 30", "Fridays are quiet", ""])
def test_not_dates(text: str) -> None:
    assert resolve_dates(text, REF) == []


# ---- extract_entities ----------------------------------------------------------------------------


def test_english_people_places_orgs() -> None:
    text = "Yesterday Caroline met John Smith and Dr. Lee in Paris, then flew to New York with a Google badge."
    assert extract_entities(text, REF) == [
        Entity("date", "Yesterday", "2026-11-24"),
        Entity("person", "Caroline", "caroline"),
        Entity("person", "John Smith", "john smith"),
        Entity("person", "Dr. Lee", "dr. lee"),
        Entity("place", "Paris", "paris"),
        Entity("place", "New York", "new york"),
        Entity("org", "Google", "google"),
    ]


def test_chinese_people_places_orgs() -> None:
    text = "我朋友小王明天和李娜去北京。张伟说他在腾讯工作，女儿在北京大学读书。"
    assert extract_entities(text, REF) == [
        Entity("person", "小王", "小王"),
        Entity("date", "明天", "2026-11-26"),
        Entity("person", "李娜", "李娜"),
        Entity("place", "北京", "北京"),
        Entity("person", "张伟", "张伟"),
        Entity("org", "腾讯", "腾讯"),
        Entity("org", "北京大学", "北京大学"),
    ]


@pytest.mark.parametrize(
    ("text", "kind", "values"),
    [
        ("She works at Acme Corp.", "org", ["acme corp"]),
        ("He studied at the University of Tokyo.", "org", ["university of tokyo"]),
        ("我在中国银行上班，她在字节跳动。", "org", ["中国银行", "字节跳动"]),
        ("I live in Lisbon now.", "place", ["lisbon"]),
        ("We walked around Central Park.", "place", ["central park"]),
        ("上海和东京都很好", "place", ["上海", "东京"]),
        ("周三和王芳开会", "person", ["王芳"]),
        ("老李说下周去杭州", "person", ["老李"]),
        ("Pick up the kids. Order ABC12345 arrived.", "person", []),  # imperatives, not names
        ("Running late, tell Bob.", "person", ["bob"]),
        ("我和高中同学吃饭，他马上说好。", "person", []),  # 高中 / 马上 are words, not names
    ],
)
def test_entity_kinds(text: str, kind: str, values: list[str]) -> None:
    assert of_kind(text, kind) == values


def test_dates_and_times() -> None:
    text = "Meet next Wednesday at 3pm, 下周五下午三点半, or 15:30 on 2023-05-03."
    assert extract_entities(text, REF) == [
        Entity("date", "next Wednesday", "2026-12-02"),
        Entity("time", "3pm", "15:00"),
        Entity("date", "下周五", "2026-12-04"),
        Entity("time", "下午三点半", "15:30"),
        # "15:30" is dropped: same (kind, value) as 下午三点半.
        Entity("date", "2023-05-03", "2023-05-03"),
    ]


def test_numbers() -> None:
    text = "It cost $120, weighs 42 kg, grew 3.5% and 100元; we were 25 people in 2 cars, 1,200 in total."
    assert of_kind(text, "number") == ["120 usd", "42 kg", "3.5%", "100 cny", "25 people", "1200"]


def test_codes() -> None:
    text = "Flight CA981 and UA 857, booking XK29381, room 1204, 1806室, release v1.2.3, not PM 25."
    assert of_kind(text, "code") == ["ca981", "ua857", "xk29381", "room 1204", "room 1806", "v1.2.3"]


def test_contacts() -> None:
    text = "Mail Bob@Example.com, see https://Example.com/Path. Call 13800138000 or +1 415-555-0100."
    assert extract_entities(text, REF) == [
        Entity("email", "Bob@Example.com", "bob@example.com"),
        Entity("url", "https://Example.com/Path", "https://example.com/Path"),
        Entity("phone", "13800138000", "13800138000"),
        Entity("phone", "+1 415-555-0100", "+14155550100"),
    ]


def test_deduplicates_by_kind_and_value() -> None:
    text = "Paris in May 3rd; Paris again on 5月3日. Caroline and Caroline."
    assert extract_entities(text, REF) == [
        Entity("place", "Paris", "paris"),
        Entity("date", "May 3rd", "2026-05-03"),
        Entity("person", "Caroline", "caroline"),
    ]


def test_empty_text() -> None:
    assert extract_entities("", REF) == []
    assert resolve_dates("", REF) == []
    assert redact_secrets("") == ("", [])
    assert fact_key("") is None


@pytest.mark.parametrize("call", [extract_entities, resolve_dates])
def test_bad_input(call) -> None:
    with pytest.raises(InvalidInput):
        call(None, REF)
    with pytest.raises(InvalidInput):
        call("today", datetime(2026, 11, 25, 12))  # naive
    with pytest.raises(InvalidInput):
        call("today", "2026-11-25")


def test_bad_input_text_only() -> None:
    with pytest.raises(InvalidInput):
        redact_secrets(b"password: x")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        fact_key(42)  # type: ignore[arg-type]


# ---- fact_key ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Beijing", ("user", "residence", "beijing")),
        ("I moved to Shanghai last year.", ("user", "residence", "shanghai")),
        ("I'm based in Berlin now.", ("user", "residence", "berlin")),
        ("So, I live in New York now, with my cat.", ("user", "residence", "new york")),
        # Known bilingual places and companies take their English value, so languages agree.
        ("我住在北京", ("user", "residence", "beijing")),
        ("我搬到上海了", ("user", "residence", "shanghai")),
        ("我在北京住了三年了", ("user", "residence", "beijing")),
        ("我住在南宁", ("user", "residence", "南宁")),  # not in the list: kept as written
        ("Alice lives in Paris", ("alice", "residence", "paris")),
        ("张伟住在深圳。", ("张伟", "residence", "shenzhen")),
        ("I work at Google", ("user", "employer", "google")),
        ("I joined Microsoft in 2024.", ("user", "employer", "microsoft")),
        ("我在腾讯工作", ("user", "employer", "tencent")),
        ("我在一家小公司工作", ("user", "employer", "一家小公司")),
        ("My friend Alice works at Google", ("alice", "employer", "google")),
        ("I'm a nurse", ("user", "job", "nurse")),
        ("I'm a software engineer at Google", ("user", "job", "software engineer")),
        ("I work as a teacher", ("user", "job", "teacher")),
        ("我是一名医生", ("user", "job", "医生")),
        ("我是程序员", ("user", "job", "程序员")),
        ("My name is Caroline Smith.", ("user", "name", "caroline smith")),
        ("Call me Cal", ("user", "name", "cal")),
        ("我叫张伟", ("user", "name", "张伟")),
        ("I'm 34 years old", ("user", "age", "34")),
        ("我今年34岁", ("user", "age", "34")),
        ("我今年三十四岁了", ("user", "age", "34")),
        ("my favourite colour is blue", ("user", "favorite_color", "blue")),
        ("My favorite color is green.", ("user", "favorite_color", "green")),
        ("My favorite food is sushi", ("user", "favorite_food", "sushi")),
        ("My favourite film is Alien.", ("user", "favorite_movie", "alien")),
        ("我最喜欢的颜色是蓝色", ("user", "favorite_color", "蓝色")),
        ("我最喜欢的电影是英雄", ("user", "favorite_movie", "英雄")),
        ("my number is +1 415 555 0100", ("user", "phone", "+14155550100")),
        ("我的手机号是138 0013 8000", ("user", "phone", "13800138000")),
        ("My email is Bob@Example.com.", ("user", "email", "bob@example.com")),
        ("my birthday is May 3rd", ("user", "birthday", "05-03")),
        ("My birthday is 3 May 1990", ("user", "birthday", "1990-05-03")),
        ("我的生日是5月3日", ("user", "birthday", "05-03")),
        ("my wife is Alice", ("user", "partner", "alice")),
        ("My husband is called Tom.", ("user", "partner", "tom")),
        ("我老婆叫小红", ("user", "partner", "小红")),
        ("我女朋友叫李娜", ("user", "partner", "李娜")),
        ("my dog's name is Rex", ("user", "dog_name", "rex")),
        ("I have a cat named Tom", ("user", "cat_name", "tom")),
        ("我的狗叫旺财", ("user", "dog_name", "旺财")),
        ("I'm vegetarian", ("user", "diet", "vegetarian")),
        ("I am a vegetarian", ("user", "diet", "vegetarian")),
        ("I'm a vegan", ("user", "diet", "vegan")),
        ("我吃素", ("user", "diet", "vegetarian")),
    ],
)
def test_fact_key_positive(text: str, expected: tuple[str, str, str]) -> None:
    assert fact_key(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I'm happy",
        "I'm tired",
        "I am a big fan of jazz",
        "I'm a morning person",
        "I'm an Italian",
        "Where do I live?",
        "我住在哪里？",
        "你住在哪里",
        "He lives in Paris",  # unknown subject
        "I don't live in Beijing anymore",
        "我不在腾讯工作",
        "I forgot my password yesterday",
        "my wife is a doctor",  # partner needs a name
        "我是北京人",
        "我叫了外卖",
        "I work from home",
        "The weather is nice.",
    ],
)
def test_fact_key_negative(text: str) -> None:
    assert fact_key(text) is None


def test_fact_key_contradiction_pairs() -> None:
    for first, second in [
        ("I live in Beijing", "I moved to Shanghai"),
        ("我住在北京", "我搬到上海了"),
        ("I work at Google", "I joined Microsoft"),
        ("my favourite colour is blue", "My favorite color is red"),
        ("I'm a nurse", "I work as a teacher"),
    ]:
        a, b = fact_key(first), fact_key(second)
        assert a is not None and b is not None
        assert a[:2] == b[:2], (first, second)
        assert a[2] != b[2], (first, second)


def test_fact_key_same_value_across_languages() -> None:
    assert fact_key("I live in Beijing") == fact_key("我住在北京")
    assert fact_key("I work at Tencent") == fact_key("我在腾讯工作")
    assert fact_key("I moved to New York") == fact_key("我搬到纽约了")


def test_fact_key_first_matching_sentence() -> None:
    assert fact_key("Where do I live? I live in Hangzhou.") == ("user", "residence", "hangzhou")
