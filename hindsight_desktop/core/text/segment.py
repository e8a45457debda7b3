"""Chinese word segmentation with rjieba (MIT: Python bindings of jieba-rs, jieba's algorithm and
dictionary in Rust), loaded on first use.

Measured against jieba itself: importing rjieba costs 0.25 s and about 33 MB, its dictionary compiled
into the library, where jieba builds a Python dict of ~350k words (0.8-2.9 s and about 77 MB, or a
cache file in the temp folder) and needs its dict.txt shipped beside it. Part-of-speech tagging is not
used: names come from the rules in extract.py plus the words the HMM finds that the dictionary does
not hold (`new_words`).
"""

from __future__ import annotations

import re
import threading
from typing import Any

HAN = "\u4e00-\u9fff"
HAN_RUN = re.compile(f"[{HAN}]+")

_lock = threading.Lock()
_tokenizer: Any = None


class _Tokenizer:
    """The calls the rest of the engine makes, with jieba's keyword names."""

    def __init__(self) -> None:
        import rjieba

        self._rjieba = rjieba

    def cut(self, text: str, cut_all: bool = False, HMM: bool = True) -> list[str]:  # noqa: N803 (jieba's name)
        return self._rjieba.cut_all(text) if cut_all else self._rjieba.cut(text, HMM)

    def cut_for_search(self, text: str, HMM: bool = True) -> list[str]:  # noqa: N803
        return self._rjieba.cut_for_search(text, HMM)

    def known(self, word: str) -> bool:
        return bool(self._rjieba.has_word(word))


def has_han(text: str) -> bool:
    return HAN_RUN.search(text) is not None


def tokenizer() -> _Tokenizer:
    """The shared tokenizer, loaded on first call (thread-safe)."""
    global _tokenizer
    if _tokenizer is None:
        with _lock:
            if _tokenizer is None:
                _tokenizer = _Tokenizer()
    return _tokenizer


def loaded() -> bool:
    return _tokenizer is not None


def words(text: str) -> list[str]:
    """The Chinese words of `text`, each Han run cut by the dictionary alone (no HMM guesses, so a
    memory and a question cut the same phrase the same way), with the known shorter words inside
    longer ones too (上海浦东新区 also gives 上海, 浦东, 新区). Text without Han characters costs nothing."""
    runs = HAN_RUN.findall(text)
    if not runs:
        return []
    tok = tokenizer()
    out: list[str] = []
    for run in runs:
        out.extend(tok.cut_for_search(run, HMM=False))
    return out


def new_words(text: str) -> list[tuple[int, int, str]]:
    """(start, end, word) for multi-character words the HMM finds in Han runs that its dictionary
    does not hold: mostly names of people ("王小红") and other proper nouns."""
    found: list[tuple[int, int, str]] = []
    if not has_han(text):
        return found
    tok = tokenizer()
    for m in HAN_RUN.finditer(text):
        pos = m.start()
        for word in tok.cut(m.group(0), HMM=True):
            if len(word) >= 2 and not tok.known(word):
                found.append((pos, pos + len(word), word))
            pos += len(word)
    return found


def known(word: str) -> bool:
    """Whether the dictionary holds `word` as a word of its own (not only as a prefix)."""
    return tokenizer().known(word)
