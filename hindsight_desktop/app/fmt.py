"""How times, numbers and text read on screen. The engine keeps UTC; people read local time."""

from __future__ import annotations

import html
from datetime import date, datetime, timedelta


def local(value: datetime) -> datetime:
    return value.astimezone()


def day_of(value: datetime) -> date:
    """The local calendar day a memory belongs to in the timeline."""
    return local(value).date()


def day_label(day: date, today: date | None = None) -> str:
    today = today or datetime.now().astimezone().date()
    if day == today:
        return "Today"
    if day == today - timedelta(days=1):
        return "Yesterday"
    if day.year == today.year:
        return day.strftime("%A, %d %B").replace(" 0", " ")
    return day.strftime("%A, %d %B %Y").replace(" 0", " ")


def clock_time(value: datetime) -> str:
    return local(value).strftime("%H:%M")


def when(value: datetime | None) -> str:
    if value is None:
        return "never"
    return local(value).strftime("%d %b %Y, %H:%M").lstrip("0")


def ago(value: datetime | None, now: datetime | None = None) -> str:
    """'3 minutes ago', for the tray's last-maintenance line."""
    if value is None:
        return "never"
    seconds = ((now or datetime.now(value.tzinfo)) - value).total_seconds()
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"


def one_line(text: str, limit: int = 400) -> str:
    """Content for a single table row: newlines folded, very long text cut (the view elides the rest)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def full_text_tip(text: str) -> str:
    """A memory's whole text for a tooltip: rich text, so Qt wraps it to the screen instead of
    running one long line off its edge."""
    return f'<p style="white-space: pre-wrap">{html.escape(text, quote=False)}</p>'


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def count(n: int, noun: str) -> str:
    """'1 memory', '2,048 memories'."""
    if n == 1:
        return f"1 {noun}"
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{n:,} {plural}"
