"""Two forms of one English word, as the keyword index cannot tell them (it matches whole forms only):
"practice" and "practises", "coffee" and "coffees", "drive" and "driving"."""

from __future__ import annotations

import os

# Two forms share all but the last few letters: at least FORM_PREFIX of them, and the shorter has at most
# FORM_SLACK letters beyond them.
FORM_PREFIX = 4
FORM_SLACK = 2


def same_word(a: str, b: str) -> bool:
    """Two forms of one English word (FORM_PREFIX, FORM_SLACK). Chinese words have no forms: only equal
    ones match."""
    if a == b:
        return True
    if not (a.isascii() and a.isalpha() and b.isascii() and b.isalpha()):
        return False
    common = len(os.path.commonprefix([a, b]))
    return common >= FORM_PREFIX and common >= min(len(a), len(b)) - FORM_SLACK
