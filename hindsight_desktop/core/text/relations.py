"""Chinese words for the person's family, each with the key its facts are stored under.

One table for the write path (a fact about "我老婆" is keyed to "spouse", extract_facts.py) and the
read path (a question about "我老婆" looks up "spouse", recall/fact_questions.py): a word known to one
side but not the other would store a fact no question finds. The keys are English so a subject is the
same however it is called; "朋友" is not here (which friend?).

>>> ZH_RELATIONS["老婆"], ZH_RELATIONS["爸"]
('spouse', 'father')
>>> relation_alternation(["爸", "爸爸"])
'爸爸|爸'
"""

from __future__ import annotations

from collections.abc import Iterable

ZH_RELATIONS: dict[str, str] = {
    "老婆": "spouse",
    "妻子": "spouse",
    "太太": "spouse",
    "爱人": "spouse",
    "老公": "spouse",
    "丈夫": "spouse",
    "女朋友": "partner",
    "男朋友": "partner",
    "女友": "partner",
    "男友": "partner",
    "儿子": "son",
    "女儿": "daughter",
    "爸爸": "father",
    "父亲": "father",
    "老爸": "father",
    "爸": "father",
    "妈妈": "mother",
    "母亲": "mother",
    "老妈": "mother",
    "妈": "mother",
    "父母": "parents",
    "爸妈": "parents",
    "哥哥": "elder_brother",
    "姐姐": "elder_sister",
    "弟弟": "younger_brother",
    "妹妹": "younger_sister",
}


def relation_alternation(words: Iterable[str] = ZH_RELATIONS) -> str:
    """A regex alternation of the words, longest first, so "爸爸" is taken whole rather than as "爸"."""
    return "|".join(sorted(words, key=len, reverse=True))
