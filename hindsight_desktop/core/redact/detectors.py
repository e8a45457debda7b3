"""Service-token shapes taken from the `detect-secrets` plugins (Apache-2.0), compiled once, on first use.

detect-secrets' own scan runs every plugin, entropy included, over a line, far slower per sentence
while flagging ordinary words; here only the regex lists of its shape-based plugins are used, so the
patterns stay maintained upstream and a sentence costs a small fraction of that (bench/NOTES.md).
Importing detect-secrets pulls in `requests`, slow to import, so it happens the first time a text holds a
token-like run (text.py checks that first), not when the app or a command starts.

Some of those patterns backtrack: a run of "eyJ" characters, or of spaces after a keyword, costs them
time that grows with the square of its length or worse. They are not ours to rewrite, so what they
see is bounded instead (Bounded): runs of spaces are cut to one, and the text is read in overlapping
windows of WINDOW characters, STEP apart, so each match of up to WINDOW - STEP characters lies whole
in some window and the cost grows with the length of the text, not its square.
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
# test checks each of them); OpenAI's pattern ("sk-" + any run + 20 + "T3BlbkFJ" + 20) backtracks in
# cubic time on a run of "sk-" and own_rules' sk- rule matches every key it matches.
_SKIPPED = frozenset(
    {
        "ArtifactoryDetector",
        "IPPublicDetector",
        "NpmDetector",
        "KeywordDetector",
        "Base64HighEntropyString",
        "HexHighEntropyString",
        "PrivateKeyDetector",
        "OpenAIDetector",
    }
)
_KINDS = {"BasicAuthDetector": "connection_string", "JwtTokenDetector": "jwt"}
# A token continues over these characters: a pattern that fixes a length (Stripe's 24) must not leave
# the tail of a longer, newer token behind.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_-]{0,512}+")
_LABEL = re.compile(r"^[\s\"':=]*(?:[A-Za-z][A-Za-z0-9_]*=)?[\s\"']*")
_TRIM = " \t\r\n\"':="
WINDOW = 512
STEP = 256
_SPACE_RUN = re.compile(r"\s{2,}+")


class Bounded:
    """A detect-secrets pattern that only ever sees bounded windows of a squeezed text (see above)."""

    def __init__(self, compiled: re.Pattern[str]) -> None:
        self.compiled = compiled
        self.pattern, self.flags, self.groups = compiled.pattern, compiled.flags, compiled.groups

    def scan(self, squeezed: str) -> Iterator[re.Match[str]]:
        """Every match in the windows of an already squeezed text (a window ends the pattern's view;
        what precedes it is still seen by lookbehinds)."""
        for offset in range(0, max(1, len(squeezed) - WINDOW + STEP), STEP):
            yield from self.compiled.finditer(squeezed, offset, offset + WINDOW)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.scan(_squeezed(text)[0])


class Detector(NamedTuple):
    kind: str
    pattern: Bounded


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
            found += [Detector(_KINDS.get(name, "api_key"), Bounded(pattern)) for pattern in denylist]
    return tuple(found)


def secret_span(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """The part of a detector match to hide: the captured value when the pattern captures one after a
    keyword, else the whole token without the delimiters and labels some patterns include."""
    start, end = m.start(), m.end()
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


def _squeezed(text: str) -> tuple[str, list[int] | None]:
    """`text` with each run of spaces cut to its first character, and where each character came from."""
    if _SPACE_RUN.search(text) is None:
        return text, None
    pieces: list[str] = []
    where: list[int] = []
    last = 0
    for m in _SPACE_RUN.finditer(text):
        pieces.append(text[last : m.start() + 1])
        where.extend(range(last, m.start() + 1))
        last = m.end()
    pieces.append(text[last:])
    where.extend(range(last, len(text)))
    return "".join(pieces), where


def find(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of every service token detect-secrets' patterns recognise in `text`."""
    seen, where = _squeezed(text)
    found = set()
    for detector in detectors():
        for m in detector.pattern.scan(seen):
            span = secret_span(seen, m)
            if span is not None and (detector.kind, *span) not in found:
                found.add((detector.kind, *span))
                if where is None:
                    yield detector.kind, span[0], span[1]
                else:
                    yield detector.kind, where[span[0]], where[span[1] - 1] + 1
