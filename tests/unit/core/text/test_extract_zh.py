"""Chinese text understanding: segmentation, entities, fact keys, dates and their periods."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime

import pytest

from hindsight_desktop.core.recall.dates import question_dates, question_periods, without_dates
from hindsight_desktop.core.text import segment
from hindsight_desktop.core.text.extract import extract_entities, fact_key
from hindsight_desktop.core.text.extract_dates import find_dates, find_times, period

REF = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday


# ---- segmentation ----------------------------------------------------------------------------------


def test_words_cut_chinese_runs_and_leave_other_text_alone() -> None:
    words = segment.words("我住在上海浦东新区, near Lujiazui")
    assert {"上海", "浦东", "新区"} <= set(words)
    assert not any(w.isascii() for w in words)
    assert segment.words("no Chinese here") == []


def test_segmenter_loads_lazily_quietly_and_writes_no_cache(tmp_path) -> None:
    # A fresh interpreter: English text does not load the segmenter; Chinese text does, without output or a file.
    code = (
        "import os, sys, tempfile\n"
        f"tempfile.tempdir = {str(tmp_path)!r}\n"
        "from hindsight_desktop.core.text import segment\n"
        "segment.words('hello world')\n"
        "assert not segment.loaded() and 'rjieba' not in sys.modules\n"
        "print(segment.words('我下周三要去杭州出差'))\n"
        "assert segment.loaded()\n"
        f"assert os.listdir({str(tmp_path)!r}) == [], os.listdir({str(tmp_path)!r})\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "杭州" in done.stdout and done.stderr == ""


def test_new_words_are_spans_of_the_text() -> None:
    text = "今天和张晓峰一起吃了火锅"
    for start, end, word in segment.new_words(text):
        assert text[start:end] == word


# ---- entities --------------------------------------------------------------------------------------


def _entities(text: str) -> set[tuple[str, str]]:
    return {(e.kind, e.value) for e in extract_entities(text, REF)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我的车牌是京A12345，新车是沪B·D8888。", {("code", "京A12345"), ("code", "沪BD8888")}),
        ("My plate is 粤b 12345x now", {("code", "粤B12345X")}),
        ("我的手机号是138 1234 5678", {("phone", "13812345678")}),
        ("今天和张晓峰一起吃了火锅", {("person", "张晓峰")}),
        ("我儿子叫刘子轩，今年上幼儿园", {("person", "刘子轩")}),
        ("我的医生是协和医院的刘主任", {("person", "刘主任")}),
        ("我住在杭州市西湖区文三路", {("place", "杭州"), ("place", "西湖区"), ("place", "文三路")}),
        ("周末去中山公园散步", {("place", "中山公园")}),
    ],
)
def test_chinese_entities(text: str, expected: set[tuple[str, str]]) -> None:
    assert expected <= _entities(text)


@pytest.mark.parametrize(
    "text", ["我对猫毛过敏，去朋友家前要先吃氯雷他定。", "我养了一只橘猫，名字叫胖虎。", "我下周三要去杭州出差"]
)
def test_no_people_invented_from_ordinary_words(text: str) -> None:
    assert not {v for k, v in _entities(text) if k == "person"}


def test_fraction_is_not_a_plate_or_date() -> None:
    assert not any(k in ("code", "date") for k, _ in _entities("加1/2杯牛奶"))


# ---- fact keys -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我家在杭州", ("user", "residence", "hangzhou")),
        ("我搬家了，新家在深圳南山区", ("user", "residence", "深圳南山区")),
        ("我老婆住在上海", ("spouse", "residence", "shanghai")),
        ("我爸妈住在成都", ("parents", "residence", "chengdu")),
        ("我跳槽到阿里巴巴了", ("user", "employer", "alibaba")),
        ("我换工作了，去了美团", ("user", "employer", "meituan")),
        ("我在Google上班", ("user", "employer", "google")),
        ("我去百度上班了", ("user", "employer", "baidu")),
        ("我换了手机号，新号码是13900001111", ("user", "phone", "13900001111")),
        ("我的手机号换成了+1 415 555 0101", ("user", "phone", "+14155550101")),
        ("我的车牌是京A12345", ("user", "plate", "京A12345")),
        ("我新车的车牌号是沪B·D8888", ("user", "plate", "沪BD8888")),
        ("我买了辆特斯拉Model 3", ("user", "car", "特斯拉model3")),
        ("我儿子叫刘子轩", ("user", "son_name", "刘子轩")),
        ("我女儿叫小雨", ("user", "daughter_name", "小雨")),
        ("我妻子叫李娜", ("user", "partner", "李娜")),
        ("我的医生是协和医院的刘主任", ("user", "doctor", "协和医院的刘主任")),
        ("我的牙医换成了王医生", ("user", "dentist", "王医生")),
        ("我在浙江大学读书", ("user", "school", "浙江大学")),
        ("我女儿在实验小学上学", ("daughter", "school", "实验小学")),
        ("我儿子转学到了第二中学", ("son", "school", "第二中学")),
        ("我现在体重130斤", ("user", "weight", "65.0 kg")),
        ("我的体重降到了60kg", ("user", "weight", "60.0 kg")),
        ("我身高1米75", ("user", "height", "175 cm")),
        ("我每周二晚上七点去打羽毛球", ("user", "schedule_打羽毛球", "每周二 19:00")),
        ("我每天早上七点跑步", ("user", "schedule_跑步", "每天 07:00")),
    ],
)
def test_chinese_fact_keys(text: str, expected: tuple[str, str, str]) -> None:
    assert fact_key(text) == expected


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("我住在北京", "我搬到上海了"),
        ("I live in Beijing.", "我搬家到深圳了"),
        ("我在腾讯工作", "我跳槽到字节跳动了"),
        ("I work at Google.", "我入职了微软"),
        ("我的手机号是13812345678", "我换了手机号，新号码是13900001111"),
        ("我的车牌是京A12345", "我新车的车牌号是京B54321"),
        ("我买了辆特斯拉", "我换了辆比亚迪汉"),
        ("我的牙医是陈医生", "我的牙医换成了王医生"),
        ("我体重70公斤", "我现在体重130斤"),
        ("我每周二晚上七点去打羽毛球", "我现在改成每周四晚上八点打羽毛球了"),
        ("我女儿在实验小学上学", "我女儿转学到了育才小学"),
    ],
)
def test_changed_facts_share_subject_and_attribute(older: str, newer: str) -> None:
    a, b = fact_key(older), fact_key(newer)
    assert a and b and a[:2] == b[:2] and a[2] != b[2]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("我住在北京", "我朋友住在上海"),
        ("我住在北京", "我老婆住在上海"),
        ("我的手机号是13812345678", "我的车牌是京A12345"),
        ("我每周二去打羽毛球", "我每周三去游泳"),
        ("我在浙江大学读书", "我在腾讯工作"),
    ],
)
def test_different_subjects_or_attributes_do_not_collide(one: str, other: str) -> None:
    a, b = fact_key(one), fact_key(other)
    assert a is not None and (b is None or a[:2] != b[:2])


@pytest.mark.parametrize("text", ["我朋友住在上海", "我每天都很忙", "我现在住在哪里？", "我不在腾讯工作了"])
def test_no_fact_key(text: str) -> None:
    assert fact_key(text) is None


# ---- dates -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "first", "after"),
    [
        ("上个月我去了哪里？", "2026-11-01", "2026-12-01"),
        ("下周三", "2026-12-09", "2026-12-10"),
        ("后天", "2026-12-03", "2026-12-04"),
        ("大前天", "2026-11-28", "2026-11-29"),
        ("去年国庆我做了什么？", "2025-10-01", "2025-10-08"),
        ("三月初", "2026-03-01", "2026-03-11"),
        ("三月中旬", "2026-03-11", "2026-03-21"),
        ("三月底", "2026-03-21", "2026-04-01"),
        ("周末", "2026-12-05", "2026-12-07"),
        ("上周末", "2026-11-28", "2026-11-30"),
        ("下周", "2026-12-07", "2026-12-14"),
        ("今年春节", "2026-02-16", "2026-02-24"),  # 除夕 to 初六 of 2026 (初一 is 17 February)
        ("2025年中秋", "2025-10-06", "2025-10-09"),
        ("上个月底", "2026-11-21", "2026-12-01"),
        ("2026年5月3日", "2026-05-03", "2026-05-04"),
        ("5月3号", "2026-05-03", "2026-05-04"),
        ("3/5", "2026-03-05", "2026-03-06"),
        ("2023年5月", "2023-05-01", "2023-06-01"),
        ("去年", "2025-01-01", "2026-01-01"),
        ("last month", "2026-11-01", "2026-12-01"),
        ("this weekend", "2026-12-05", "2026-12-07"),
    ],
)
def test_date_periods(text: str, first: str, after: str) -> None:
    found = find_dates(text, REF.date())
    assert len(found) == 1
    assert period(found[0]) == (date.fromisoformat(first), date.fromisoformat(after))


def test_relative_dates_in_a_memory_resolve_against_its_own_time() -> None:
    written = datetime(2025, 9, 20, tzinfo=UTC)
    assert ("date", "2025-10-01") in {(e.kind, e.value) for e in extract_entities("国庆打算去云南", written)}
    assert ("date", "2025-09-24") in {(e.kind, e.value) for e in extract_entities("下周三去杭州", written)}


def test_bare_holiday_takes_the_nearest_occurrence() -> None:
    assert find_dates("过年回老家", date(2026, 12, 20))[0].value == "2027-02-05"
    assert find_dates("过年回老家", date(2026, 3, 1))[0].value == "2026-02-16"


def test_lunar_holiday_outside_the_table_gives_only_the_year() -> None:
    assert [f.value for f in find_dates("2040年春节", date(2026, 1, 1))] == ["2040"]


def test_chinese_times() -> None:
    assert [f.value for f in find_times("早上八点半出门，下午三点开会")] == ["08:30", "15:00"]


def test_question_periods_and_keyword_text() -> None:
    found = question_dates("上个月我去了哪里？", REF)
    assert question_periods(found) == [(date(2026, 11, 1), date(2026, 12, 1))]
    assert "上个月" not in without_dates("上个月我去了哪里？", found)
    english = "what did I do last month?"
    assert without_dates(english, question_dates(english, REF)) == english


def test_entities_from_dates_found_already_are_the_same() -> None:
    text = "上个月和王芳在杭州，下周三再去"
    assert extract_entities(text, REF, question_dates(text, REF)) == extract_entities(text, REF)


# A note to oneself in Chinese drops the "I"; the fact may sit in a later clause.
@pytest.mark.parametrize(
    "text, expected",
    [
        ("搬家了！现在住在海淀区五道口的华清嘉园，离公司走路十分钟。", ("user", "residence", "海淀区五道口的华清嘉园")),
        ("换了新手机号 186 1122 3344，老号码下个月停用。", ("user", "phone", "18611223344")),
        ("新车上牌了，车牌号京AD·35721，绿牌。", ("user", "plate", "京AD35721")),
        ("正式从老东家离职了，今天入职蓝鲸云，做高级产品经理。", ("user", "employer", "蓝鲸云")),
        ("体重降到71公斤了，三个月减了七公斤。", ("user", "weight", "71.0 kg")),
        ("换了牙医，现在去五道口的拜博口腔，医生姓刘。", ("user", "dentist", "五道口的拜博口腔")),
        ("新领导叫周敏，是数据平台的产品总监。", ("user", "manager", "周敏")),
        ("老板让我负责新项目，代号“北极星”，年底上线。", ("user", "codename", "北极星")),
        ("Our current project codename is Falcon: the approval workflow.", ("user", "codename", "falcon")),
    ],
)
def test_subject_dropped_facts(text, expected):
    assert fact_key(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "我家的柯基叫年糕，三岁了，特别爱吃鸡胸肉。",  # the dog's age, not mine
        "我最好的朋友在中关村开了一家咖啡馆，叫半岛咖啡。",  # the café's name, not mine
        "国庆带全家去了大理，住在洱海边的民宿，1号到6号。",  # a stay on a trip, not a home
        "下周一去深圳出差，见客户，住南山区。",
        "女儿的班主任换了，现在是赵老师，教数学。",  # the teacher's job, not mine
    ],
)
def test_clauses_about_something_else_set_no_fact_of_mine(text):
    found = fact_key(text)
    assert found is None or found[0] != "user" or found[1] not in ("age", "name", "residence", "job")
