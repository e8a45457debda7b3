"""The question's own terms as word evidence for two values of one attribute (core/recall/conflicts.py): a
newer statement that holds every term of the question the older holds, some in another form
("practises" for "practice"), comes first; Chinese questions count whole words; a term nearly every
result holds counts for nothing, and one shared term alone (whom both name) does not make another
attribute the same one. Through the real engine and model where ranking is involved."""

from __future__ import annotations

from types import SimpleNamespace

from hindsight_desktop.core.recall import conflicts
from hindsight_desktop.core.recall.conflicts import (
    _covered,
    _distinguishing,
    _question_terms,
    _same_attribute,
)
from hindsight_desktop.core.text.word_forms import same_word
from hindsight_desktop.core.write.gate_change import Words, says_changed


def _ids(engine, question: str) -> list[str]:
    return [h.memory.id for h in engine.search(question, limit=5).hits]


def _first(engine, question: str, first: str, second: str) -> bool:
    ids = _ids(engine, question)
    return first in ids and (second not in ids or ids.index(first) < ids.index(second))


def test_forms_of_one_english_word_match_and_other_words_do_not():
    assert same_word("practice", "practises")
    assert same_word("coffee", "coffees")
    assert same_word("drive", "driving")
    assert not same_word("water", "watch")  # three letters in common
    assert not same_word("tea", "team")
    assert not same_word("train", "transport")
    assert not same_word("胰岛", "胰岛素")  # Chinese words have no forms


def test_chinese_questions_count_whole_words_not_pairs_across_them():
    asked = _question_terms("外公每天打多少胰岛素？")
    assert {"外公", "每天", "胰岛素"} <= asked
    assert "公每" not in asked  # a character pair across two words
    assert _covered(asked, Words.of("外公的胰岛素加到了10个单位。")) == 3  # 外公, 胰岛, 胰岛素


def test_a_term_nearly_every_result_holds_tells_nothing():
    texts = ("Gina: I love dance.", "Gina: my store is busy.", "Gina: so tired.", "Jon: a new studio.")
    results = [Words.of(t) for t in texts]
    assert _distinguishing({"gina", "studio"}, results) == {"studio"}
    assert _distinguishing({"gina"}, results[:2]) == {"gina"}  # two results: maybe all there are


def test_a_value_restated_in_another_word_form_comes_first(engine, clock, monkeypatch):
    old = engine.write("Amir's chess practice is on Mondays at 5pm at the library.")
    clock.advance(days=60)
    text = "Amir practises chess on Thursday evenings at 7 at the library."
    assert not says_changed(text)
    new = engine.write(text)
    assert new.stored and new.supersedes == []
    question = "When is Amir's chess practice?"
    assert _first(engine, question, new.id, old.id)
    monkeypatch.setattr(conflicts, "MIN_TERMS", 10**6)  # the index's keyword score alone: whole forms
    monkeypatch.setattr(conflicts, "_names_old_answer", lambda *_: False)  # nor "the library" named again
    assert _first(engine, question, old.id, new.id)


def _answer(keyword: float, vector: float) -> SimpleNamespace:
    """What `_same_attribute` reads of a ranked result."""
    return SimpleNamespace(cand=SimpleNamespace(keyword=keyword, vector=vector))


def test_one_shared_term_does_not_make_another_attribute_the_same():
    older, newer = _answer(keyword=1.0, vector=0.6), _answer(keyword=0.4, vector=0.6)
    # "When does Nia go running?": both name Nia, only the older says she runs.
    assert not _same_attribute(newer, older, newer_terms=1, older_terms=1)
    assert _same_attribute(newer, older, newer_terms=2, older_terms=2)
    # Every term the older holds, not most: "home phone" beside "mobile number" asked "home phone number".
    assert not _same_attribute(newer, older, newer_terms=3, older_terms=4)
