"""A newer statement that names what the older one answered with ("no porridge", "佳美那边排不上号"), said
without a change word, states the same attribute and comes first; another attribute of the same subject
that shares such a word (a weekday, a place) but lacks the asked attribute, or names it where it states
its own thing's value, stays below (core/recall/conflicts.py `_names_old_answer`). Through the real
engine and model where ranking is involved."""

from __future__ import annotations

from hindsight_desktop.core.recall import conflicts
from hindsight_desktop.core.recall.conflicts import _answer_words
from hindsight_desktop.core.write.gate_change import says_changed


def _ids(engine, question: str) -> list[str]:
    return [h.memory.id for h in engine.search(question, limit=5).hits]


def _first(engine, question: str, first: str, second: str) -> bool:
    ids = _ids(engine, question)
    return first in ids and (second not in ids or ids.index(first) < ids.index(second))


def _restated(engine, clock, old_text: str, new_text: str) -> tuple[str, str]:
    old = engine.write(old_text)
    clock.advance(days=90)
    assert not says_changed(new_text)
    new = engine.write(new_text)
    assert new.stored and new.supersedes == []
    return old.id, new.id


def test_an_english_newer_value_that_names_the_older_one_comes_first(engine, clock, monkeypatch):
    old, new = _restated(
        engine,
        clock,
        "Idris has porridge for breakfast most days.",
        "Idris's breakfast is a green smoothie lately, no porridge.",
    )
    question = "What does Idris have for breakfast?"
    assert _first(engine, question, new, old)
    monkeypatch.setattr(conflicts, "_names_old_answer", lambda *_: False)
    assert _first(engine, question, old, new)  # by score, and by the other tests, the older one wins


def test_a_chinese_newer_value_that_names_the_older_one_comes_first(engine, clock, monkeypatch):
    # 三舅 is in no dictionary: the question's words are single characters, whom it names vouches instead.
    old, new = _restated(
        engine, clock, "三舅的牙一直在佳美口腔看。", "三舅牙齿的事现在都找美奥口腔，佳美那边排不上号。"
    )
    assert _first(engine, "三舅看牙去哪？", new, old)
    monkeypatch.setattr(conflicts, "_names_old_answer", lambda *_: False)
    assert _first(engine, "三舅看牙去哪？", old, new)


def test_another_attribute_that_shares_a_word_of_the_answer_stays_below(engine, clock):
    asked, other = _restated(
        engine,
        clock,
        "Kofi's swimming club trains on Wednesdays at the Riverside pool.",
        "Kofi started piano lessons on Wednesday evenings at the Riverside arts centre.",
    )
    assert _first(engine, "When does Kofi's swimming club train?", asked, other)


def test_another_chinese_attribute_that_shares_a_place_stays_below(engine, clock):
    asked, other = _restated(
        engine, clock, "表妹每周三晚上在万达影城旁边的健身房练拳击。", "表妹每周三晚上去万达影城楼上学画画。"
    )
    assert _first(engine, "表妹什么时候练拳击？", asked, other)


def test_a_shared_place_named_where_the_newer_states_its_own_thing_stays_below(engine, clock):
    # 住 is no dictionary word: the question's words are 表叔 alone, which both hold. 望京 is named in the
    # clause that says where 表叔's company is, not in one of its own about the old home.
    asked, other = _restated(engine, clock, "表叔住在望京的花家地小区。", "表叔的公司也在望京，在阜通东大街。")
    assert _first(engine, "表叔住在哪？", asked, other)


def test_someone_else_naming_the_same_word_is_no_restatement(engine, clock):
    asked, other = _restated(
        engine, clock, "Sipho works as a nurse at St. Mary's hospital.", "Tom works at a hospital as a porter."
    )
    assert _first(engine, "Where does Sipho work?", asked, other)


def test_the_answer_leaves_out_when_whom_and_how_many():
    words = _answer_words(
        "Kofi's swimming club trains on Wednesdays at 4pm at the Riverside pool.",
        "When does Kofi's swimming club train?",
        frozenset({"kofi"}),
    )
    assert words == {"riverside", "pool"}  # not "wednesdays", "4pm", nor what the question asks
    assert "dad" not in _answer_words("Dad pays the water bill online.", "How is the water bill paid?", frozenset())
    # A title and a unit are no answer; the rest of a name the question names by a part is whom it asks about.
    words = _answer_words(
        "Priya Sharma walks 5 km with Dr. Lee.", "How far does Priya walk?", frozenset({"priya sharma"})
    )
    assert words == {"lee"}
    # Of Chinese words, the longest: another hospital holds 医院, not 口腔医院.
    assert _answer_words("女儿的牙医是口腔医院的刘医生，每周去一次。", "女儿看牙找哪个医生？", frozenset()) == {
        "牙医",
        "口腔医院",
    }
