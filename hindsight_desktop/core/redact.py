"""Secret redaction: credentials are replaced by a visible "[REDACTED:<kind>]" before anything is stored.

Rules run in a fixed order (most specific first) so that one secret is redacted once: a later rule
never matches inside a placeholder, because "[" and "]" are outside every value pattern.
Only the secret part is replaced; labels ("password:", "Bearer ", "postgres://user:") stay readable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from hindsight_desktop.core.errors import InvalidInput

PLACEHOLDER = "[REDACTED:{}]"


def _words(text: str) -> list[str]:
    """A word list written as one string, for readability."""
    return text.split()


# Words that follow "password is" in ordinary prose; they are not a password.
_PROSE_WORDS = frozenset(
    _words("""a an the my your his her our their its too very so not no wrong right correct incorrect invalid valid
    weak strong long short same different expired changed reset required needed missing empty new old easy
    hard simple secure safe still also just really saved stored there here what which written somewhere
    case-sensitive forgotten lost compromised leaked""")
)
_TRAILING_PUNCT = ".,;:!?)]}'\"，。；！？"


class _Rule(NamedTuple):
    kind: str
    pattern: re.Pattern[str]
    # Returns the (start, end) of the part to hide, or None to leave the match alone.
    pick: Callable[[re.Match[str]], tuple[int, int] | None]


def _group(name: str | int = 0) -> Callable[[re.Match[str]], tuple[int, int] | None]:
    return lambda m: m.span(name)


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _pick_card(m: re.Match[str]) -> tuple[int, int] | None:
    digits = re.sub(r"\D", "", m.group(0))
    return m.span() if 13 <= len(digits) <= 19 and _luhn_ok(digits) else None


def _pick_assignment(m: re.Match[str]) -> tuple[int, int] | None:
    # A long value with a digit, or a very long one, is a token; "the secret is perseverance" is prose.
    value = m.group("s")
    return m.span("s") if any(ch.isdigit() for ch in value) or len(value) >= 20 else None


def _pick_password(m: re.Match[str]) -> tuple[int, int] | None:
    start, end = m.span("s")
    value = m.group("s")
    if value[0] in "\"'" and len(value) > 2 and value[-1] == value[0]:
        return start, end  # a quoted password is taken whole, punctuation included
    stripped = value.rstrip(_TRAILING_PUNCT)
    if len(stripped) < 3 or stripped.lower() in _PROSE_WORDS or stripped.startswith("[REDACTED"):
        return None
    return start, start + len(stripped)


_TOKEN = r"[A-Za-z0-9._~+/=-]"
_RULES: list[_Rule] = [
    _Rule(
        "private_key",
        # A block whose END line is missing is redacted to the end of the text: better too much than a leak.
        re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S),
        _group(),
    ),
    _Rule(
        "connection_string",
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@\[\]]*:(?P<s>[^\s@/\[\]]+)@[^\s/@]"),
        _group("s"),
    ),
    _Rule(
        "jwt",
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}(?![A-Za-z0-9_-])"),
        _group(),
    ),
    _Rule(
        "api_key",
        re.compile(
            r"(?<![A-Za-z0-9_-])(?:sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
            r"|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])"
        ),
        _group(),
    ),
    _Rule("api_key", re.compile(r"\b[Bb]earer\s+(?P<s>" + _TOKEN + r"{20,})"), _group("s")),
    _Rule(
        "api_key",
        re.compile(
            r"\b(?:api[_ -]?key|apikey|access[_ -]?token|auth[_ -]?token|refresh[_ -]?token|secret[_ -]?key"
            r"|client[_ -]?secret|token|secret)s?[\"']?\s*(?:[:=]|\s(?:is|was)\s)\s*[\"']?(?P<s>" + _TOKEN + r"{12,})",
            re.I,
        ),
        _pick_assignment,
    ),
    _Rule(
        "password",
        re.compile(
            r"\b(?:password|passwd|pwd|passphrase|passcode|pin\s+code)"
            r"(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w.@-]+(?:\s+[\w.@-]+)?)?"
            r"[\"']?\s*(?:[:=]|\s(?:is|was)\s*:?)\s*(?P<s>\"[^\"\n]+\"|'[^'\n]+'|\S+)",
            re.I,
        ),
        _pick_password,
    ),
    # Chinese: the value is the ASCII run after the cue, so 密码是多少 (a question) is left alone.
    _Rule("password", re.compile(r"(?:密码|密碼|口令)\s*(?:是|为|為|[:：=])\s*(?P<s>[\x21-\x7e]+)"), _pick_password),
    _Rule(
        "card_number",
        # Contiguous, or in 4-digit groups, or the 4-6-5 Amex layout; issuers start with 2-6.
        re.compile(
            r"(?<![\d-])(?:[2-6]\d{12,18}|[2-6]\d{3}(?P<sep>[ -])\d{4}(?P=sep)\d{4}(?P=sep)\d{1,7}"
            r"|3\d{3}[ -]\d{6}[ -]\d{5})(?![\d-])"
        ),
        _pick_card,
    ),
]


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """Replace secrets with "[REDACTED:<kind>]"; return the new text and one kind per redaction.

    Kinds are listed in rule order (private_key, connection_string, jwt, api_key, password,
    card_number), not in text order.
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, not {type(text).__name__}")
    kinds: list[str] = []
    for rule in _RULES:

        def replace(m: re.Match[str], rule: _Rule = rule) -> str:
            span = rule.pick(m)
            if span is None:
                return m.group(0)
            kinds.append(rule.kind)
            whole, base = m.group(0), m.start()
            return whole[: span[0] - base] + PLACEHOLDER.format(rule.kind) + whole[span[1] - base :]

        text = rule.pattern.sub(replace, text)
    return text, kinds
