"""An injectable clock, so decay and time windows are tested without waiting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """An injectable clock so decay and time windows can be tested without waiting."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 25, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)
