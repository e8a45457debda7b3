"""Changed facts through the real engine and model: a change said in words no fact-key rule names
supersedes what it changes and comes first; the fusion is the one of the question's language."""

from __future__ import annotations

from hindsight_desktop.core.recall import fusion


def test_a_change_no_rule_names_supersedes_and_comes_first(engine, clock):
    old = engine.write("My nephew Ravi has violin lessons with Mrs Okafor on Monday evenings.")
    assert old.stored
    clock.advance(days=40)
    new = engine.write("Mrs Okafor moved away, so Ravi's violin lessons switched to Mr Brandt on Wednesdays.")
    assert new.stored and new.supersedes == [old.id], new.reason
    hits = engine.search("Who teaches Ravi the violin?", limit=5).hits
    ids = [h.memory.id for h in hits]
    assert ids[0] == new.id, [h.memory.content for h in hits]


def test_a_chinese_change_is_kept_and_supersedes(engine, clock):
    old = engine.write("表姐每周六上午在少年宫教书法。")
    clock.advance(days=30)
    new = engine.write("表姐不在少年宫教书法了，从这个月起改到社区图书馆，时间还是周六上午。")
    assert new.stored and new.supersedes == [old.id], new.reason
    hits = engine.search("表姐在哪里教书法？", limit=5).hits
    assert hits[0].memory.id == new.id, [h.memory.content for h in hits]


def test_the_fusion_is_chosen_by_the_question_language(engine):
    engine.write("Remember: the plumber is Kwame, call him for leaks.")
    for question, language in (("who fixes leaks?", "en"), ("漏水找谁修？", "zh")):
        trace: list[dict[str, float]] = []
        from hindsight_desktop.core.recall.hybrid import recall
        from hindsight_desktop.core.recall.query import Query

        hits = recall(engine.parts, Query(text=question, limit=3), engine.recall_weights, trace)
        assert trace and set(fusion.FEATURES) <= set(trace[0])
        model = fusion.for_language(language)
        best = max(trace, key=model.score)
        assert hits[0].relevance == model.score(best)  # one candidate: its fused score is its relevance
