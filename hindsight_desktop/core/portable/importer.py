"""Putting imported memories into the store, all in one transaction (or, for a dry run, none).

Own-format records are restored as they were: same ids, fields, statuses, links and history; only the
indexes are rebuilt. Everything else goes through the write pipeline like any new memory, so
duplicates are merged and secrets redacted. Embeddings are computed before the write lock is taken.
"""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import apsw
import numpy as np

from hindsight_desktop.core import validate
from hindsight_desktop.core.context import EmbedCache, Parts
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.identities import IMPORT_PREFIX, NAME_PATTERN
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.model import switching
from hindsight_desktop.core.portable.import_formats import Bundle, Item
from hindsight_desktop.core.portable.own_format import FIELDS
from hindsight_desktop.core.records import Entity
from hindsight_desktop.core.redact.records import redact_event, redact_record
from hindsight_desktop.core.redact.text import redact_secrets
from hindsight_desktop.core.store import connections, events, relations, upkeep
from hindsight_desktop.core.store import entities as entity_index
from hindsight_desktop.core.timeutil import from_db, to_db
from hindsight_desktop.core.write.writer import WriteRequest, write

Progress = Callable[[int, int], None]
EMBED_CHUNK = 64


@dataclass
class ImportReport:
    format: str
    source: str
    dry_run: bool
    read: int = 0
    created: int = 0
    duplicates: int = 0  # merged into a memory that was already there (or earlier in the file)
    skipped_existing: int = 0  # own-format records whose id is already in the store
    superseded: int = 0  # older statements the imported ones replaced
    redactions: int = 0
    links: int = 0
    events: int = 0
    dangling_refs: int = 0  # superseded_by pointing at a memory neither in the file nor in the store
    sealed: bool = False  # an own-format bundle sealed by this data folder (seal.py)
    reattributed: int = 0  # records whose writer became "import:<writer>" (or whose pin was dropped)
    items: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class _DryRun(Exception):
    """Raised inside the import transaction to roll it back after the report is complete."""


def in_one_transaction(parts: Parts, dry_run: bool, work: Callable[[apsw.Connection], None]) -> None:
    try:
        with parts.store.write() as db:
            work(db)
            if dry_run:
                raise _DryRun
    except BaseException as exc:
        # The in-process vector caches may have seen rows of the rolled-back transaction.
        switching.forget_cached(parts.vectors)
        if not isinstance(exc, _DryRun):
            raise


# ---- the app's own format ------------------------------------------------------------------------


def restore_bundle(
    parts: Parts, bundle: Bundle, report: ImportReport, progress: Progress | None, *, trusted: bool = False
) -> None:
    """Restore an own-format bundle. Unless `trusted` (sealed here, or the person vouches for it), what
    the file claims about its writers is not believed: see `attribute`."""
    report.read = len(bundle.memories)
    validate.record_times(bundle.memories, parts.clock())  # no record dated ahead of now
    if not trusted:
        report.reattributed = attribute(bundle)
    # Restored as they were, except for secrets: text, metadata, entities and event details are redacted.
    personal = parts.settings.redact_personal_ids
    report.redactions += sum(redact_record(record, personal) for record in bundle.memories)
    for i, event in enumerate(bundle.events):
        bundle.events[i], found = redact_event(event, personal)
        report.redactions += found
    with parts.store.read() as db:
        present = upkeep.present(db, [m["id"] for m in bundle.memories])
    fresh = [m for m in bundle.memories if m["id"] not in present]
    report.skipped_existing = len(bundle.memories) - len(fresh)
    vectors = _vectors_for(parts, fresh)
    incoming = {m["id"] for m in bundle.memories}

    def work(db: apsw.Connection) -> None:
        connections.defer_foreign_keys(db)  # records may point at ones later in the file
        known = incoming | present
        for i, record in enumerate(fresh, 1):
            _insert(parts, db, record, vectors.get(record["id"]), known, report)
            if progress is not None:
                progress(i, len(fresh))
        # An unsealed file speaks only about its own memories: no links or history for ones already here.
        reach = known if trusted else incoming
        for source, target, kind, strength, created_at in bundle.links:
            if source in reach and target in reach and _exists(db, source, known) and _exists(db, target, known):
                report.links += relations.link(db, source, target, kind, strength, created_at)
        keep_ids = events.count(db) == 0  # an empty store: same ids
        for event in bundle.events:
            if not trusted and event[3] not in incoming:
                continue
            events.restore(db, event, keep_id=keep_ids)
            report.events += 1

    in_one_transaction(parts, report.dry_run, work)


def imported_writer(client: str) -> str:
    """The writer an unsealed record is restored under: "import:<its writer>", a plain name only (a
    name that is not one becomes "import:bundle"); an "import:" writer stays as it is."""
    if client.startswith(IMPORT_PREFIX):
        return client
    return IMPORT_PREFIX + (client if NAME_PATTERN.match(client) else "bundle")


def attribute(bundle: Bundle) -> int:
    """Take away an unsealed bundle's claims: every writer (of memories and events) becomes an import
    attribution, so no record reads as the person's words, joins a client's private memories or passes
    for any client's own; nothing stays pinned. Returns how many memory records changed."""
    changed = 0
    for record in bundle.memories:
        writer = imported_writer(record["client"])
        if writer != record["client"] or record["pinned"]:
            changed += 1
        record["client"], record["pinned"] = writer, 0
    bundle.events = [(*event[:4], imported_writer(event[4]), *event[5:]) for event in bundle.events]
    return changed


def _exists(db: apsw.Connection, memory_id: str, known: set[str]) -> bool:
    return memory_id in known or upkeep.exists(db, memory_id)


def _vectors_for(parts: Parts, records: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """A stored embedding is reused when it is in the one space in use; the rest are embedded now."""
    single = not isinstance(parts.vectors, switching.SwitchingIndex)
    vectors: dict[str, np.ndarray] = {}
    todo: list[dict[str, Any]] = []
    for record in records:
        if record["layer"] == "working":
            continue
        stored = record.get("embedding")
        if single and stored and stored["model"] == parts.model_id and stored["vector"].shape == (parts.vectors.dim,):
            vectors[record["id"]] = stored["vector"]
        else:
            todo.append(record)
    for start in range(0, len(todo), EMBED_CHUNK):
        chunk = todo[start : start + EMBED_CHUNK]
        for record, vector in zip(
            chunk, switching.embed_in_groups(parts.embed, [r["content"] for r in chunk]), strict=True
        ):
            vectors[record["id"]] = vector
    return vectors


def _insert(
    parts: Parts,
    db: apsw.Connection,
    record: dict[str, Any],
    vector: np.ndarray | None,
    known: set[str],
    report: ImportReport,
) -> None:
    row = {k: record[k] for k in FIELDS}
    if row["superseded_by"] is not None and not _exists(db, row["superseded_by"], known):
        row["superseded_by"] = None
        report.dangling_refs += 1
    rowid = upkeep.insert_row(db, row)
    if row["layer"] != "working":
        entities = [Entity(**e) for e in json.loads(row["entities"])]
        occurred = from_db(row["occurred_at"])
        assert occurred is not None and vector is not None
        keyword.add(db, rowid, row["content"], [(e.kind, e.value) for e in entities], occurred)
        parts.vectors.add(db, rowid, vector)
        entity_index.index(db, rowid, entities, occurred)
    report.created += 1
    report.items.append({"id": row["id"], "action": "restore", "status": row["status"]})


# ---- everything else: through the write pipeline ----------------------------------------------------


class _Staged(EmbedCache):
    """The pipeline's embed function with the import's vectors computed in advance."""

    def __init__(self, vectors: dict[str, np.ndarray], fallback: EmbedCache) -> None:
        super().__init__(fallback)
        self.vectors, self.fallback = vectors, fallback

    def __call__(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        missing = [t for t in texts if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.fallback(missing), strict=True))
        return np.stack([self.vectors[t] for t in texts])


def write_items(parts: Parts, items: list[Item], client: str, report: ImportReport, progress: Progress | None) -> None:
    report.read = len(items)
    for item in items:  # cheap checks first, so a bad line fails before any model time is spent
        try:
            validate.content(item.content)
        except InvalidInput as exc:
            raise InvalidInput(f"{item.where}: {exc}") from None
    staged = dataclasses.replace(parts, embed=_Staged(_pre_embed(parts, items), parts.embed))

    def work(db: apsw.Connection) -> None:
        ids: list[str] = []
        keys: dict[str, str] = {}
        for i, item in enumerate(items, 1):
            try:
                result = write(
                    staged, WriteRequest(content=item.content, client=client, metadata=item.metadata, explicit=True)
                )
            except InvalidInput as exc:
                raise InvalidInput(f"{item.where}: {exc}") from None
            ids.append(result.id)
            if item.key is not None:
                keys.setdefault(item.key, result.id)
            action = "duplicate" if result.duplicate_of else "create"
            report.created += action == "create"
            report.duplicates += action == "duplicate"
            report.superseded += len(result.supersedes)
            report.redactions += result.redactions
            report.items.append(
                {"where": item.where, "action": action, "id": result.id, "redactions": result.redactions}
            )
            if progress is not None:
                progress(i, len(items))
        for item, memory_id in zip(items, ids, strict=True):
            for source, target, kind in item.links:
                a, b = keys.get(source) if source else memory_id, keys.get(target) if target else memory_id
                if a and b and a != b:
                    report.links += relations.link(db, a, b, kind, 1.0, to_db(parts.clock()))

    in_one_transaction(parts, report.dry_run, work)


def _pre_embed(parts: Parts, items: list[Item]) -> dict[str, np.ndarray]:
    """Vectors for the texts exactly as the pipeline will embed them (normalised, then redacted)."""
    personal = parts.settings.redact_personal_ids
    texts = list(
        dict.fromkeys(
            redact_secrets(unicodedata.normalize("NFC", i.content.strip()), personal)[0]
            for i in items
            if i.content.strip()
        )
    )
    vectors: dict[str, np.ndarray] = {}
    for start in range(0, len(texts), EMBED_CHUNK):
        chunk = texts[start : start + EMBED_CHUNK]
        vectors.update(zip(chunk, switching.embed_in_groups(parts.embed, chunk), strict=True))
    return vectors
