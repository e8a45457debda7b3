"""The inbox table: writes that wait for the person (core/inbox/pending.py decides what goes in).

Its rows are never indexed (no keyword, vector or entity rows) and no recall, resource, export or stat
reads this table, so a pending text reaches no assistant; a reject deletes the row (the store runs with
secure_delete, and the caller checkpoints the WAL, as a purge does).

>>> add(db, item)                                                   # doctest: +SKIP
>>> [i.id for i in waiting(db)]                                     # doctest: +SKIP
['inb_0195…']
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import apsw

from hindsight_desktop.core.records import PendingItem
from hindsight_desktop.core.timeutil import from_db, to_db

_COLUMNS = (
    "id, client, content, type, claimed_type, scope, created_at, occurred_at, expires_at, reason, signals, repeats,"
    " importance, session_id, metadata"
)


def new_inbox_id() -> str:
    """Sortable by time, unique across processes, and never mistaken for a memory's id."""
    return f"inb_{int(time.time() * 1000):011x}{secrets.token_hex(4)}"


def _item(row: tuple[Any, ...]) -> PendingItem:
    (iid, client, content, kind, claimed, scope, created, occurred, expires, reason, signals, repeats) = row[:12]
    importance, session_id, metadata = row[12:]
    return PendingItem(
        id=iid,
        client=client,
        content=content,
        type=kind,
        claimed_type=claimed,
        scope=scope,
        created_at=from_db(created),
        occurred_at=from_db(occurred),
        expires_at=from_db(expires),
        reason=reason,
        signals=json.loads(signals),
        repeats=int(repeats),
        importance=importance,
        session_id=session_id,
        metadata=json.loads(metadata),
    )


def add(db: apsw.Connection, item: PendingItem, content_hash: str) -> None:
    db.execute(
        f"INSERT INTO inbox ({_COLUMNS}, content_hash) VALUES ({', '.join('?' * 16)})",
        (
            item.id,
            item.client,
            item.content,
            item.type,
            item.claimed_type,
            item.scope,
            to_db(item.created_at),
            to_db(item.occurred_at),
            to_db(item.expires_at),
            item.reason,
            json.dumps(item.signals, ensure_ascii=False),
            item.repeats,
            item.importance,
            item.session_id,
            json.dumps(item.metadata, ensure_ascii=False),
            content_hash,
        ),
    )


def same_waiting(db: apsw.Connection, content_hash: str, client: str, scope: str) -> str | None:
    """The id of the item this client already proposed with the same text and scope, if one waits."""
    row = db.execute(
        "SELECT id FROM inbox WHERE content_hash = ? AND client = ? AND scope = ? ORDER BY created_at LIMIT 1",
        (content_hash, client, scope),
    ).fetchone()
    return None if row is None else str(row[0])


def join(db: apsw.Connection, item_id: str) -> None:
    """One more proposal of the same text: counted on the item, never a second item."""
    db.execute("UPDATE inbox SET repeats = repeats + 1 WHERE id = ?", (item_id,))


def waiting(db: apsw.Connection, client: str | None = None) -> list[PendingItem]:
    """What waits, oldest first (the order to decide in); one client's only when `client` is given."""
    where, args = ("WHERE client = ?", (client,)) if client is not None else ("", ())
    rows = db.execute(f"SELECT {_COLUMNS} FROM inbox {where} ORDER BY created_at, id", args).fetchall()
    return [_item(row) for row in rows]


def get(db: apsw.Connection, item_id: str) -> PendingItem | None:
    row = db.execute(f"SELECT {_COLUMNS} FROM inbox WHERE id = ?", (item_id,)).fetchone()
    return None if row is None else _item(row)


def count(db: apsw.Connection) -> int:
    row = db.execute("SELECT count(*) FROM inbox").fetchone()
    assert row is not None  # an aggregate always has its row
    return int(row[0])


def expired(db: apsw.Connection, now: str) -> list[tuple[str, str]]:
    """(id, client) of every item whose time to be decided has passed."""
    return [(str(i), str(c)) for i, c in db.execute("SELECT id, client FROM inbox WHERE expires_at <= ?", (now,))]


def remove(db: apsw.Connection, item_id: str) -> None:
    db.execute("DELETE FROM inbox WHERE id = ?", (item_id,))
