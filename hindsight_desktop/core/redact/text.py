"""Secret redaction: credentials are replaced by a visible "[REDACTED:<kind>]" before anything is stored.

Every rule matches on the normalised view of the text (normalise.py: full-width forms, invisible
characters and look-alike letters undone) and what it finds is replaced in the text as written.
Three sources of rules, applied in a fixed order, most specific first, so one secret is redacted once:
1. our own rules: private key blocks, passwords in URLs, JWTs, webhook URLs, prefixed tokens, labelled
   tokens and card numbers (own_rules); passwords, PINs, CVVs and one-time codes told in words, in
   English or Chinese (forms); credentials on a command line or in a shell variable (commands); a
   label stays readable, only the value is replaced;
2. the shape-based detectors of detect-secrets (detectors), compiled once;
3. a randomness check for unlabelled tokens (entropy; what it keeps on purpose is listed there).
Personal identifiers (personal_ids) are redacted only when asked: see Settings.redact_personal_ids.

A later rule never matches inside a placeholder ("[" and "]" are outside every value pattern), so
redacting redacted text changes nothing. A typical sentence costs tens of microseconds
(bench/redact_eval.py measures it).
"""

from __future__ import annotations

from collections.abc import Iterable

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.redact import (
    commands,
    detectors,
    entropy,
    forms,
    normalise,
    own_rules,
    personal_ids,
)

PLACEHOLDER = "[REDACTED:{}]"
RANDOM_KIND = "token"
MAX_ROUNDS = 4
RULES: tuple[own_rules.Rule, ...] = own_rules.RULES + forms.RULES + commands.RULES


def _replace(text: str, spans: Iterable[tuple[str, int, int]], kinds: list[str]) -> str:
    """Replace non-overlapping spans (the first found wins an overlap), in text order."""
    pieces: list[str] = []
    last = 0
    for kind, start, end in sorted(spans, key=lambda s: (s[1], -s[2])):
        if start < last or start >= end:
            continue
        pieces += [text[last:start], PLACEHOLDER.format(kind)]
        kinds.append(kind)
        last = end
    return "".join(pieces) + text[last:] if pieces else text


def _apply(text: str, rules: Iterable[own_rules.Rule], kinds: list[str], long_run: bool) -> str:
    seen = normalise.view(text)
    lowered = seen.text.lower()
    for rule in rules:
        if not own_rules.applies(rule, seen.text, long_run, lowered):
            continue
        spans = []
        for m in rule.pattern.finditer(seen.text):
            span = rule.pick(m)
            if span is not None:
                spans.append((rule.kind, *seen.original(*span)))
        if spans:
            text = _replace(text, spans, kinds)
            seen = normalise.view(text)
            lowered = seen.text.lower()
    return text


def redact_secrets(text: str, personal: bool = False, *, random_tokens: bool = True) -> tuple[str, list[str]]:
    """Replace secrets with "[REDACTED:<kind>]"; return the new text and one kind per redaction.

    `personal` also redacts resident ID, passport, IBAN and phone numbers. `random_tokens=False` skips
    the randomness check (for values random by design, such as session ids). Kinds are listed in rule
    order (private_key, connection_string, jwt, api_key, password, card_number, then detect-secrets'
    finds, random tokens and personal identifiers), not in text order; a rare second round, for what
    the first one exposed, adds its kinds after.
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, not {type(text).__name__}")
    kinds: list[str] = []
    # Again until nothing more is found: a redaction can expose another secret's edge (a token that
    # ran into a JWT), and redacting stored text a second time (a re-import) must change nothing.
    for _ in range(MAX_ROUNDS):
        found = len(kinds)
        text = _round(text, personal, random_tokens, kinds)
        if len(kinds) == found:
            break
    return text, kinds


def _round(text: str, personal: bool, random_tokens: bool, kinds: list[str]) -> str:
    if not text:
        return text
    long_run = own_rules.has_long_run(normalise.view(text).text)
    text = _apply(text, RULES, kinds, long_run)
    # Every detect-secrets shape and every random token is a long run of token characters.
    seen = normalise.view(text)
    if long_run and own_rules.has_long_run(seen.text):
        text = _replace(text, ((k, *seen.original(s, e)) for k, s, e in detectors.find(seen.text)), kinds)
        if random_tokens:
            seen = normalise.view(text)
            text = _replace(text, ((RANDOM_KIND, *seen.original(s, e)) for s, e in entropy.find(seen.text)), kinds)
    if personal:
        text = _apply(text, personal_ids.RULES, kinds, long_run)
    return text
