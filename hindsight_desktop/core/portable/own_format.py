"""The app's own export records: every column of a memory, its links and its history, read from one
consistent snapshot, and checked field by field when they come back in.

A memory record holds all columns of the memories table except the internal rowid, plus an
optional `embedding` ({"model", "dim", "data": base64 of little-endian float32}). Times stay in the
stored form (ISO 8601, UTC, "Z"), so a round trip changes nothing.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import apsw
import numpy as np

from hindsight_desktop.core import validate
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.records import LAYERS, SCOPES, STATUSES, MemoryFilter
from hindsight_desktop.core.store import events as event_log
from hindsight_desktop.core.store import memories as memory_rows
from hindsight_desktop.core.store import models, relations, upkeep, vectors
from hindsight_desktop.core.store.ids import content_hash
from hindsight_desktop.core.timeutil import parse_when, to_db

FORMAT = "hindsight-desktop"
VERSION = 1
FIELDS = (
    "id",
    "content",
    "summary",
    "layer",
    "type",
    "importance",
    "pinned",
    "client",
    "scope",
    "session_id",
    "status",
    "superseded_by",
    "created_at",
    "occurred_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "expires_at",
    "entities",
    "metadata",
    "content_hash",
    "fact_key",
    "fact_value",
    "stability",
    "reviewed_at",
)
LINK_FIELDS = ("source_id", "target_id", "type", "strength", "created_at")
EVENT_FIELDS = ("id", "at", "kind", "memory_id", "client", "detail")
_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
_CHUNK = 500


def count(db: apsw.Connection, filters: MemoryFilter | None) -> int:
    return memory_rows.count(db, filters or MemoryFilter())


def memories(db: apsw.Connection, filters: MemoryFilter | None, embeddings: bool) -> Iterator[dict[str, Any]]:
    """Memory records in rowid (creation) order, read in chunks."""
    tables = _vector_tables(db) if embeddings else []
    last = 0
    while True:
        rows = upkeep.columns_after(db, filters, FIELDS, last, _CHUNK)
        vectors = _vectors(db, tables, [r[0] for r in rows])
        for row in rows:
            record = dict(zip(FIELDS, row[1:], strict=True))
            record["pinned"] = bool(record["pinned"])
            record["entities"] = json.loads(record["entities"])
            record["metadata"] = json.loads(record["metadata"])
            if row[0] in vectors:
                record["embedding"] = vectors[row[0]]
            yield record
        if len(rows) < _CHUNK:
            return
        last = rows[-1][0]


def _vector_tables(db: apsw.Connection) -> list[models.ModelRow]:
    """The spaces to take vectors from, preferred first: the switch target, then the model in use."""
    state = models.read_state(db)
    return [row for row in (state.target, state.active) if row is not None]


def _vectors(db: apsw.Connection, tables: list[models.ModelRow], rowids: list[int]) -> dict[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    for model in tables:
        if not rowids or not models.table_exists(db, model.table):
            continue
        for rowid, blob in vectors.stored_vectors(db, model.table, rowids):
            found.setdefault(
                rowid, {"model": model.model_id, "dim": model.dim, "data": base64.b64encode(blob).decode("ascii")}
            )
    return found


def links(db: apsw.Connection, ids: set[str] | None) -> Iterator[dict[str, Any]]:
    """Links between exported memories (all links when nothing was filtered out)."""
    for row in relations.every(db):
        if ids is None or (row[0] in ids and row[1] in ids):
            yield dict(zip(LINK_FIELDS, row, strict=True))


def events(db: apsw.Connection, ids: set[str] | None) -> Iterator[dict[str, Any]]:
    """The event history of exported memories (the whole log when nothing was filtered out)."""
    for row in event_log.every(db):
        if ids is None or row[3] in ids:
            yield {**dict(zip(EVENT_FIELDS, row, strict=True)), "detail": json.loads(row[5])}


# ---- checking records that come back in -------------------------------------------------------


def check_memory(raw: Any, where: str) -> dict[str, Any]:
    """A memory record as it will be stored, or InvalidInput naming `where` and the field."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: a memory must be a JSON object")
    unknown = set(raw) - set(FIELDS) - {"embedding", "record"}
    if unknown:
        raise InvalidInput(f"{where}: unknown field {sorted(unknown)[0]!r}")
    try:
        return _checked(raw)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None


def _checked(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["id"] = _identifier(raw.get("id"), "id")
    out["content"] = validate.content(raw.get("content"))
    out["summary"] = _text(raw.get("summary"), "summary", 2000)
    out["layer"] = _required(validate.choice(raw.get("layer"), "layer", LAYERS), "layer")
    out["type"] = _required(validate.label(raw.get("type"), "type"), "type")
    out["importance"] = _required(validate.unit_interval(raw.get("importance"), "importance"), "importance")
    out["pinned"] = int(_flag(raw.get("pinned", False), "pinned"))
    out["client"] = validate.client_name(raw.get("client"))
    out["scope"] = _required(validate.choice(raw.get("scope"), "scope", SCOPES), "scope")
    out["session_id"] = _text(raw.get("session_id"), "session_id", 200)
    out["status"] = _required(validate.choice(raw.get("status", "active"), "status", STATUSES), "status")
    superseded = raw.get("superseded_by")
    out["superseded_by"] = None if superseded is None else _identifier(superseded, "superseded_by")
    for name in ("created_at", "occurred_at", "updated_at"):
        out[name] = to_db(parse_when(raw.get(name), name))
    for name in ("last_accessed_at", "expires_at", "reviewed_at"):
        out[name] = None if raw.get(name) is None else to_db(parse_when(raw[name], name))
    out["access_count"] = validate.positive_int(raw.get("access_count", 0), "access_count", low=0, high=10**9)
    out["entities"] = json.dumps(_entities(raw.get("entities", [])), ensure_ascii=False)
    out["metadata"] = json.dumps(validate.metadata(raw.get("metadata")), ensure_ascii=False)
    out["content_hash"] = content_hash(out["content"])  # derived: recomputed, never trusted
    out["fact_key"] = _text(raw.get("fact_key"), "fact_key", 400)
    out["fact_value"] = _text(raw.get("fact_value"), "fact_value", 400)
    stability = raw.get("stability", 1.0)
    if isinstance(stability, bool) or not isinstance(stability, int | float) or not 1.0 <= stability <= 1e6:
        raise InvalidInput("field 'stability' must be a number of 1 or more")
    out["stability"] = float(stability)
    out["embedding"] = _embedding(raw.get("embedding"))
    return out


def _required(value: Any, name: str) -> Any:
    if value is None:
        raise InvalidInput(f"field {name!r} is missing")
    return value


def _identifier(value: Any, name: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise InvalidInput(f"field {name!r} must be an id of 1-100 letters, digits, '_', '.', ':' or '-'")
    return value


def _text(value: Any, name: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise InvalidInput(f"field {name!r} must be text of at most {limit} characters")
    return value


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise InvalidInput(f"field {name!r} must be true or false")


def _entities(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list):
        raise InvalidInput("field 'entities' must be a list")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("kind", "text", "value")):
            raise InvalidInput(f"field 'entities[{i}]' must have text fields kind, text and value")
        out.append({k: item[k] for k in ("kind", "text", "value")})
    return out


def _embedding(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        vector = np.frombuffer(base64.b64decode(value["data"], validate=True), dtype="<f4")
        if vector.shape != (int(value["dim"]),) or not isinstance(value["model"], str):
            raise ValueError
    except (KeyError, TypeError, ValueError):
        raise InvalidInput("field 'embedding' must hold model, dim and base64 float32 data of that size") from None
    return {"model": value["model"], "vector": vector.astype(np.float32)}


def check_link(raw: Any, where: str) -> tuple[str, str, str, float, str]:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: a link must be a JSON object")
    try:
        kind = _required(validate.label(raw.get("type"), "type"), "type")
        strength = _required(validate.unit_interval(raw.get("strength", 1.0), "strength"), "strength")
        return (
            _identifier(raw.get("source_id"), "source_id"),
            _identifier(raw.get("target_id"), "target_id"),
            kind,
            strength,
            to_db(parse_when(raw.get("created_at"), "created_at")),
        )
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None


def check_event(raw: Any, where: str) -> tuple[int | None, str, str, str | None, str, str]:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: an event must be a JSON object")
    try:
        kind = _required(validate.label(raw.get("kind"), "kind"), "kind")
        memory = raw.get("memory_id")
        detail = raw.get("detail", {})
        if not isinstance(detail, dict):
            raise InvalidInput("field 'detail' must be a JSON object")
        event_id = raw.get("id")
        if event_id is not None and (isinstance(event_id, bool) or not isinstance(event_id, int)):
            raise InvalidInput("field 'id' must be a whole number")
        return (
            event_id,
            to_db(parse_when(raw.get("at"), "at")),
            kind,
            None if memory is None else _identifier(memory, "memory_id"),
            validate.client_name(raw.get("client")),
            json.dumps(detail, ensure_ascii=False),
        )
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
