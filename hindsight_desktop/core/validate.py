"""Checks on what callers send, each failing with a message that names the field and the problem."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.records import LAYERS, SCOPES, STATUSES
from hindsight_desktop.core.timeutil import from_db, parse_when, to_db

MAX_CONTENT_BYTES = 32 * 1024
MAX_QUERY_CHARS = 4000
MAX_METADATA_BYTES = 16 * 1024
MAX_LIST_ITEMS = 100  # ids, types or layers in one assistant's call: more is a runaway loop, not a request
MAX_IDS = 10_000  # ids in one engine call: the person may select a long stretch of the timeline
MAX_ID_CHARS = 100
# How far ahead of now a memory's time may be: clocks and time zones disagree by hours, but a memory
# records what happened (a history import is in the past); a later date would rank first and win every
# contradiction for as long as the file lives.
MAX_AHEAD = timedelta(days=1)
MAX_DAYS = 200 * 366  # a day count beyond two centuries cannot select anything, and overflows date arithmetic


def content(value: Any, field: str = "content") -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be text, not {type(value).__name__}")
    text = value.strip()
    if not text:
        raise InvalidInput(f"{field} is empty")
    size = len(text.encode("utf-8"))
    if size > MAX_CONTENT_BYTES:
        raise InvalidInput(f"{field} is {size} bytes; the limit is {MAX_CONTENT_BYTES} bytes (32 KB)")
    return text


def query(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"query must be text, not {type(value).__name__}")
    text = value.strip()
    if not text:
        raise InvalidInput("query is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
    return text


def _finite(value: Any, field: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"{field} must be a finite number, not {value}")


def unit_interval(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{field} must be a number between 0 and 1, not {type(value).__name__}")
    _finite(value, field)
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInput(f"{field} must be between 0 and 1, got {value}")
    return float(value)


def positive_int(value: Any, field: str, *, low: int = 1, high: int = 1_000_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{field} must be a whole number, not {type(value).__name__}")
    if not low <= value <= high:
        raise InvalidInput(f"{field} must be between {low} and {high}, got {value}")
    return value


def positive_number(value: Any, field: str, *, high: float | None = None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{field} must be a number of 0 or more, not {type(value).__name__}")
    _finite(value, field)
    if value < 0 or (high is not None and value > high):
        limit = "" if high is None else f" and at most {high:g}"
        raise InvalidInput(f"{field} must be a number of 0 or more{limit}, got {value}")
    return float(value)


def days(value: Any, field: str) -> float | None:
    """A number of days for a time window (0 to two centuries)."""
    return positive_number(value, field, high=MAX_DAYS)


def text_list(value: Any, field: str, *, max_items: int = MAX_LIST_ITEMS, max_chars: int = MAX_ID_CHARS) -> list[str]:
    """One string or a list of short strings (ids, types), at most `max_items` of them."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise InvalidInput(f"{field} must be text or a list of text, not {type(value).__name__}")
    if len(items) > max_items:
        raise InvalidInput(f"{field} has {len(items)} items; the limit is {max_items} per call")
    for item in items:
        if not isinstance(item, str) or len(item) > max_chars:
            raise InvalidInput(f"{field} must hold text of at most {max_chars} characters each")
    return list(items)


def label(value: Any, field: str, max_len: int = 40) -> str | None:
    """A short free label such as a memory type or a relation type."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} must be a non-empty text label")
    from hindsight_desktop.core.redact.records import redact_label  # a label may carry a token (issue 17)

    text = redact_label(value)[0].strip().lower()
    if len(text) > max_len or not all(c.isalnum() or c in "_-" for c in text):
        shown = (
            text if len(text) <= 60 else text[:60] + "…"
        )  # echoed redacted: an error reply is not a place for a token
        raise InvalidInput(f"{field} {shown!r} must be at most {max_len} letters, digits, '_' or '-'")
    return text


def choice(value: Any, field: str, allowed: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise InvalidInput(f"{field} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def layer(value: Any) -> str | None:
    return choice(value, "layer", LAYERS)


def scope(value: Any) -> str:
    return choice(value if value is not None else "shared", "scope", SCOPES) or "shared"


def status(value: Any) -> str | None:
    return choice(value, "status", STATUSES)


def client_name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        raise InvalidInput("client must be a non-empty name of at most 100 characters")
    return value.strip()


def optional_text(value: Any, field: str, max_len: int = 200) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > max_len:
        raise InvalidInput(f"{field} must be text of at most {max_len} characters")
    return value.strip() or None


def metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(f"metadata must be a JSON object, not {type(value).__name__}")
    try:
        # allow_nan=False: NaN and Infinity are not JSON, and no other program could read them back.
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"metadata is not valid JSON: {exc}") from exc
    if len(encoded.encode("utf-8")) > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata is larger than {MAX_METADATA_BYTES} bytes")
    return json.loads(encoded)


def labels(value: Any, check: Callable[[Any], str | None], field: str) -> tuple[str, ...] | None:
    """None, or one or several values each passed through `check` (such as `layer`); None when empty."""
    if value is None:
        return None
    items = text_list(value, field, max_chars=40)
    return tuple(c for v in items if (c := check(v)) is not None) or None


def type_label(value: Any) -> str | None:
    return label(value, "type")


def when(value: datetime | str | None, field: str) -> datetime | None:
    """None, or a moment (a datetime or ISO text)."""
    return None if value is None else parse_when(value, field)


def batch_id(value: Any) -> str:
    """The batch id of a forget receipt."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("batch must be the batch id of a forget receipt")
    return value.strip()


def not_ahead(value: datetime, now: datetime, field: str) -> datetime:
    """`value`, or InvalidInput naming `field` when it is more than MAX_AHEAD after `now`."""
    if value - now > MAX_AHEAD:
        raise InvalidInput(
            f"{field} {to_db(value)} is more than a day ahead of now ({to_db(now)}); a memory "
            "records what happened: give the time it happened, or leave it out for now"
        )
    return value


# A memory record's times that say when something was (an expiry is in the future by nature).
RECORD_TIMES = ("created_at", "occurred_at", "updated_at", "last_accessed_at", "reviewed_at")


def record_times(records: list[dict[str, Any]], now: datetime) -> None:
    """InvalidInput, naming the memory and the field, when a record (times in the database form, as
    an import reads them) has a time more than MAX_AHEAD after `now`."""
    for record in records:
        for name in RECORD_TIMES:
            when = record.get(name)
            if isinstance(when, str):
                not_ahead(from_db(when), now, f"memory {record.get('id')!r}: {name}")
