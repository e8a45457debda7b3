"""The relations table: directed, typed links between memories (by id), each with a strength.

Types written by the core: `similar`, `shares_entity`, `same_session` (the write path), `supersedes`
(a newer statement over an older one), `merged_from` (a merge survivor over what it absorbed),
`derived_from` (a semantic memory over its evidence); a person or an assistant may add any other.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

import apsw

from hindsight_desktop.core.records import Link
from hindsight_desktop.core.store import values
from hindsight_desktop.core.timeutil import parse_when

COLUMNS = "source_id, target_id, type, strength, created_at"
LinkRow = tuple[str, str, str, float, str]  # source, target, type, strength, created_at (database form)


def _insert(replace: bool) -> str:
    # REPLACE where the newest statement of a link must win (a supersede, a merge, a person's link);
    # IGNORE where an existing link is kept as it was (automatic links, evidence, imports).
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    return f"{verb} INTO relations ({COLUMNS}) VALUES (?, ?, ?, ?, ?)"


def link(
    db: apsw.Connection, source: str, target: str, type: str, strength: float, at: str, *, replace: bool = False
) -> int:
    """Link `source` to `target`; returns 1 when a row was written, 0 when an existing one was kept."""
    db.execute(_insert(replace), (source, target, type, strength, at))
    return db.changes()


def link_many(db: apsw.Connection, rows: Iterable[LinkRow], *, replace: bool = False) -> None:
    """Several links at once, each (source, target, type, strength, created_at)."""
    db.executemany(_insert(replace), list(rows))


def copy_links(db: apsw.Connection, to_id: str, from_id: str) -> None:
    """Every link of `from_id`, in either direction, also made for `to_id` (keeping its type, strength
    and date; never a link of `to_id` to itself). The originals stay."""
    db.execute(
        f"INSERT OR IGNORE INTO relations ({COLUMNS}) SELECT ?, target_id, type, strength, created_at "
        "FROM relations WHERE source_id = ? AND target_id != ?",
        (to_id, from_id, to_id),
    )
    db.execute(
        f"INSERT OR IGNORE INTO relations ({COLUMNS}) SELECT source_id, ?, type, strength, created_at "
        "FROM relations WHERE target_id = ? AND source_id != ?",
        (to_id, from_id, to_id),
    )


def links_of(db: apsw.Connection, memory_id: str) -> list[Link]:
    """Every link from or to the memory, oldest first."""
    rows = db.execute(
        f"SELECT {COLUMNS} FROM relations WHERE source_id = ? OR target_id = ? ORDER BY created_at",
        (memory_id, memory_id),
    )
    return [Link(s, t, k, float(w), parse_when(c)) for s, t, k, w, c in rows]


def count(db: apsw.Connection) -> int:
    return values.number(db, "SELECT count(*) FROM relations")


def evidence_for(db: apsw.Connection, memory_id: str) -> int | None:
    """The rowid of the active semantic memory that holds this memory as evidence (`derived_from`), if any."""
    row = db.execute(
        "SELECT s.rowid FROM relations r JOIN memories s ON s.id = r.source_id WHERE r.target_id = ? "
        "AND r.type = 'derived_from' AND s.status = 'active' LIMIT 1",
        (memory_id,),
    ).fetchone()
    return None if row is None else int(row[0])


def has_evidence(db: apsw.Connection, memory_id: str) -> bool:
    """Whether the memory is a consolidated fact (it has `derived_from` links to its statements)."""
    return (
        db.execute(
            "SELECT 1 FROM relations WHERE source_id = ? AND type = 'derived_from' LIMIT 1", (memory_id,)
        ).fetchone()
        is not None
    )


def unlink_all(db: apsw.Connection, memory_id: str) -> int:
    """Delete every link from or to the memory (a purge); returns how many."""
    db.execute("DELETE FROM relations WHERE source_id = ? OR target_id = ?", (memory_id, memory_id))
    return db.changes()


def every(db: apsw.Connection) -> Iterator[LinkRow]:
    """Every link (database form), oldest first, read as it is consumed."""
    yield from db.execute(f"SELECT {COLUMNS} FROM relations ORDER BY created_at, source_id")


def drop_dangling(db: apsw.Connection) -> int:
    """Delete links from or to a memory that no longer exists; returns how many."""
    db.execute(
        "DELETE FROM relations WHERE source_id NOT IN (SELECT id FROM memories) "
        "OR target_id NOT IN (SELECT id FROM memories)"
    )
    return db.changes()


# ---- what a purge follows: copies, borrowers and evidence of a memory ------------------------------

# A semantic memory `m` that consolidation made from the memory id bound to the next parameter.
_CONSOLIDATED_FROM = (
    "m.layer = 'semantic' AND EXISTS (SELECT 1 FROM json_each(m.metadata, '$.consolidated_from') WHERE value = ?)"
)


class Derived(NamedTuple):
    id: str
    content: str


class Relative(NamedTuple):
    """A memory linked from another by `merged_from` or `derived_from`, as re-deriving reads it."""

    entities: str
    metadata: str
    type: str
    id: str
    client: str
    superseded_by: str | None


def absorbed_by(db: apsw.Connection, memory_id: str, client: str) -> list[str]:
    """Ids of the client's memories merged into `memory_id` that still point at it."""
    rows = db.execute(
        "SELECT m.id FROM relations r JOIN memories m ON m.id = r.target_id WHERE r.source_id = ? "
        "AND r.type = 'merged_from' AND m.superseded_by = ? AND m.client = ?",
        (memory_id, memory_id, client),
    )
    return [i for (i,) in rows]


def consolidated_from(db: apsw.Connection, memory_id: str, client: str) -> list[Derived]:
    """The client's semantic memories that consolidation made from `memory_id` (it is their evidence)."""
    rows = db.execute(
        f"SELECT m.id, m.content FROM relations r JOIN memories m ON m.id = r.source_id WHERE r.target_id = ? "
        f"AND r.type = 'derived_from' AND m.client = ? AND {_CONSOLIDATED_FROM}",
        (memory_id, client, memory_id),
    )
    return [Derived(*row) for row in rows]


def borrowers(db: apsw.Connection, memory_id: str) -> list[int]:
    """Rowids of memories of the same client that took entities or metadata from `memory_id`: the
    survivor it was merged into, or a semantic memory that lists it as evidence. A link made by hand
    (memory_link) names no borrowing."""
    rows = db.execute(
        f"SELECT m.rowid FROM relations r JOIN memories m ON m.id = r.source_id JOIN memories p ON p.id = ? "
        f"WHERE r.target_id = p.id AND m.client = p.client AND ((r.type = 'merged_from' AND "
        f"p.superseded_by = m.id) OR (r.type = 'derived_from' AND {_CONSOLIDATED_FROM}))",
        (memory_id, memory_id),
    )
    return [int(r) for (r,) in rows]


def superseded_evidence(db: apsw.Connection, memory_id: str) -> list[str]:
    """Ids of the statements consolidated into `memory_id` that it still supersedes."""
    rows = db.execute(
        "SELECT m.id FROM relations r JOIN memories m ON m.id = r.target_id WHERE r.source_id = ? "
        "AND r.type = 'derived_from' AND m.superseded_by = ? AND m.status = 'superseded'",
        (memory_id, memory_id),
    )
    return [i for (i,) in rows]


def merged_or_derived(db: apsw.Connection, memory_id: str) -> list[Relative]:
    """The memories `memory_id` links to by `merged_from` or `derived_from`."""
    rows = db.execute(
        "SELECT m.entities, m.metadata, r.type, m.id, m.client, m.superseded_by FROM relations r "
        "JOIN memories m ON m.id = r.target_id WHERE r.source_id = ? AND r.type IN ('merged_from', "
        "'derived_from')",
        (memory_id,),
    )
    return [Relative(*row) for row in rows]


def strengths_touching(db: apsw.Connection, ids: list[str]) -> list[tuple[str, str, float]]:
    """(source, target, strength) of every link from or to one of `ids`, except `supersedes` links."""
    marks = values.marks(ids)
    rows = db.execute(
        f"SELECT source_id, target_id, strength FROM relations WHERE source_id IN ({marks}) "
        f"AND type != 'supersedes' UNION ALL SELECT source_id, target_id, strength FROM relations "
        f"WHERE target_id IN ({marks}) AND type != 'supersedes'",
        (*ids, *ids),
    )
    return [(str(s), str(t), float(w)) for s, t, w in rows]
