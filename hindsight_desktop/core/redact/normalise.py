"""The view of a text that redaction rules match against, and the way back to the text as written.

A secret can be disguised without changing what a reader sees: full-width letters and digits
("ｐａｓｓｗｏｒｄ：１２３４５６"), an invisible character inside the keyword ("pass\u200bword", a soft
hyphen, a TAG character), or a Cyrillic or Greek letter that looks Latin ("раssword"). The rules match
on a view with these undone (NFKC, invisible characters dropped, look-alike letters folded), and every
span found there is mapped back to the original, so only the secret is replaced and the rest of what
the person wrote stays as it was, invisible characters included.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NamedTuple

# Unicode category Cf (format characters: zero-width space and joiners, bidi controls, soft hyphen,
# the TAG block...), as ranges so no scan of the whole code space is needed at start-up; a test checks
# the list against the running Python's Unicode database. Ranges from newer Unicode versions are
# included ahead of time. Also some invisible characters of other categories: the combining grapheme
# joiner, variation selectors, Hangul fillers, Mongolian free variation selectors, Khmer inherent vowels.
_INVISIBLE_RANGES = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f"
    "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef"
)
INVISIBLE = re.compile(f"[{_INVISIBLE_RANGES}]")

# Cyrillic, Greek and other letters drawn like a Latin one, folded only inside a word whose every
# non-Latin letter is such a look-alike (so Russian or Greek prose keeps its letters in the view).
_CONFUSABLE_PAIRS = (
    "аa вb еe кk мm нh оo рp сc тt уy хx ѕs іi јj ԁd ԛq ԝw һh ӏl ѵv ԍg "
    "АA ВB ЕE КK МM НH ОO РP СC ТT ХX УY ЅS ІI ЈJ ԚQ ԜW ҺH ӀI "
    "αa βb εe ιi κk νv οo ρp τt υu χx "
    "ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX "
    "օo ıi ɑa ɡg ℓl"
)
CONFUSABLES = {pair[0]: pair[1] for pair in _CONFUSABLE_PAIRS.split() if len(pair) == 2}
_CONFUSABLE = re.compile("[" + "".join(CONFUSABLES) + "]")
_WORD = re.compile(r"[^\W\d_]++")


class View(NamedTuple):
    """`text` as the rules see it; `starts[i]`/`ends[i]` are where its character i came from in the
    original (None when the view is the original itself)."""

    text: str
    starts: list[int] | None
    ends: list[int] | None

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that the view's [start, end) came from."""
        if self.starts is None or self.ends is None or start >= end:
            return start, end
        return self.starts[start], self.ends[end - 1]


@functools.lru_cache(maxsize=4096)
def _nfkc(ch: str) -> str:
    return unicodedata.normalize("NFKC", ch)


def _fold(chars: list[str]) -> list[str]:
    text = "".join(chars)
    if not _CONFUSABLE.search(text):
        return chars
    # Only words made of Latin letters and look-alikes are folded.
    for m in _WORD.finditer(text):
        word = m.group()
        if _CONFUSABLE.search(word) and all(ch.isascii() or ch in CONFUSABLES for ch in word):
            for i in range(m.start(), m.end()):
                chars[i] = CONFUSABLES.get(chars[i], chars[i])
    return chars


def view(text: str) -> View:
    """The normalised view of `text` (see the module's docstring)."""
    if text.isascii() or (
        unicodedata.is_normalized("NFKC", text) and not INVISIBLE.search(text) and not _CONFUSABLE.search(text)
    ):
        return View(text, None, None)
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            chars.append(ch)
            starts.append(i)
            ends.append(i + 1)
            continue
        if INVISIBLE.match(ch):
            continue
        for out in _nfkc(ch):
            # One character may become several ("㎏" -> "kg"); a span inside them covers the whole original.
            if INVISIBLE.match(out):
                continue
            chars.append(out)
            starts.append(i)
            ends.append(i + 1)
    return View("".join(_fold(chars)), starts, ends)
