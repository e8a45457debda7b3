"""Changes made by hand to memories already stored: an edit of their fields, a link between two.

An edited text is redacted, re-extracted, re-embedded and re-indexed like a new one; every change is
logged, with text fields by length only (events.edit_detail).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from hindsight_desktop.core import validate
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.records import Link, Memory
from hindsight_desktop.core.redact.text import redact_secrets
from hindsight_desktop.core.store import entities as entity_index
from hindsight_desktop.core.store import relations
from hindsight_desktop.core.store.events import edit_detail, log_event
from hindsight_desktop.core.store.memories import load_memory, update_fields
from hindsight_desktop.core.text.extract import extract_entities
from hindsight_desktop.core.timeutil import from_db, parse_when, to_db


def requested(
    personal_ids: bool,
    *,
    content: str | None,
    type: str | None,
    importance: float | None,
    pinned: bool | None,
    summary: str | None,
    scope: str | None = None,
    occurred_at: datetime | str | None = None,
) -> dict[str, Any]:
    """The checked column values of an edit (texts redacted, `personal_ids` as the settings say, the
    date stored as UTC text); InvalidInput when a value is bad or nothing is asked."""
    changes: dict[str, Any] = {}
    if content is not None:
        changes["content"], _ = redact_secrets(validate.content(content), personal_ids)
    if type is not None:
        changes["type"] = validate.label(type, "type")
    if importance is not None:
        changes["importance"] = validate.unit_interval(importance, "importance")
    if pinned is not None:
        changes["pinned"] = int(bool(pinned))
    if summary is not None:
        checked = validate.optional_text(summary, "summary", 2000)
        changes["summary"] = checked and redact_secrets(checked, personal_ids)[0]
    if scope is not None:
        changes["scope"] = validate.scope(scope)
    if occurred_at is not None:
        changes["occurred_at"] = to_db(parse_when(occurred_at, "occurred_at"))
    if not changes:
        raise InvalidInput("edit needs at least one of content, type, importance, pinned, summary, scope, occurred_at")
    return changes


def edit(
    parts: Parts, memory_id: str, client: str, requested: dict[str, Any], now: datetime, owner: str | None = None
) -> Memory:
    """Apply checked changes (see `requested`) to one memory; the memory as it is afterwards. With an
    `owner`, only a memory that client wrote: another's private memory is not found, another's shared
    one is refused (its words are not the editor's to change). New content or a new date re-extracts
    the entities (relative dates are read against the date) and re-indexes the words; only new content
    is re-embedded."""
    changes = dict(requested)  # a retry after a model switch starts from what was asked
    vector = parts.embed([changes["content"]])[0] if "content" in changes else None
    with parts.store.write() as db:
        rowid, before = load_memory(db, memory_id, owner)
        if owner is not None and before.client != owner:
            raise InvalidInput(
                f"memory {before.id} was written by {before.client}, not by {owner}; a client may "
                "edit only what it wrote"
            )
        if "content" in changes or "occurred_at" in changes:
            text = changes.get("content", before.content)
            when = from_db(changes["occurred_at"]) if "occurred_at" in changes else before.occurred_at
            entities = extract_entities(text, when)
            changes["entities"] = json.dumps([asdict(e) for e in entities], ensure_ascii=False)
            keyword.delete(db, rowid)
            entity_index.unindex(db, rowid)
            if before.layer != "working":  # working memory is never indexed
                keyword.add(db, rowid, text, [(e.kind, e.value) for e in entities], when)
                entity_index.index(db, rowid, entities, when)
                if vector is not None:
                    parts.vectors.add(db, rowid, vector)
        elif "scope" in changes and before.layer != "working":
            # Who sees it changed: its words are indexed again, so that every connection's keyword
            # statistics, kept until the index changes (keyword_stats.view), count it for the right viewers.
            keyword.delete(db, rowid)
            keyword.add(db, rowid, before.content, [(e.kind, e.value) for e in before.entities], before.occurred_at)
        update_fields(db, rowid, changes, to_db(now))
        log_event(db, to_db(now), "edit", memory_id, client, edit_detail(changes, before))
        return load_memory(db, memory_id)[1]


def link(
    parts: Parts,
    source_id: str,
    target_id: str,
    kind: str,
    strength: float,
    client: str | None,
    logged_as: str,
    now: datetime,
) -> Link:
    """Connect two memories, both visible to `client` (None: the person), replacing a link of the same
    type between them; the event names `logged_as`."""
    if source_id == target_id:
        raise InvalidInput("a memory cannot be linked to itself")
    with parts.store.write() as db:
        load_memory(db, source_id, client)
        load_memory(db, target_id, client)
        relations.link(db, source_id, target_id, kind, strength, to_db(now), replace=True)
        log_event(db, to_db(now), "link", source_id, logged_as, {"target": target_id, "type": kind})
    return Link(source_id, target_id, kind, float(strength), now)
