"""A search finds its question's dates once and uses them for entities, periods and the keyword text."""

from __future__ import annotations

from hindsight_desktop.core.recall import dates
from hindsight_desktop.core.text import extract


def test_a_search_finds_the_questions_dates_once(engine, monkeypatch) -> None:
    engine.write("上个月和王芳去了杭州，住在西湖边。", client="a", explicit=True)
    calls: list[str] = []

    def counted(module):
        real = module.find_dates

        def find_dates(text, ref, relative=True):
            calls.append(text)
            return real(text, ref, relative)

        monkeypatch.setattr(module, "find_dates", find_dates)

    counted(dates)
    counted(extract)
    hits = engine.search("上个月我去了哪里？", log=False).hits
    assert calls == ["上个月我去了哪里？"]
    assert any("杭州" in h.memory.content for h in hits)
