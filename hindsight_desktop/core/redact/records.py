"""Redaction of everything around a memory's text: metadata (every string, keys too), session ids, and
the records, entities and event details of an imported own-format bundle.

A value stored under a secret's name ({"password": "correct horse"}, {"DB_TOKEN": "abc"}, {"cvv": 123})
is redacted whole, numbers included: its name is the label, so it needs no recognisable shape. Names
are read on the normalised view (full-width, hidden characters, look-alike letters undone) and in
camelCase as well as snake_case. A name that counts tokens ("max_tokens", "prompt_tokens") is not a
secret's. Labels (a memory's type, a link's relation type) are redacted too (redact_label).
"""

from __future__ import annotations

import json
import re
from typing import Any

from hindsight_desktop.core.redact.normalise import view
from hindsight_desktop.core.redact.own_rules import PASSWORD_KEYWORDS, TOKEN_KEYWORDS
from hindsight_desktop.core.redact.text import PLACEHOLDER, redact_secrets
from hindsight_desktop.core.store.ids import content_hash

# Words joined by "_", " ", "." or "-"; each group is possessive, so a long name is read once.
_NAME_PREFIX = r"^(?:[A-Za-z0-9]++[_ .-])*"
_S = r"(?:s|_?codes?|_?numbers?|_?no)?$"
_NAMES = (
    (
        "password",
        re.compile(
            rf"{_NAME_PREFIX}(?:{PASSWORD_KEYWORDS}|pw|pass|pass_?code|pass_?word)s?$"
            r"|(?:密码|密碼|口令)$",
            re.I,
        ),
    ),
    ("pin", re.compile(rf"{_NAME_PREFIX}pin{_S}|(?i:pin)\s*(?:码|碼)$", re.I)),
    (
        "cvv",
        re.compile(rf"{_NAME_PREFIX}(?:cvv2?|cvc2?|csc|card_?security_?code|security_?code){_S}|安全码$|安全碼$", re.I),
    ),
    (
        "otp",
        re.compile(
            rf"{_NAME_PREFIX}(?:otp|totp|hotp|one_?time_?(?:code|password|pin)|verification_?code"
            rf"|(?:2fa|mfa|backup|recovery|auth|login|sms)_?codes?){_S}"
            r"|(?:验证码|驗證碼|动态码|動態碼|提取码|授权码)$",
            re.I,
        ),
    ),
    (
        "api_key",
        re.compile(
            rf"{_NAME_PREFIX}(?:{TOKEN_KEYWORDS}|creds?|cookie){_S}"
            r"|(?:密钥|密鑰|秘钥|秘鑰|私钥|私鑰|令牌)$",
            re.I,
        ),
    ),
)
# "max_tokens": 4096, "prompt_tokens": 120 count tokens; they do not hold one.
_COUNT_NAME = re.compile(
    r"^(?:[A-Za-z0-9]++[_ .-])*(?:max|min|num|n|total|prompt|completion|input|output|used"
    r"|cached|reasoning|context|remaining|budget|limit|count)[_ .-]tokens?$|^tokens?[_ .-]"
    r"(?:count|limit|used|total|budget|per[_ .-]\w+)$|^tokens$",
    re.I,
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

# a PIN, a CVV, a one-time code, a token or a phone number may be stored as a number
_NUMBER_KINDS = ("password", "pin", "cvv", "otp", "api_key", "phone", "id_number", "passport")
_PERSONAL_NAMES = (
    ("passport", re.compile(rf"{_NAME_PREFIX}passport(?:[_ .-]?(?:no|num|number))?s?$|护照|護照", re.I)),
    ("iban", re.compile(rf"{_NAME_PREFIX}iban$", re.I)),
    (
        "phone",
        re.compile(
            rf"{_NAME_PREFIX}(?:phone|mobile|cell|tel|telephone)(?:[_ .-]?(?:no|num|number))?s?$"
            r"|手机|电话|電話",
            re.I,
        ),
    ),
    (
        "id_number",
        re.compile(rf"{_NAME_PREFIX}(?:id[_ .-]?(?:card|number)|national[_ .-]?id|ssn)$|身份证|身份證", re.I),
    ),
)


def secret_name_kind(name: str, personal: bool = False) -> str | None:
    """The kind of secret `name` labels (DATABASE_PASSWORD, apiKey, cvv, otpCode, 密钥: "password", "api_key",
    "cvv", "otp"...); with `personal`, also the kind of personal identifier it labels ({"passport": ...},
    {"手机": ...})."""
    name = view(name.strip()).text
    name = _CAMEL.sub("_", name) if not name.isupper() else name
    last = name.rsplit(".", 1)[-1]  # "card.cvv", "user.authToken": the last part of a dotted path
    if not _COUNT_NAME.match(last):
        for kind, pattern in _NAMES:
            if pattern.search(last):
                return kind
    if personal:
        for kind, pattern in _PERSONAL_NAMES:
            if pattern.search(name):
                return kind
    return None


def redact_tree(value: Any, personal: bool = False, *, under: str | None = None) -> tuple[Any, list[str]]:
    """A JSON-like value with every string redacted (keys included); returns it and the kinds redacted.

    `under` is the kind of secret the enclosing key names: its strings (and numbers, for a PIN or a
    phone number) are replaced whole."""
    kinds: list[str] = []
    if isinstance(value, str):
        if under is not None and value and not value.startswith("[REDACTED"):
            kinds.append(under)
            return PLACEHOLDER.format(under), kinds
        text, found = redact_secrets(value, personal)
        return text, found
    if under in _NUMBER_KINDS and isinstance(value, int | float) and not isinstance(value, bool):
        return PLACEHOLDER.format(under), [under]
    if isinstance(value, list):
        out_list = []
        for item in value:
            new, found = redact_tree(item, personal, under=under)
            out_list.append(new)
            kinds += found
        return out_list, kinds
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name, found = redact_secrets(str(key), personal)
            kinds += found
            while name in out:  # two keys that differed only in a secret stay two entries
                name += "'"
            new, found = redact_tree(item, personal, under=secret_name_kind(str(key), personal) or under)
            out[name] = new
            kinds += found
        return out, kinds
    return value, kinds


def redact_label(value: Any) -> tuple[Any, list[str]]:
    """A label (a memory's type, a relation type) with any secret in it replaced by "redacted-<kind>",
    which a label may hold; anything but a string is returned as it is, for the caller to refuse."""
    if not isinstance(value, str):
        return value, []
    text, kinds = redact_secrets(value.strip())
    parts = re.split(r"[-_]", value.strip(), maxsplit=1)
    # "pin-4821", "token_a8f3k2m9q1z7": a secret's name and then its value, joined as labels are.
    if (
        not kinds
        and len(parts) == 2
        and secret_name_kind(parts[0])
        and any(ch.isdigit() for ch in parts[1])
        and len(parts[1]) >= 4
    ):
        return f"{parts[0]}-redacted", [secret_name_kind(parts[0]) or "password"]
    if not kinds:
        return value, []
    return re.sub(r"\[REDACTED:(\w+)\]", r"redacted-\1", text), kinds


def redact_session_id(session_id: str | None, personal: bool = False) -> tuple[str | None, list[str]]:
    """A session id is random by design, so only secrets with a known shape or a label are taken out."""
    if session_id is None:
        return None, []
    return redact_secrets(session_id, personal, random_tokens=False)


def redact_record(record: dict[str, Any], personal: bool = False) -> int:
    """Redact a checked own-format memory record in place (see own_format.check_memory for its fields);
    returns the number of redactions. A record whose text changed loses its stored embedding, which was
    computed from the secret, and gets a new content hash."""
    count = 0
    content, found = redact_secrets(record["content"], personal)
    count += len(found)
    if content != record["content"]:
        record["content"], record["content_hash"], record["embedding"] = content, content_hash(content), None
    for name in ("summary", "fact_key", "fact_value"):
        if record.get(name) is not None:
            record[name], found = redact_secrets(record[name], personal)
            count += len(found)
    record["session_id"], found = redact_session_id(record.get("session_id"), personal)
    count += len(found)
    for name in ("metadata", "entities"):
        tree, found = redact_tree(json.loads(record[name]), personal)
        if found:
            record[name] = json.dumps(tree, ensure_ascii=False)
            count += len(found)
    return count


def redact_event(event: tuple[Any, ...], personal: bool = False) -> tuple[tuple[Any, ...], int]:
    """An own-format event (id, at, kind, memory_id, client, detail JSON) with its detail redacted."""
    detail, found = redact_tree(json.loads(event[5]), personal)
    if not found:
        return event, 0
    return (*event[:5], json.dumps(detail, ensure_ascii=False)), len(found)
