"""UTC inside, ISO 8601 at the edges."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload

from hindsight_desktop.core.errors import InvalidInput

# Dates outside these years are typing mistakes or attacks (year 1 overflows time-zone arithmetic,
# year 9999 breaks every "plus N days"); no memory of a person's life falls outside them.
MIN_YEAR = 1900
MAX_YEAR = 2200
_ISO_HINT = "use a form such as 2026-05-03T14:00:00Z"


def to_db(value: datetime) -> str:
    """Sortable text form stored in SQLite (always UTC, millisecond precision)."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@overload
def from_db(text: str) -> datetime: ...
@overload
def from_db(text: None) -> None: ...
@overload
def from_db(text: str | None) -> datetime | None: ...
def from_db(text: str | None) -> datetime | None:
    """A time as stored (see `to_db`); None stays None."""
    if text is None:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def parse_when(value: object, field: str = "timestamp") -> datetime:
    """Accept an aware datetime or an ISO 8601 string; a time without a zone is taken as UTC.
    Years outside 1900-2200 are refused, naming `field`."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            raise InvalidInput(f"{field} is empty; give an ISO 8601 date such as 2026-05-03T14:00:00Z")
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError as exc:
            raise InvalidInput(f"{field} {value[:80]!r} is not an ISO 8601 date; {_ISO_HINT}") from exc
    else:
        raise InvalidInput(f"{field} must be an ISO 8601 string, not {type(value).__name__}")
    # Checked before converting: a zone offset on year 1 or 9999 would overflow in astimezone.
    if not MIN_YEAR <= parsed.year <= MAX_YEAR:
        raise InvalidInput(f"{field} is in the year {parsed.year}; dates must fall between {MIN_YEAR} and {MAX_YEAR}")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)
