"""Forgetting: soft by default (archived to cold storage, restorable); purge deletes for good."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import apsw

from hindsight_desktop.core import validate
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.index import keyword, own_text
from hindsight_desktop.core.maintenance import purge as purging
from hindsight_desktop.core.records import ForgetReceipt, Memory
from hindsight_desktop.core.store import events, supersession, upkeep
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.memories import load_memory, reactivate, restore_status
from hindsight_desktop.core.text.language import dominant_language
from hindsight_desktop.core.timeutil import to_db

# An assistant's forget by condition archives at most this many memories per call (oldest first) and
# says how many it left: a prompt-injected assistant cannot empty the memory in one call, and the
# person can undo the whole batch.
BULK_ARCHIVE_CAP = 50


@dataclass
class ForgetRequest:
    client: str  # who asks (recorded in the event log; private memories of others stay out of reach)
    ids: list[str] | None = None
    older_than_days: float | None = None
    layer: str | None = None
    type: str | None = None
    below_importance: float | None = None
    written_by: str | None = None
    query: str | None = None
    purge: bool = False
    sees_all: bool = False  # the person at the desktop may act on every client's memories
    purge_any: bool = False  # the person allows assistants to purge (by id) what others wrote

    @classmethod
    def checked(
        cls,
        client: str,
        sees_all: bool,
        purge_any: bool,
        *,
        ids: list[str] | str | None,
        older_than_days: float | None,
        layer: str | None,
        type: str | None,
        below_importance: float | None,
        written_by: str | None,
        query: str | None,
        purge: bool,
    ) -> ForgetRequest:
        """A request from a caller's values, each checked (InvalidInput names the bad one)."""
        return cls(
            client=client,
            ids=None if ids is None else validate.text_list(ids, "memory_id", max_items=validate.MAX_IDS),
            older_than_days=validate.days(older_than_days, "older_than_days"),
            layer=validate.layer(layer),
            type=validate.label(type, "type"),
            below_importance=validate.unit_interval(below_importance, "below_importance"),
            written_by=written_by,
            query=None if query is None else validate.query(query),
            purge=bool(purge),
            sees_all=sees_all,
            purge_any=purge_any,
        )

    def has_condition(self) -> bool:
        return any(
            v is not None
            for v in (
                self.ids,
                self.older_than_days,
                self.layer,
                self.type,
                self.below_importance,
                self.written_by,
                self.query,
            )
        )


def select(parts: Parts, db: apsw.Connection, req: ForgetRequest, now: datetime) -> list[tuple[int, str]]:
    """The (rowid, id) of every memory matching all the conditions. Unknown ids are an error."""
    if not req.has_condition():
        raise InvalidInput("forget needs at least one condition (an id, an age, a type, an importance or a query)")
    if req.purge and not req.sees_all:
        _check_assistant_purge(req)
    viewer = None if req.sees_all else req.client
    rowids = None
    if req.ids is not None:
        if not req.ids:
            raise InvalidInput("ids is an empty list")
        rowids = [load_memory(db, mid, viewer)[0] for mid in req.ids]  # NotFound names the bad id
    older = None if req.older_than_days is None else to_db(now - timedelta(days=req.older_than_days))
    rows = upkeep.forget_matches(
        db,
        viewer=viewer,
        rowids=rowids,
        occurred_before=older,
        layer=req.layer,
        type=req.type,
        below_importance=req.below_importance,
        written_by=req.written_by,
        include_archived=req.purge,
        include_pinned=req.ids is not None,
    )  # a sweeping condition never takes what the person pinned
    if req.query is not None:
        matching = _matching_query(parts, db, req.query, {r.rowid for r in rows})
        rows = [r for r in rows if r.rowid in matching]
    if req.purge and not req.sees_all:
        for row in rows:
            _check_purge_target(req, row.id, row.client, bool(row.pinned))
    return [(int(row.rowid), str(row.id)) for row in rows]


def within_cap(req: ForgetRequest, targets: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """What one call may archive: an assistant's sweeping condition takes the oldest BULK_ARCHIVE_CAP."""
    if req.sees_all or req.ids is not None:
        return targets
    return targets[:BULK_ARCHIVE_CAP]


def _check_assistant_purge(req: ForgetRequest) -> None:
    """An assistant deletes for good only what it names by id; a condition could sweep in anything."""
    if req.ids is None or any(
        v is not None
        for v in (req.older_than_days, req.layer, req.type, req.below_importance, req.written_by, req.query)
    ):
        raise InvalidInput(
            "purge works only on explicit memory ids, with no other condition; forgetting by "
            "condition archives (restorable): call again without purge"
        )


def _check_purge_target(req: ForgetRequest, memory_id: str, writer: str, pinned: bool) -> None:
    if pinned:
        raise InvalidInput(
            f"memory {memory_id} is pinned by the person; an assistant cannot delete it for "
            "good (archive it instead, or ask the person to delete it in the app)"
        )
    if writer != req.client and not req.purge_any:
        raise InvalidInput(
            f"memory {memory_id} was written by {writer}, not by {req.client}; an assistant may "
            "delete for good only what it wrote (archive it instead: the person can restore it)"
        )


def _matching_query(parts: Parts, db: apsw.Connection, text: str, among: set[int]) -> set[int]:
    """Those of `among` (what the other conditions kept) whose own text contains every word of the
    query, and any memory that says the same thing (a cosine at the duplicate bar): forgetting must never
    sweep in what is merely about something similar, nor follow the terms the index adds to a memory
    (its date in words, entity values: own_text.py)."""
    found: set[int] = set()
    terms = keyword.query_terms(text)
    if terms:
        expr = keyword.match_expression(terms, "AND")
        # Only the memories the other conditions kept are read again (the caller's, not the whole index).
        found.update(own_text.matching(db, [r for r in keyword.matching(db, expr) if r in among], expr))
    # Embedded as a statement, compared on the model's measured memory-to-memory scale with the bar the
    # write path uses for repeats: only a memory that says the same thing qualifies, in any model or script.
    vector = parts.embed([text], "passage")[0]
    bar, language = parts.settings.duplicate_similarity, dominant_language(text)
    found.update(
        r
        for r, cosine in parts.vectors.nearest(db, vector, 200)
        if parts.calibration.closeness(cosine, language) >= bar
    )
    return found


def archive(db: apsw.Connection, targets: list[tuple[int, str]], client: str, now: datetime) -> ForgetReceipt:
    """Archive the targets as one batch: every event names it, so the whole forget can be undone at once.
    What the archived memories had replaced becomes current again (store/supersession.py): a forgotten
    statement hides nothing."""
    batch = f"fb_{secrets.token_hex(6)}" if targets else None
    at = to_db(now)
    for rowid, memory_id, status in upkeep.statuses(db, targets):
        upkeep.archive(db, [rowid], at)
        # `was`: the status an undo gives back (a superseded memory stays history).
        log_event(db, at, "forget", memory_id, client, {"mode": "archive", "batch": batch, "was": status})
    supersession.release(db, [mid for _, mid in targets], at, client, "its successor was forgotten")
    return ForgetReceipt(forgotten=[mid for _, mid in targets], mode="archive", batch=batch)


def batch_members(db: apsw.Connection, batch: str) -> list[tuple[int, str]]:
    """(rowid, id) of the memories a forget batch archived that are still archived."""
    return [(row.rowid, row.id) for row in events.archived_in_batch(db, batch)]


def purge(
    parts: Parts, db: apsw.Connection, targets: list[tuple[int, str]], client: str, now: datetime
) -> ForgetReceipt:
    """Delete the targets for good, with every copy derived from them (see purge.py)."""
    return purging.purge(parts, db, targets, client, now)


# ---- the engine's forget, and bringing memories back ------------------------------------------------


def run(parts: Parts, req: ForgetRequest, now: datetime) -> ForgetReceipt:
    """Select what `req` names and archive it (within the assistants' cap) or purge it, in one transaction."""
    with parts.store.write() as db:
        targets = select(parts, db, req, now)
        if req.purge:
            receipt = purge(parts, db, targets, req.client, now)
        else:
            receipt = archive(db, within_cap(req, targets), req.client, now)
    receipt.matched, receipt.left = len(targets), len(targets) - len(receipt.forgotten)
    return receipt


def undo(parts: Parts, batch: str, client: str, now: datetime) -> list[Memory]:
    """Bring back every memory of one archive batch that is still archived; those memories. Each gets
    the status it had when archived, and a statement that was current takes its place again
    (store/supersession.py reclaim): what its forgetting made current is superseded once more."""
    at = to_db(now)
    with parts.store.write() as db:
        members = events.archived_in_batch(db, batch)
        for member in members:
            restore_status(db, member.rowid, member.was, at)
            log_event(db, at, "restore", member.id, client, {"from": "archived", "batch": batch})
        supersession.reclaim(db, [m.id for m in members], at, client)
        return [load_memory(db, m.id)[1] for m in members]


def restore(parts: Parts, memory_id: str, client: str, now: datetime) -> Memory:
    """Bring one archived or superseded memory back into normal recall. One back from the archive takes
    its place among the statements of its fact (the latest made is current); one the person restores
    from superseded is current because the person says so."""
    at = to_db(now)
    with parts.store.write() as db:
        _, memory = load_memory(db, memory_id)
        if memory.status == "active":
            raise InvalidInput(f"memory {memory_id} is already active")
        reactivate(db, memory.id, at)
        log_event(db, at, "restore", memory_id, client, {"from": memory.status})
        if memory.status == "archived":
            supersession.reclaim(db, [memory.id], at, client)
        return load_memory(db, memory_id)[1]
