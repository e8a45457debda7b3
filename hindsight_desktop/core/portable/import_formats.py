"""Reading import files: the app's own bundles, the official MCP memory server's `memory.json`, plain
text or Markdown (one memory per paragraph) and ChatGPT/Claude "memories" lists (one per line).

Parsing checks the whole file before anything is written; every error names the line (or, in a JSON
bundle, the field path) so the person can fix the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.identities import IMPORT_PREFIX
from hindsight_desktop.core.portable import json_input, own_format, seal

FORMATS = ("json", "jsonl", "mcp-memory", "markdown", "text", "lines")
ALIASES = {"mcp": "mcp-memory", "md": "markdown", "txt": "text", "chatgpt": "lines", "claude": "lines"}
_SOURCES = {"mcp-memory": "mcp-memory", "markdown": "markdown", "text": "text", "lines": "memories-list"}
_BULLET = re.compile(r"^\s*(?:[-*•–]|\d{1,3}[.)])\s+")
_RULE = re.compile(r"^\s*(?:#{1,6}\s.*|#{1,6}|[-*_]{3,}|```.*)\s*$")


@dataclass
class Bundle:
    """An own-format file, checked: memory records plus their links and events."""

    memories: list[dict[str, Any]] = field(default_factory=list)
    links: list[tuple[str, str, str, float, str]] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)
    digest: str = ""  # of every record as written in the file (seal.Digest)
    seal: Any = None  # the file's own seal field, unchecked


@dataclass
class Item:
    """One memory to write through the pipeline. `key` names it for links made after the write."""

    where: str
    content: str
    metadata: dict[str, Any]
    key: str | None = None
    # (source key, target key, relation type) made after the write; "" stands for this item's memory.
    links: list[tuple[str, str, str]] = field(default_factory=list)


def read_text(path: Path) -> str:
    return decode(json_input.read_bytes(Path(path)), path)


def decode(raw: bytes, path: Path) -> str:
    """A file's bytes as text (UTF-8, a BOM dropped); InvalidInput naming the line otherwise."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InvalidInput(f"{Path(path).name}, line {line}: not UTF-8 text (byte {exc.start})") from None


def source_writer(chosen: str, given: str | None) -> str:
    """The writer for memories read from a file of format `chosen` (`given` as the person named it)."""
    alias = (given or "").strip().lower()
    if chosen == "lines" and alias in ("chatgpt", "claude"):
        return IMPORT_PREFIX + alias
    return IMPORT_PREFIX + _SOURCES.get(chosen, chosen)


def normalise(fmt: str | None) -> str | None:
    if fmt is None:
        return None
    name = ALIASES.get(fmt.strip().lower(), fmt.strip().lower())
    if name == "csv":
        raise InvalidInput("CSV is an export format only; import the JSON or JSONL export to restore memories")
    if name not in FORMATS:
        raise InvalidInput(f"unknown import format {fmt!r}; use one of {', '.join(FORMATS)}")
    return name


def detect(path: Path, text: str) -> str:
    """The format of a file from its name and first line."""
    suffix = Path(path).suffix.lower()
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if suffix in (".json", ".jsonl", ".ndjson") or first.startswith("{"):
        head = _first_object(first, f"{Path(path).name}, line 1")
        if head is not None and head.get("record") == "header":
            return "jsonl"
        if head is not None and head.get("type") in ("entity", "relation"):
            return "mcp-memory"
        try:
            whole = json_input.load(text, Path(path).name)
        except InvalidInput:
            if head is None:  # not one object per line either: say where the JSON breaks
                raise
            whole = None
        if isinstance(whole, dict) and whole.get("format") == own_format.FORMAT:
            return "json"
        if isinstance(whole, dict) and ("entities" in whole or "relations" in whole):
            return "mcp-memory"
        raise InvalidInput(
            f"{Path(path).name}: JSON that is neither a Hindsight Desktop export nor an MCP memory file; give --format"
        )
    if suffix == ".csv":
        normalise("csv")
    if suffix in (".md", ".markdown"):
        return "markdown"
    lines = [line for line in text.splitlines()]
    has_paragraphs = any(not line.strip() for line in lines[1:-1])
    return "text" if has_paragraphs or len([ln for ln in lines if ln.strip()]) <= 1 else "lines"


def _first_object(line: str, where: str) -> dict[str, Any] | None:
    try:
        value = json_input.load(line, where, line=True)
    except InvalidInput:
        return None
    return value if isinstance(value, dict) else None


# ---- the app's own formats ----------------------------------------------------------------------


def parse_bundle(text: str, name: str) -> Bundle:
    data = json_input.load(text, name)
    if not isinstance(data, dict) or data.get("format") != own_format.FORMAT:
        raise InvalidInput(f"{name}: field 'format' must be {own_format.FORMAT!r}")
    _check_version(data.get("version"), f"{name}: field 'version'")
    bundle = Bundle(seal=data.get(seal.FIELD))
    digest = seal.Digest()
    for key, kind in (("memories", "memory"), ("links", "link"), ("events", "event")):
        if not isinstance(data.get(key, []), list):
            raise InvalidInput(f"{name}: field {key!r} must be a list")
        for raw in data.get(key, []):
            if isinstance(raw, dict):
                digest.add(kind, raw)
    bundle.digest = digest.hexdigest()
    for i, raw in enumerate(data.get("memories", [])):
        bundle.memories.append(own_format.check_memory(raw, f"{name}: memories[{i}]"))
    bundle.links = [own_format.check_link(raw, f"{name}: links[{i}]") for i, raw in enumerate(data.get("links", []))]
    bundle.events = [
        own_format.check_event(raw, f"{name}: events[{i}]") for i, raw in enumerate(data.get("events", []))
    ]
    return bundle


def parse_bundle_lines(text: str, name: str) -> Bundle:
    bundle = Bundle()
    digest = seal.Digest()
    seen_header = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name}, line {number}"
        raw = _json_line(line, where)
        kind = raw.get("record")
        if kind == "header":
            if raw.get("format") != own_format.FORMAT:
                raise InvalidInput(f"{where}: field 'format' must be {own_format.FORMAT!r}")
            _check_version(raw.get("version"), f"{where}: field 'version'")
            seen_header = True
        elif not seen_header:
            raise InvalidInput(f"{where}: the first record must be the header")
        elif kind == seal.FIELD:
            bundle.seal = raw.get(seal.FIELD)
        elif kind == "memory":
            bundle.memories.append(own_format.check_memory(raw, where))
            digest.add(kind, raw)
        elif kind == "link":
            bundle.links.append(own_format.check_link(raw, where))
            digest.add(kind, raw)
        elif kind == "event":
            bundle.events.append(own_format.check_event(raw, where))
            digest.add(kind, raw)
        else:
            raise InvalidInput(f"{where}: field 'record' must be header, memory, link, event or seal")
    if not seen_header:
        raise InvalidInput(f"{name}: empty file (no header line)")
    bundle.digest = digest.hexdigest()
    return bundle


def _check_version(value: Any, where: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidInput(f"{where} must be a whole number")
    if value > own_format.VERSION:
        raise InvalidInput(
            f"{where} is {value}; this Hindsight Desktop reads up to {own_format.VERSION}: please upgrade"
        )


def _json_line(line: str, where: str) -> dict[str, Any]:
    raw = json_input.load(line, where, line=True)
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: each line must be a JSON object")
    return raw


# ---- other tools' formats -----------------------------------------------------------------------


def parse_mcp_memory(text: str, name: str) -> list[Item]:
    """The official MCP memory server's knowledge graph: entities with observations, and relations.

    Each observation becomes a memory ("Alice Chen: prefers tea"); an entity without observations
    becomes "Alice Chen is a person."; a relation becomes "Alice Chen works at Acme." linked to the
    memories of both entities."""
    entities, relations = _graph(text, name)
    items: list[Item] = []
    for where, entity in entities:
        label = _display(entity["name"])
        meta = {"source": "mcp-memory", "entity": entity["name"], "entity_type": entity["entityType"]}
        texts = [f"{label}: {obs}" for obs in entity["observations"]] or [f"{label} is a {entity['entityType']}."]
        for i, content in enumerate(texts):
            items.append(Item(where, content, meta, key=f"entity:{entity['name']}" if i == 0 else None))
    for where, rel in relations:
        kind = re.sub(r"[^a-z0-9_-]+", "_", rel["relationType"].lower()).strip("_")[:40] or "related"
        content = f"{_display(rel['from'])} {_display(rel['relationType'])} {_display(rel['to'])}."
        source, target = f"entity:{rel['from']}", f"entity:{rel['to']}"
        # Linked to both entities, and the entities to each other under the relation's own name.
        items.append(
            Item(
                where,
                content,
                {"source": "mcp-memory", "relation": rel["relationType"]},
                links=[("", source, "about"), ("", target, "about"), (source, target, kind)],
            )
        )
    return items


def _graph(text: str, name: str) -> tuple[list[tuple[str, dict]], list[tuple[str, dict]]]:
    lines: list[tuple[str, Any]]
    try:
        whole = json_input.load(text, name)
    except InvalidInput:
        whole = None  # one object per line, each read (and refused) on its own below
    if isinstance(whole, dict) and "type" not in whole:
        # The older layout: one JSON object with "entities" and "relations" arrays.
        lines = [
            _tagged(f"{name}: {key}[{i}]", item, kind)
            for key, kind in (("entities", "entity"), ("relations", "relation"))
            for i, item in enumerate(whole.get(key) or [])
        ]
    else:
        lines = [
            (f"{name}, line {n}", _json_line(line, f"{name}, line {n}"))
            for n, line in enumerate(text.splitlines(), 1)
            if line.strip()
        ]
    entities, relations = [], []
    for where, raw in lines:
        if raw.get("type") == "entity":
            if not isinstance(raw.get("name"), str) or not raw["name"].strip():
                raise InvalidInput(f"{where}: field 'name' must be non-empty text")
            observations = raw.get("observations", [])
            if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
                raise InvalidInput(f"{where}: field 'observations' must be a list of text")
            entities.append(
                (
                    where,
                    {
                        "name": raw["name"],
                        "entityType": str(raw.get("entityType") or "thing"),
                        "observations": [o.strip() for o in observations if o.strip()],
                    },
                )
            )
        elif raw.get("type") == "relation":
            for key in ("from", "to", "relationType"):
                if not isinstance(raw.get(key), str) or not raw[key].strip():
                    raise InvalidInput(f"{where}: field {key!r} must be non-empty text")
            relations.append((where, raw))
        else:
            raise InvalidInput(f"{where}: field 'type' must be entity or relation")
    return entities, relations


def _tagged(where: str, item: Any, kind: str) -> tuple[str, dict[str, Any]]:
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: must be a JSON object")
    return where, {**item, "type": kind}


def _display(name: str) -> str:
    return name.replace("_", " ").strip()


def parse_paragraphs(text: str, name: str, source: str) -> list[Item]:
    """One memory per paragraph (blank-line separated); headings and rules alone are not memories."""
    items: list[Item] = []
    block: list[str] = []
    start = 0
    for number, line in enumerate([*text.splitlines(), ""], 1):
        if line.strip():
            if not block:
                start = number
            block.append(line.rstrip())
            continue
        body = [ln for ln in block if not _RULE.match(ln)]
        if body:
            items.append(
                Item(f"{name}, line {start}", "\n".join(body).strip(), {"source": source, "file": name, "line": start})
            )
        block = []
    return items


def parse_lines(text: str, name: str) -> list[Item]:
    """One memory per line, as ChatGPT and Claude list saved memories; bullets and numbers removed."""
    items = []
    for number, line in enumerate(text.splitlines(), 1):
        content = _BULLET.sub("", line).strip()
        if content and not _RULE.match(line):
            items.append(
                Item(f"{name}, line {number}", content, {"source": "memories list", "file": name, "line": number})
            )
    return items
