"""Reads and writes of the sync tables (their schema and capture triggers: sync_capture.py)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import apsw

from hindsight_desktop.core.store.sync_capture import SYNCED_COLUMNS

_COLUMN_LIST = ", ".join(SYNCED_COLUMNS)


# ---- this device's settings and counters -------------------------------------------------------------
def get_local(db: apsw.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM sync_local WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_local(db: apsw.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO sync_local (key, value) VALUES (?, ?)", (key, value))


def set_capture(db: apsw.Connection, on: bool) -> None:
    """Whether the triggers log this connection's writes (off while applying another device's changes)."""
    set_local(db, "capture", "1" if on else "0")


def tick(db: apsw.Connection, now_ms: int) -> int:
    """The next clock value (as the triggers make it), for changes logged by hand."""
    db.execute(
        "UPDATE sync_local SET value = CAST(max(CAST(value AS INTEGER) + 1, ?) AS TEXT) WHERE key = 'hlc'", (now_ms,)
    )
    return int(get_local(db, "hlc") or 0)


def observe_clock(db: apsw.Connection, seen: int) -> None:
    """Move the clock past a value another device gave, so a later local change orders after it."""
    db.execute("UPDATE sync_local SET value = CAST(max(CAST(value AS INTEGER), ?) AS TEXT) WHERE key = 'hlc'", (seen,))


def forget_everything(db: apsw.Connection) -> None:
    """Leaving sync: every sync table emptied (the memories stay)."""
    for table in ("sync_local", "sync_outbox", "sync_versions", "sync_links", "sync_applied", "sync_files"):
        db.execute(f"DELETE FROM {table}")


# ---- the outbox the triggers fill --------------------------------------------------------------------
class Logged(NamedTuple):
    seq: int
    kind: str
    memory_id: str
    target_id: str | None
    rel_type: str | None
    groups: list[str]  # ["*"] for every group
    hlc: int


def outbox(db: apsw.Connection, limit: int) -> list[Logged]:
    rows = db.execute(
        "SELECT seq, kind, memory_id, target_id, rel_type, groups, hlc FROM sync_outbox ORDER BY seq LIMIT ?", (limit,)
    )
    out = []
    for seq, kind, memory_id, target, rel, groups, hlc in rows:
        parsed = json.loads(groups) if groups else []
        names = ["*"] if parsed == "*" else [g for g in parsed if g]
        out.append(Logged(seq, kind, memory_id, target, rel, names, int(hlc)))
    return out


def drop_outbox(db: apsw.Connection, upto: int) -> None:
    db.execute("DELETE FROM sync_outbox WHERE seq <= ?", (upto,))


def outbox_count(db: apsw.Connection) -> int:
    row = db.execute("SELECT count(*) FROM sync_outbox").fetchone()
    return int(row[0]) if row else 0


def log_purge(db: apsw.Connection, memory_id: str, hlc: int) -> None:
    db.execute("INSERT INTO sync_outbox (kind, memory_id, hlc) VALUES ('purge', ?, ?)", (memory_id, hlc))


def log_everything(db: apsw.Connection, hlc: int) -> int:
    """Every long-term memory and every link, as if just written (a device joining or setting up)."""
    db.execute(
        "INSERT INTO sync_outbox (kind, memory_id, groups, hlc) "
        "SELECT 'memory', id, '\"*\"', ? FROM memories WHERE layer != 'working' ORDER BY rowid",
        (hlc,),
    )
    count = db.changes()
    db.execute(
        "INSERT INTO sync_outbox (kind, memory_id, target_id, rel_type, hlc) "
        "SELECT 'link', source_id, target_id, type, ? FROM relations",
        (hlc,),
    )
    return count + db.changes()


# ---- the synced columns of memories ------------------------------------------------------------------
def memory_row(db: apsw.Connection, memory_id: str) -> tuple[int, dict[str, Any]] | None:
    """(rowid, the synced columns) of a memory, or None."""
    row = db.execute(f"SELECT rowid, {_COLUMN_LIST} FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None:
        return None
    return int(row[0]), dict(zip(SYNCED_COLUMNS, row[1:], strict=True))


def insert_memory(db: apsw.Connection, memory_id: str, values: dict[str, Any]) -> int:
    columns = [c for c in SYNCED_COLUMNS if c in values]
    marks = ", ".join("?" for _ in columns)
    db.execute(
        f"INSERT INTO memories (id, {', '.join(columns)}) VALUES (?, {marks})",
        (memory_id, *(values[c] for c in columns)),
    )
    return int(db.last_insert_rowid())


def update_memory(db: apsw.Connection, rowid: int, values: dict[str, Any]) -> None:
    if values:
        sets = ", ".join(f"{c} = ?" for c in values)
        db.execute(f"UPDATE memories SET {sets} WHERE rowid = ?", (*values.values(), rowid))


def existing(db: apsw.Connection, ids: Iterable[str]) -> set[str]:
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return set()
    marks = ", ".join("?" for _ in wanted)
    return {row[0] for row in db.execute(f"SELECT id FROM memories WHERE id IN ({marks})", wanted)}


def point_superseded(db: apsw.Connection) -> int:
    """Memories whose successor (as the status group set it) has arrived since point at it now."""
    db.execute(
        "UPDATE memories SET superseded_by = (SELECT v.superseded_by FROM sync_versions v WHERE v.memory_id = id) "
        "WHERE id IN (SELECT v.memory_id FROM sync_versions v JOIN memories m ON m.id = v.superseded_by "
        "WHERE v.purged IS NULL) AND superseded_by IS NOT "
        "(SELECT v.superseded_by FROM sync_versions v WHERE v.memory_id = id)"
    )
    return db.changes()


# ---- per-memory clocks and tombstones ----------------------------------------------------------------
class Version(NamedTuple):
    clocks: dict[str, tuple[int, str]]
    superseded_by: str | None
    purged: int | None  # the tombstone's clock


def version(db: apsw.Connection, memory_id: str) -> Version | None:
    row = db.execute(
        "SELECT clocks, superseded_by, purged FROM sync_versions WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    if row is None:
        return None
    clocks = {k: (int(v[0]), str(v[1])) for k, v in json.loads(row[0]).items()}
    return Version(clocks, row[1], None if row[2] is None else int(row[2]))


def save_version(db: apsw.Connection, memory_id: str, v: Version) -> None:
    db.execute(
        "INSERT OR REPLACE INTO sync_versions (memory_id, clocks, superseded_by, purged) VALUES (?, ?, ?, ?)",
        (memory_id, json.dumps({k: list(c) for k, c in v.clocks.items()}), v.superseded_by, v.purged),
    )


def all_versions(db: apsw.Connection) -> Iterator[tuple[str, Version]]:
    for memory_id, clocks, superseded_by, purged in db.execute(
        "SELECT memory_id, clocks, superseded_by, purged FROM sync_versions ORDER BY memory_id"
    ):
        parsed = {k: (int(v[0]), str(v[1])) for k, v in json.loads(clocks).items()}
        yield memory_id, Version(parsed, superseded_by, None if purged is None else int(purged))


# ---- links -------------------------------------------------------------------------------------------
class LinkState(NamedTuple):
    source_id: str
    target_id: str
    type: str
    hlc: int
    device: str
    present: bool
    strength: float
    created_at: str


def link_state(db: apsw.Connection, source: str, target: str, kind: str) -> LinkState | None:
    row = db.execute(
        "SELECT source_id, target_id, type, hlc, device, present, strength, created_at FROM sync_links "
        "WHERE source_id = ? AND target_id = ? AND type = ?",
        (source, target, kind),
    ).fetchone()
    return None if row is None else LinkState(row[0], row[1], row[2], int(row[3]), row[4], bool(row[5]), *row[6:])


def save_link_state(db: apsw.Connection, s: LinkState) -> None:
    db.execute("INSERT OR REPLACE INTO sync_links VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*s[:5], int(s.present), *s[6:]))


def all_link_states(db: apsw.Connection) -> list[LinkState]:
    rows = db.execute(
        "SELECT source_id, target_id, type, hlc, device, present, strength, created_at FROM sync_links ORDER BY 1, 2, 3"
    )
    return [LinkState(r[0], r[1], r[2], int(r[3]), r[4], bool(r[5]), *r[6:]) for r in rows]


def relation(db: apsw.Connection, source: str, target: str, kind: str) -> tuple[float, str] | None:
    row = db.execute(
        "SELECT strength, created_at FROM relations WHERE source_id = ? AND target_id = ? AND type = ?",
        (source, target, kind),
    ).fetchone()
    return None if row is None else (float(row[0]), str(row[1]))


def materialize_links(db: apsw.Connection) -> int:
    """Links whose two memories are both here now get their relation row; removed ones lose it."""
    db.execute(
        "INSERT OR REPLACE INTO relations (source_id, target_id, type, strength, created_at) "
        "SELECT l.source_id, l.target_id, l.type, l.strength, l.created_at FROM sync_links l "
        "JOIN memories a ON a.id = l.source_id JOIN memories b ON b.id = l.target_id "
        "WHERE l.present = 1 AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.source_id = l.source_id "
        "AND r.target_id = l.target_id AND r.type = l.type AND r.strength = l.strength)"
    )
    added = db.changes()
    db.execute(
        "DELETE FROM relations WHERE EXISTS (SELECT 1 FROM sync_links l WHERE l.present = 0 AND "
        "l.source_id = relations.source_id AND l.target_id = relations.target_id AND l.type = relations.type)"
    )
    return added + db.changes()


def drop_link_states_of(db: apsw.Connection, memory_id: str) -> None:
    db.execute("DELETE FROM sync_links WHERE source_id = ? OR target_id = ?", (memory_id, memory_id))


# ---- files applied here, and this device's own files -------------------------------------------------
def is_applied(db: apsw.Connection, device: str, seq: int) -> bool:
    return db.execute("SELECT 1 FROM sync_applied WHERE device = ? AND seq = ?", (device, seq)).fetchone() is not None


def mark_applied(db: apsw.Connection, device: str, seq: int) -> None:
    db.execute("INSERT OR IGNORE INTO sync_applied (device, seq) VALUES (?, ?)", (device, seq))


def mark_applied_upto(db: apsw.Connection, device: str, upto: int) -> None:
    """Every file of `device` up to `upto` counts as applied (a snapshot covered them): one row stands for
    them all, the rest are removed."""
    db.execute("DELETE FROM sync_applied WHERE device = ? AND seq <= ?", (device, upto))
    db.execute("INSERT OR IGNORE INTO sync_applied (device, seq) VALUES (?, ?)", (device, -upto))


def applied_upto(db: apsw.Connection) -> dict[str, int]:
    """For each device, the highest n such that all its files 1..n were applied here."""
    out: dict[str, int] = {}
    seqs: dict[str, list[int]] = {}
    for device, seq in db.execute("SELECT device, seq FROM sync_applied ORDER BY device, seq"):
        if seq <= 0:
            out[device] = max(out.get(device, 0), -int(seq))
        else:
            seqs.setdefault(device, []).append(int(seq))
    for device, numbers in seqs.items():
        mark = out.get(device, 0)
        for n in numbers:
            if n == mark + 1:
                mark = n
            elif n > mark + 1:
                break
        out[device] = mark
    return out


def add_own_file(db: apsw.Connection, seq: int, payload: bytes) -> None:
    db.execute("INSERT INTO sync_files (seq, payload) VALUES (?, ?)", (seq, payload))


def own_files(db: apsw.Connection, *, unwritten: bool = False) -> list[tuple[int, bytes]]:
    where = "WHERE written = 0" if unwritten else ""
    return [(int(s), bytes(p)) for s, p in db.execute(f"SELECT seq, payload FROM sync_files {where} ORDER BY seq")]


def set_own_file(db: apsw.Connection, seq: int, payload: bytes, written: bool) -> None:
    db.execute("UPDATE sync_files SET payload = ?, written = ? WHERE seq = ?", (payload, int(written), seq))


def drop_own_files_upto(db: apsw.Connection, seq: int) -> None:
    db.execute("DELETE FROM sync_files WHERE seq <= ?", (seq,))


def conflict_kept(db: apsw.Connection, memory_id: str, clock: list) -> bool:
    """Whether the losing text of this (clock, device) is already in the memory's history."""
    row = db.execute(
        "SELECT 1 FROM events WHERE memory_id = ? AND kind = 'sync-conflict' "
        "AND json_extract(detail, '$.clock') = json(?)",
        (memory_id, json.dumps(clock)),
    ).fetchone()
    return row is not None
