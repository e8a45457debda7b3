"""Which script a text is mostly written in: recall, upkeep and the gate each ask it."""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def dominant_language(text: str) -> str:
    """ "zh" when CJK characters are at least as many as Latin words, else "en". (Recall asks this of
    every candidate, ~400 a search: text without CJK returns before the word count.)"""
    cjk = len(_CJK.findall(text))
    if not cjk:
        return "en"
    return "zh" if cjk >= len(_LATIN_WORD.findall(text)) else "en"
