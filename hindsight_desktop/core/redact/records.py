"""Redaction of everything around a memory's text: metadata (every string, keys too), session ids, and
the records, entities and event details of an imported own-format bundle.

A value stored under a secret's name ({"password": "correct horse"}, {"DB_TOKEN": "abc"}) is redacted
whole: its name is the label, so it needs no recognisable shape.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hindsight_desktop.core.redact.own_rules import PASSWORD_KEYWORDS, TOKEN_KEYWORDS
from hindsight_desktop.core.redact.text import PLACEHOLDER, redact_secrets

_NAME_PREFIX = r"^(?:[A-Za-z0-9]+[_ .-])*"
_PASSWORD_NAME = re.compile(rf"{_NAME_PREFIX}(?:{PASSWORD_KEYWORDS}|pw|pass|pin|pin[_ ]?code)s?$|^(?:.*密码|口令)$", re.I)
_TOKEN_NAME = re.compile(rf"{_NAME_PREFIX}(?:{TOKEN_KEYWORDS})s?$|^.*(?:密钥|秘钥|私钥|令牌)$", re.I)


_NUMBER_KINDS = ("password", "phone", "id_number", "passport")  # a PIN or a phone number may be stored as a number
_PERSONAL_NAMES = (
    ("passport", re.compile(rf"{_NAME_PREFIX}passport(?:[_ .-]?(?:no|num|number))?s?$|护照|護照", re.I)),
    ("iban", re.compile(rf"{_NAME_PREFIX}iban$", re.I)),
    ("phone", re.compile(rf"{_NAME_PREFIX}(?:phone|mobile|cell|tel|telephone)(?:[_ .-]?(?:no|num|number))?s?$"
                         r"|手机|电话|電話", re.I)),
    ("id_number", re.compile(rf"{_NAME_PREFIX}(?:id[_ .-]?(?:card|number)|national[_ .-]?id|ssn)$|身份证|身份證", re.I)),
)


def secret_name_kind(name: str, personal: bool = False) -> str | None:
    """"password" or "api_key" when `name` labels a secret (DATABASE_PASSWORD, apiKey, 密钥); with
    `personal`, also the kind of personal identifier it labels ({"passport": ...}, {"手机": ...})."""
    if _PASSWORD_NAME.match(name):
        return "password"
    if _TOKEN_NAME.match(name):
        return "api_key"
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


def redact_session_id(session_id: str | None, personal: bool = False) -> tuple[str | None, list[str]]:
    """A session id is random by design, so only secrets with a known shape or a label are taken out."""
    if session_id is None:
        return None, []
    return redact_secrets(session_id, personal, random_tokens=False)


def redact_record(record: dict[str, Any], personal: bool = False) -> int:
    """Redact a checked own-format memory record in place (see own_format.check_memory for its fields);
    returns the number of redactions. A record whose text changed loses its stored embedding, which was
    computed from the secret, and gets a new content hash."""
    from hindsight_desktop.core.write.writer import content_hash  # writer imports this module

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
