"""Service-token shapes taken from the `detect-secrets` plugins (Apache-2.0), compiled once, on first use.

detect-secrets' own scan runs every plugin, entropy included, over a line and costs about 1.6 ms per
sentence while flagging ordinary words; here only the regex lists of its shape-based plugins are used,
so the patterns stay maintained upstream and a sentence costs a few microseconds.
Importing detect-secrets pulls in `requests` (0.1-0.3 s), so it happens the first time a text holds a
token-like run (text.py checks that first), not when the app or a command starts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

# Plugins left out, and why: Artifactory's "AP" + 9 characters matches order and booking numbers; the
# public-IP plugin finds addresses, not secrets; the npm pattern takes the rest of the line (our own
# `npm_` rule covers the token); keyword and entropy plugins have no regex list (see own_rules.py and
# entropy.py); PrivateKey lists header lines only, all matched by own_rules.py's key block rule (a
# test checks each of them).
_SKIPPED = frozenset({"ArtifactoryDetector", "IPPublicDetector", "NpmDetector", "KeywordDetector",
                      "Base64HighEntropyString", "HexHighEntropyString", "PrivateKeyDetector"})
_KINDS = {"BasicAuthDetector": "connection_string", "JwtTokenDetector": "jwt"}
# A token continues over these characters: a pattern that fixes a length (Stripe's 24) must not leave
# the tail of a longer, newer token behind.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_-]*")
_LABEL = re.compile(r"^[\s\"':=]*(?:[A-Za-z][A-Za-z0-9_]*=)?[\s\"']*")
_TRIM = " \t\r\n\"':="


class Detector(NamedTuple):
    kind: str
    pattern: re.Pattern[str]


def plugin_classes() -> dict[str, Any]:
    """detect-secrets' plugin classes by class name."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    mapping: dict[str, Any] = get_mapping_from_secret_type_to_class()
    return {plugin.__name__: plugin for plugin in mapping.values()}


@functools.cache
def detectors() -> tuple[Detector, ...]:
    found = []
    for name, cls in sorted(plugin_classes().items()):
        denylist = getattr(cls, "denylist", None)
        if name not in _SKIPPED and denylist:
            found += [Detector(_KINDS.get(name, "api_key"), pattern) for pattern in denylist]
    return tuple(found)


def secret_span(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """The part of a detector match to hide: the captured value when the pattern captures one after a
    keyword, else the whole token without the delimiters and labels some patterns include."""
    start, end = m.span()
    for group in range(m.re.groups, 0, -1):
        g_start, g_end = m.span(group)
        # A value captured after a keyword ("aws_key = '...'") and closing the match; not a prefix like
        # "ghp" nor an optional part in the middle of a token.
        if g_start > start and end - g_end <= 2 and not any(ch.isalnum() for ch in text[g_end:end]):
            return g_start, g_end
    head = _LABEL.match(text, start, end)
    if head is not None:
        start = head.end()
    while end > start and text[end - 1] in _TRIM:
        end -= 1
    if start >= end or (start > 0 and text[start - 1].isalnum()):
        return None  # inside a longer word: a coincidence, not a token
    tail = _TOKEN_TAIL.match(text, end)
    return start, tail.end() if tail is not None else end


def find(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of every service token detect-secrets' patterns recognise in `text`."""
    for detector in detectors():
        for m in detector.pattern.finditer(text):
            span = secret_span(text, m)
            if span is not None:
                yield detector.kind, span[0], span[1]
