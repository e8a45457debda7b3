"""Plain data records the engine returns. Times are aware UTC datetimes inside the engine."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.store.visibility import visible_to
from hindsight_desktop.core.timeutil import to_db

LAYERS = ("working", "episodic", "semantic", "procedural")
STATUSES = ("active", "archived", "superseded")
SCOPES = ("private", "shared")
# Export format name (also the file suffix) -> what a person reads in a file dialog (portable/export_formats.py
# holds one writer for each).
EXPORT_FORMATS = {"json": "JSON", "jsonl": "JSON Lines", "md": "Markdown", "csv": "CSV"}


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a trailing Z, the form used at every edge."""
    if value is None:
        return None
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


@dataclass
class Entity:
    """Something named in a memory: a person, place, organisation, date, number or code."""

    kind: str  # one of store/entities.py KINDS: person, place, org, date, time, number, code, email, url, phone
    text: str  # as written
    value: str  # normalised (lower-cased name, ISO date, digits)


@dataclass
class Memory:
    id: str
    content: str
    layer: str
    type: str
    importance: float
    pinned: bool
    client: str
    scope: str
    status: str
    created_at: datetime
    occurred_at: datetime
    summary: str | None = None
    session_id: str | None = None
    superseded_by: str | None = None
    last_accessed_at: datetime | None = None
    access_count: int = 0
    expires_at: datetime | None = None
    entities: list[Entity] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    updated_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


@dataclass
class WriteResult:
    """What happened to one write. `stored` is False when it stayed in working memory only."""

    id: str
    stored: bool
    layer: str
    score: float
    signals: dict[str, float]
    duplicate_of: str | None = None
    supersedes: list[str] = field(default_factory=list)
    redactions: int = 0
    reason: str = ""
    # True when it waits in the person's inbox (core/inbox/): stored is then False and id is the inbox id.
    pending: bool = False
    inbox_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


EXPIRES_SOON_DAYS = 3  # the inbox marks what will be rejected unseen within this many days


@dataclass
class PendingItem:
    """A write that waits for the person's approval in the inbox: never recalled until approved."""

    id: str
    client: str
    content: str
    type: str  # the product's own reading: "instruction" for a directive, else the gate's type
    claimed_type: str | None  # the type the client gave, if any
    scope: str
    created_at: datetime
    occurred_at: datetime
    expires_at: datetime  # rejected at this time unless the person decides before
    reason: str  # why it waits, in a sentence
    signals: dict[str, Any] = field(default_factory=dict)  # the gate's signals and the directive cue
    repeats: int = 0  # the same text proposed again by the same client joined this item
    importance: float | None = None
    session_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def expires_soon(self, now: datetime) -> bool:
        """Within the last few days before it is rejected unseen: the inbox marks it."""
        return (self.expires_at - now).total_seconds() < EXPIRES_SOON_DAYS * 86400

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


@dataclass
class SearchHit:
    memory: Memory
    relevance: float
    scores: dict[str, float] = field(default_factory=dict)  # per-signal breakdown ("why")
    rank: int = 0
    confidence: float = 0.0  # how likely it answers the question (confidence.py), 0-1
    # False for a memory listed only as one of the nearest in meaning, below the evidence floor
    # (recall/hybrid.py NEAREST_KEPT): shown, but not counted as a use or as a search that found something.
    evidenced: bool = True

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        m = self.memory
        out: dict[str, Any] = {
            "id": m.id,
            "content": m.content,
            "type": m.type,
            "layer": m.layer,
            "relevance": round(self.relevance, 4),
            "confidence": round(self.confidence, 4),
            "created_at": iso(m.created_at),
            "occurred_at": iso(m.occurred_at),
            "status": m.status,
            "importance": m.importance,
            "pinned": m.pinned,
            "client": m.client,
            "scope": m.scope,
        }
        if explain:
            out["scores"] = {k: round(v, 4) for k, v in self.scores.items()}
        return out


@dataclass
class SearchResult:
    query: str
    hits: list[SearchHit]

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        return {"query": self.query, "results": [h.to_dict(explain) for h in self.hits]}


@dataclass
class Link:
    source_id: str
    target_id: str
    type: str
    strength: float
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


@dataclass
class ForgetReceipt:
    """What a forget did. For a purge, `removed` counts the rows deleted per table."""

    forgotten: list[str]
    mode: str  # "archive" or "purge"
    removed: dict[str, int] = field(default_factory=dict)
    matched: int = 0  # how many memories met the conditions (more than `forgotten` when a cap applied)
    left: int = 0  # matched but left alone by the per-call cap
    batch: str | None = None  # an archive's batch id: `MemoryEngine.undo_forget(batch)` restores it all
    # A purge's WAL checkpoint: True when the WAL was emptied; False when another process's open read
    # kept old pages in it (a later checkpoint overwrites them). None for an archive.
    wal_cleared: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Event:
    id: int
    at: datetime
    kind: str  # write, reinforce, supersede, edit, link, forget, restore, purge, pin
    memory_id: str | None
    client: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))


@dataclass
class MemoryFilter:
    """What a timeline or an export shows. Empty fields mean "any"."""

    layers: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    written_by: tuple[str, ...] = ()  # client names
    statuses: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    pinned: bool | None = None
    viewer: str | None = None  # a client: other clients' private memories stay hidden
    ids: tuple[str, ...] = ()  # only these memories (an export of the selection)

    def sql(self) -> tuple[str, list[Any]]:
        """A WHERE clause over the memories table aliased `m`, with its arguments."""
        clauses: list[str] = ["1"]
        args: list[Any] = []
        for column, values, allowed in (
            ("layer", self.layers, LAYERS),
            ("type", self.types, None),
            ("client", self.written_by, None),
            ("status", self.statuses, STATUSES),
        ):
            if not values:
                continue
            if allowed is not None and any(v not in allowed for v in values):
                raise InvalidInput(f"{column} must be among {', '.join(allowed)}")
            clauses.append(f"m.{column} IN ({','.join('?' * len(values))})")
            args.extend(values)
        if self.since is not None:
            clauses.append("m.occurred_at >= ?")
            args.append(to_db(self.since))
        if self.until is not None:
            clauses.append("m.occurred_at <= ?")
            args.append(to_db(self.until))
        if self.pinned is not None:
            clauses.append("m.pinned = ?")
            args.append(int(self.pinned))
        if self.ids:
            clauses.append(f"m.id IN ({','.join('?' * len(self.ids))})")
            args.extend(self.ids)
        if self.viewer is not None:
            visible, viewer = visible_to(self.viewer)
            clauses.append(visible)
            args.extend(viewer)
        return " AND ".join(clauses), args


@dataclass
class Finding:
    """One diagnosis check's outcome (the doctor's lines). `skipped` is not a failure: the check could
    not run here."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    skipped: bool = False
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# What an edit changed, in words (the fields of an edit event's detail; previous_content is the old text).
EDIT_WORDS = {
    "content": "changed the text",
    "summary": "changed the summary",
    "type": "changed the type",
    "importance": "changed how much it matters",
    "scope": "changed who sees it",
    "occurred_at": "changed when it happened",
}


def edit_words(detail: dict[str, Any]) -> str:
    """An edit event's changes as plain words: "changed who sees it, changed when it happened"."""
    words = []
    for name, value in detail.items():
        if name == "previous_content":
            continue
        if name == "pinned":  # the detail holds the new value, so say which way it went
            words.append("pinned it" if value else "unpinned it")
        else:
            words.append(EDIT_WORDS.get(name, f"changed {name.replace('_', ' ')}"))
    return ", ".join(words)
