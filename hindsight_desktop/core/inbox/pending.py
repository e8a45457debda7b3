"""What waits in the inbox: a held write is redacted and scored like any write, then kept in the inbox
table (store/inbox.py) instead of memories, where no search, resource or export reaches it. The person
approves it (written then as its client wrote it, at the time it was proposed) or rejects it (deleted,
as a purge deletes); what nobody decides expires as rejected.

Approvals, rejections and expiries are events in the history; no event carries the text."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import NotFound
from hindsight_desktop.core.identities import PERSON
from hindsight_desktop.core.inbox.policy import Hold
from hindsight_desktop.core.records import PendingItem, WriteResult
from hindsight_desktop.core.store import inbox as table
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.ids import content_hash
from hindsight_desktop.core.text.extract import extract_entities, fact_key
from hindsight_desktop.core.timeutil import to_db
from hindsight_desktop.core.write.writer import WriteRequest, prepare, write


def propose(parts: Parts, request: WriteRequest, hold: Hold) -> WriteResult | None:
    """Keep a held write in the inbox (or join the same proposal already waiting). None when the client
    is on review but the gate would not keep the text anyway: the caller writes it as usual (working
    memory only), as it would for any client."""
    prepared = prepare(parts, request)
    req, text, redactions = prepared.req, prepared.text, prepared.redactions
    now, occurred = prepared.now, prepared.occurred
    metadata, session_id = req.metadata or {}, req.session_id
    entities = extract_entities(text, occurred)
    verdict = parts.scorer.score(text, importance=req.importance, entity_count=len(entities))
    kept_by_gate = verdict.passed or fact_key(text) is not None
    if hold.by_policy and not hold.reading.directive and not kept_by_gate:
        return None
    gate_type = verdict.type if verdict.type not in ("chatter", "question") else "note"
    kind = "instruction" if hold.reading.directive else (req.type or gate_type)
    signals = {
        **{k: round(v, 4) for k, v in verdict.signals.items()},
        "score": round(verdict.score, 4),
        "gate_type": verdict.type,
        "directive": hold.reading.cue,
    }
    digest = content_hash(text)
    with parts.store.write() as db:
        item_id = table.same_waiting(db, digest, req.client, req.scope)
        joined = item_id is not None
        if item_id is not None:
            table.join(db, item_id)
        else:
            item_id = table.new_inbox_id()
            item = PendingItem(
                id=item_id,
                client=req.client,
                content=text,
                type=kind,
                claimed_type=req.type,
                scope=req.scope,
                created_at=now,
                occurred_at=occurred,
                expires_at=now + timedelta(days=parts.settings.inbox_expire_days),
                reason=hold.reason,
                signals=signals,
                importance=req.importance,
                session_id=session_id,
                metadata=metadata,
            )
            table.add(db, item, digest)
        # The change signal other processes watch (the app's inbox); the id and the type, never the text.
        detail = {"inbox_id": item_id, "type": kind, "directive": hold.reading.cue, "joined": joined}
        log_event(db, to_db(now), "propose", None, req.client, detail)
    return WriteResult(
        id=item_id,
        stored=False,
        layer="inbox",
        score=round(verdict.score, 4),
        signals={k: round(v, 4) for k, v in verdict.signals.items()},
        redactions=redactions,
        reason=hold.reason,
        pending=True,
        inbox_id=item_id,
    )


def waiting(parts: Parts, client: str | None = None) -> list[PendingItem]:
    with parts.store.read() as db:
        return table.waiting(db, client)


def count(parts: Parts) -> int:
    with parts.store.read() as db:
        return table.count(db)


def _get(parts: Parts, item_id: str) -> PendingItem:
    with parts.store.read() as db:
        item = table.get(db, item_id)
    if item is None:
        raise NotFound(f"no inbox item {item_id!r} (it may have been approved, rejected or expired already)")
    return item


def approve(parts: Parts, item_id: str) -> WriteResult:
    """Write the item as its client proposed it, dated when it was proposed; then it leaves the inbox."""
    item = _get(parts, item_id)
    request = WriteRequest(
        content=item.content,
        client=item.client,
        type=item.type,
        importance=item.importance,
        metadata=item.metadata,
        occurred_at=item.occurred_at,
        session_id=item.session_id,
        scope=item.scope,
        explicit=True,  # the person chose to keep it
    )
    now = parts.clock()
    proposed = item.created_at
    result = write(replace(parts, clock=lambda: proposed), request)
    with parts.store.write() as db:
        table.remove(db, item.id)
        log_event(db, to_db(now), "approve", result.id, PERSON, {"inbox_id": item.id, "client": item.client})
    return result


def reject(parts: Parts, item_id: str, *, kind: str = "reject") -> str:
    """Delete the item (the caller checkpoints the WAL, as after a purge); `kind` is the event: reject or expire."""
    item = _get(parts, item_id)
    with parts.store.write() as db:
        table.remove(db, item.id)
        log_event(db, to_db(parts.clock()), kind, None, PERSON, {"inbox_id": item.id, "client": item.client})
    return item.id


def expire(parts: Parts, now: datetime) -> list[str]:
    """Reject, as expired, every item whose time has passed; the ids that went."""
    with parts.store.read() as db:
        due = table.expired(db, to_db(now))
    gone: list[str] = []
    for item_id, _client in due:
        try:
            gone.append(reject(parts, item_id, kind="expire"))
        except NotFound:  # another process decided it meanwhile
            continue
    return gone
