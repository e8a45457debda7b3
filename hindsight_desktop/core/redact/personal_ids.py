"""Personal identifiers, redacted only when the person turns on `redact_personal_ids` in Settings.

They are kept by default because people ask their assistants to remember them ("my passport number
is ...", "call the landlord on ..."). Each kind is checked beyond its shape where a check exists, so
order numbers and dates are not taken for identifiers: a Chinese resident ID (身份证) by its birth
date and ISO 7064 check character, an IBAN by its mod-97 check, a passport number only next to the
word passport/护照, a phone number only in a phone-number layout.
"""

from __future__ import annotations

import re
from datetime import date

from hindsight_desktop.core.redact.own_rules import Rule, Span

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"
# Letters per country code would be the full check; a length range and mod-97 are enough to tell an
# IBAN from an order number (a random string passes mod-97 once in 97).
_IBAN_LENGTH = range(15, 35)


def resident_id_ok(value: str) -> bool:
    """An 18-character mainland resident ID: a real birth date and the right check character."""
    value = value.upper()
    if not re.fullmatch(r"[1-9]\d{16}[\dX]", value):
        return False
    try:
        born = date(int(value[6:10]), int(value[10:12]), int(value[12:14]))
    except ValueError:
        return False
    if not 1900 <= born.year <= date.today().year:
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == value[17]


def iban_ok(value: str) -> bool:
    compact = value.replace(" ", "").upper()
    if len(compact) not in _IBAN_LENGTH or not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", compact):
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _pick_id(m: re.Match[str]) -> Span | None:
    return m.span() if resident_id_ok(m.group(0)) else None


def _pick_iban(m: re.Match[str]) -> Span | None:
    span = m.span()
    value = m.group(0)
    # The pattern may take a following word's first letters into the last group; give them back.
    while value and not iban_ok(value):
        if len(value) <= 15:
            return None
        value = value[:-1].rstrip()
    return (span[0], span[0] + len(value)) if value else None


def _pick_passport(m: re.Match[str]) -> Span | None:
    value = m.group("s")
    return m.span("s") if any(ch.isdigit() for ch in value) else None


def _pick_phone(m: re.Match[str]) -> Span | None:
    digits = sum(ch.isdigit() for ch in m.group(0))
    return m.span() if 7 <= digits <= 15 else None


RULES: tuple[Rule, ...] = (
    Rule("id_number", re.compile(r"(?<![0-9A-Za-z])[1-9]\d{16}[\dXx](?![0-9A-Za-z])"), _pick_id),
    Rule(
        "iban",
        re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])"),
        _pick_iban,
    ),
    Rule(
        "passport",
        re.compile(
            # Possessive blanks: a long run of them after the keyword is read once, not once per split.
            r"(?i:passport|护照|護照)(?:\s*+(?i:number|no\.?|#|num)|号码|號碼|号|號)?[^\n\dA-Za-z]{0,12}?"
            r"(?:(?i:is|was|number|no\.?)\s*+:?\s*+)?(?P<s>[A-Z]{0,2}\d[A-Z0-9]{5,8})(?![A-Za-z0-9])"
        ),
        _pick_passport,
    ),
    Rule(
        "phone",
        re.compile(
            r"(?<![A-Za-z0-9+-])(?:"
            r"\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}"  # +44 20 7946 0958
            r"|(?:\+?86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}"  # mainland mobile 138 0013 8000
            r"|\(\d{3}\)[ ]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}"  # North America (415) 555-0132
            r"|0\d{2,3}-\d{7,8}"  # mainland landline 010-12345678
            r")(?![A-Za-z0-9-])"
        ),
        _pick_phone,
    ),
)
