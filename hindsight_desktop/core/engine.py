"""MemoryEngine: the one API that the CLI, the MCP server and the app all use."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import asdict, fields
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import apsw

from hindsight_desktop.config import DB_FILE, Settings, default_data_dir
from hindsight_desktop.core import decay, keyword, lifecycle, model_loader, reembed, spaces, validate
from hindsight_desktop.core import forget as forgetting
from hindsight_desktop.core.consolidate import Summarizer
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.embedder import Embedder, load_embedder
from hindsight_desktop.core.errors import InvalidInput, PausedError
from hindsight_desktop.core.extract import extract_entities, redact_secrets
from hindsight_desktop.core.models import (
    Event,
    ForgetReceipt,
    Link,
    Memory,
    MemoryFilter,
    SearchResult,
    WriteResult,
)
from hindsight_desktop.core.policy import MaintenancePolicy
from hindsight_desktop.core.recall import MODES, Query, RecallWeights, recall, time_window
from hindsight_desktop.core.rows import (
    MEMORY_COLUMNS,
    edit_detail,
    event_from_row,
    load_memory,
    log_event,
    memory_from_row,
)
from hindsight_desktop.core.store import Store, utcnow
from hindsight_desktop.core.timeutil import parse_when, to_db
from hindsight_desktop.core.writer import WriteRequest, index_entities, write

PERSON = "desktop"  # the client name for what the person does by hand (CLI, app)


class MemoryEngine:
    """A memory store in one SQLite file, with its embedding model.

    >>> engine = MemoryEngine(tmp_dir)                                  # doctest: +SKIP
    >>> engine.write("Remember: my passport expires in March 2027")    # doctest: +SKIP
    >>> engine.search("when does my passport expire?").hits[0].memory.content  # doctest: +SKIP
    """

    def __init__(self, data_dir: Path | None = None, *, settings: Settings | None = None,
                 embedder: Embedder | None = None, clock: Callable[[], datetime] | None = None) -> None:
        """`embedder` (else the settings' model, else the packaged default) is the model of a new memory
        file; an existing file keeps the model its vectors came from (see model_loader.py), and
        `use_model` switches it."""
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.settings = (settings or Settings()).validate()
        self.clock = clock or utcnow
        self.store = Store(self.data_dir / DB_FILE)
        self._models = model_loader.ModelSource(self.data_dir, self.settings, embedder)
        self._load_models()
        self.recall_weights = RecallWeights()

    # ---- the embedding model -------------------------------------------------------------------
    def _load_models(self) -> None:
        loaded = model_loader.load(self.store, self._models, self.settings, self.clock)
        self.parts, self.embedder, self._generation = loaded.parts, loaded.embedder, loaded.state.generation

    def _sync_models(self) -> None:
        """Another process may have switched the model: one cheap read tells, and the parts follow."""
        with self.store.read() as db:
            current = spaces.generation(db)
        if current != self._generation:
            self._load_models()

    def _with_models(self, op: Callable[[], Any]) -> Any:
        self._sync_models()
        try:
            return op()
        except apsw.SQLError as exc:
            # The old vector table was dropped between our check and our transaction: look again, once.
            if "no such table: vec_" not in str(exc):
                raise
            self._load_models()
            return op()

    def current_parts(self) -> Parts:
        """The engine's parts, brought up to date with the memory file's model first (for core modules
        such as portable.py that work on the parts directly)."""
        self._sync_models()
        return self.parts

    def model_status(self) -> dict[str, Any]:
        """The model in use, the one being switched to (if any) and the re-embed's progress."""
        self._sync_models()
        status = reembed.status(self.store)
        scale = self.parts.calibration
        status["languages"] = {
            "multilingual": bool(getattr(self.embedder, "multilingual", False)),
            # Measured when the model loaded: the share of probe paraphrases it finds, per script.
            "paraphrases_found": dict(scale.separation),
            "covers_chinese": bool(getattr(self.embedder, "multilingual", False)) and scale.separation["zh"] >= 0.9,
        }
        return status

    def use_model(self, path: str | Path, *, client: str = PERSON) -> dict[str, Any]:
        """Switch to the GGUF embedding model at `path`. Memories are re-embedded by `reembed()` (or
        `reembed_in_background()`); until that finishes, recall uses both models, each for its own vectors.
        Choosing the model in use again cancels an unfinished switch."""
        embedder = load_embedder(Path(path))
        self._sync_models()
        outcome = reembed.choose(self.store, embedder, self.clock(), client)
        self._sync_models()
        return {"status": outcome, **reembed.status(self.store)}

    def reembed(self, *, batch: int = reembed.DEFAULT_BATCH, progress: reembed.Progress | None = None,
                should_stop: Callable[[], bool] | None = None, client: str = PERSON) -> dict[str, Any]:
        """Re-embed into the new model's space until done or `should_stop()`; resumable at any time."""
        batch = validate.positive_int(batch, "batch", high=10_000)
        self._sync_models()
        result = reembed.run(self.parts, client, batch=batch, progress=progress, should_stop=should_stop)
        self._sync_models()
        return result

    def reembed_in_background(self, progress: reembed.Progress | None = None) -> reembed.ReembedJob:
        """The re-embed on a worker thread; `job.stop()` stops it at the next batch, `job.join()` waits."""
        return reembed.ReembedJob(self.reembed, progress)

    def apply_settings(self, settings: Settings) -> None:
        """Use new settings at once (write gate, recall, decay, capacity, pause). The embedding model is
        not among them: a model change means re-embedding, which `use_model` starts."""
        settings.validate()
        self.parts.scorer.retune(dict(settings.signal_weights), settings.write_threshold)
        for item in fields(Settings):
            if item.name != "embedding_model":
                # In place: the parts (and parts rebuilt after a model switch) share this object.
                setattr(self.settings, item.name, getattr(settings, item.name))

    # ---- writing -------------------------------------------------------------------------------
    def write(self, content: str, *, client: str = PERSON, type: str | None = None,
              importance: float | None = None, metadata: dict[str, Any] | None = None,
              occurred_at: datetime | str | None = None, session_id: str | None = None,
              scope: str = "shared", layer: str | None = None, explicit: bool = False,
              gate: bool = True) -> WriteResult:
        """Score and store one memory (or keep it in working memory when it is not worth keeping)."""
        if self.settings.paused or self.is_paused():
            raise PausedError("memory is paused: nothing new is being remembered right now")
        request = WriteRequest(content=content, client=client, type=type, importance=importance,
                               metadata=metadata, session_id=session_id, scope=scope, layer=layer,
                               explicit=explicit, gate=gate,
                               occurred_at=None if occurred_at is None else parse_when(occurred_at, "timestamp"))
        return self._with_models(lambda: write(self.parts, request))

    def set_paused(self, paused: bool, *, client: str = PERSON) -> None:
        """Pause or resume remembering, for every process that shares this memory file."""
        with self.store.write() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('paused', ?)", ("1" if paused else "0",))
            log_event(db, to_db(self.clock()), "pause" if paused else "resume", None, client, {})

    def is_paused(self) -> bool:
        with self.store.read() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'paused'").fetchone()
        return row is not None and row[0] == "1"

    # ---- recall --------------------------------------------------------------------------------
    def search(self, query: str, *, limit: int = 5, layer: str | list[str] | None = None,
               type: str | list[str] | None = None, time_range_days: float | None = None,
               since: datetime | str | None = None, until: datetime | str | None = None,
               client: str | None = None, written_by: str | None = None, deep: bool = False,
               mode: str = "hybrid", log: bool = True) -> SearchResult:
        """Hybrid recall. `client` is who asks (None: the person, who sees everything)."""
        text = validate.query(query)
        limit = validate.positive_int(limit, "limit", high=200)
        if mode not in MODES:
            raise InvalidInput(f"mode must be one of {', '.join(MODES)}")
        days = validate.days(time_range_days, "time_range_days")
        q = Query(
            text=text, limit=limit, layers=_tuple(layer, validate.layer, "layer"),
            types=_tuple(type, _type_label, "type"),
            since=time_window(self.clock(), days) if days is not None else _when(since, "since"),
            until=_when(until, "until"), client=client, written_by=written_by, deep=bool(deep), mode=mode,
        )
        hits = self._with_models(lambda: recall(self.parts, q, self.recall_weights))
        search_id = self._record_search(hits, client, q) if log else None
        return SearchResult(query=text, hits=hits, search_id=search_id)

    def warm_up(self) -> None:
        """Do what the first search would otherwise pay for (about 1.5 s at 100k memories: reading every
        vector into the search cache, the index pages into memory). Unlogged; safe from any thread."""
        self.search("warm up", limit=1, log=False)

    def warm_up_in_background(self) -> threading.Thread:
        """`warm_up` on a daemon thread, so a process can start serving at once."""
        thread = threading.Thread(target=self._warm_up_quietly, name="warm-up", daemon=True)
        thread.start()
        return thread

    def _warm_up_quietly(self) -> None:
        try:
            self.warm_up()
        except Exception:  # a warm-up is an optimisation; the first real search reports any problem
            logging.getLogger(__name__).debug("warm-up failed", exc_info=True)

    def _record_search(self, hits: list, client: str | None, q: Query) -> int:
        now = self.clock()
        with self.store.write() as db:
            # A recall is a use: it resets the memory's fading and, after a gap, slows it (spaced reinforcement).
            decay.record_access(db, [h.memory.id for h in hits], now, MaintenancePolicy.from_settings(self.settings))
            db.execute("INSERT INTO searches (at, client, hits, deep, mode) VALUES (?, ?, ?, ?, ?)",
                       (to_db(now), client or PERSON, len(hits), int(q.deep), q.mode))
            return int(db.last_insert_rowid())

    # ---- reading -------------------------------------------------------------------------------
    def get(self, memory_id: str, *, client: str | None = None) -> Memory:
        with self.store.read() as db:
            return load_memory(db, memory_id, client)[1]

    def list(self, filters: MemoryFilter | None = None, *, limit: int = 50, offset: int = 0,
             after: Memory | None = None) -> list[Memory]:
        """Newest first (by event time), for timelines and exports; `filters` narrows it.

        `after` continues from a memory of the previous page (keyset paging): the next page then costs
        what the first one does, however deep, where `offset` has to step over every row before it.
        """
        limit = validate.positive_int(limit, "limit", high=100_000)
        offset = validate.positive_int(offset, "offset", low=0, high=10**9)
        where, args = (filters or MemoryFilter()).sql()
        if after is not None:
            # Older than `after`, or as old and stored before it (rowid breaks ties, as in ORDER BY).
            # The range on occurred_at keeps the time index usable; should `after` have been purged
            # meanwhile, its rowid is NULL and only the memories exactly as old as it are skipped.
            when = to_db(after.occurred_at)
            where += (" AND m.occurred_at <= ? AND (m.occurred_at < ? OR "
                      "m.rowid < (SELECT rowid FROM memories WHERE id = ?))")
            args = [*args, when, when, after.id]
        with self.store.read() as db:
            rows = db.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {where} "
                "ORDER BY m.occurred_at DESC, m.rowid DESC LIMIT ? OFFSET ?", (*args, limit, offset))
            return [memory_from_row(r) for r in rows]

    def count(self, filters: MemoryFilter | None = None) -> int:
        where, args = (filters or MemoryFilter()).sql()
        with self.store.read() as db:
            return int(db.execute(f"SELECT count(*) FROM memories m WHERE {where}", args).fetchone()[0])

    def links(self, memory_id: str) -> list[Link]:
        with self.store.read() as db:
            load_memory(db, memory_id)
            rows = db.execute(
                "SELECT source_id, target_id, type, strength, created_at FROM relations "
                "WHERE source_id = ? OR target_id = ? ORDER BY created_at", (memory_id, memory_id))
            return [Link(s, t, k, float(w), parse_when(c)) for s, t, k, w, c in rows]

    def events(self, memory_id: str | None = None, limit: int = 100) -> list[Event]:
        with self.store.read() as db:
            if memory_id is None:
                rows = db.execute("SELECT id, at, kind, memory_id, client, detail FROM events "
                                  "ORDER BY id DESC LIMIT ?", (limit,))
            else:
                rows = db.execute("SELECT id, at, kind, memory_id, client, detail FROM events "
                                  "WHERE memory_id = ? ORDER BY id DESC LIMIT ?", (memory_id, limit))
            return [event_from_row(r) for r in rows]

    # ---- changing ------------------------------------------------------------------------------
    def edit(self, memory_id: str, *, client: str = PERSON, content: str | None = None,
             type: str | None = None, importance: float | None = None, pinned: bool | None = None,
             summary: str | None = None) -> Memory:
        """Change a memory; new content is redacted, re-extracted, re-embedded and re-indexed."""
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"], _ = redact_secrets(validate.content(content), self.settings.redact_personal_ids)
        if type is not None:
            changes["type"] = validate.label(type, "type")
        if importance is not None:
            changes["importance"] = validate.unit_interval(importance, "importance")
        if pinned is not None:
            changes["pinned"] = int(bool(pinned))
        if summary is not None:
            checked = validate.optional_text(summary, "summary", 2000)
            changes["summary"] = checked and redact_secrets(checked, self.settings.redact_personal_ids)[0]
        if not changes:
            raise InvalidInput("edit needs at least one of content, type, importance, pinned, summary")
        return self._with_models(lambda: self._edit(memory_id, client, changes))

    def _edit(self, memory_id: str, client: str, requested: dict[str, Any]) -> Memory:
        changes = dict(requested)  # a retry after a model switch starts from what was asked
        vector = self.parts.embed([changes["content"]])[0] if "content" in changes else None
        now = self.clock()
        with self.store.write() as db:
            rowid, before = load_memory(db, memory_id)
            if "content" in changes:
                entities = extract_entities(changes["content"], before.occurred_at)
                changes["entities"] = json.dumps([asdict(e) for e in entities], ensure_ascii=False)
                keyword.delete(db, rowid)
                db.execute("DELETE FROM entity_index WHERE memory_rowid = ?", (rowid,))
                if before.layer != "working":
                    keyword.add(db, rowid, changes["content"], [(e.kind, e.value) for e in entities],
                                before.occurred_at)
                    self.parts.vectors.add(db, rowid, vector)
                    index_entities(db, rowid, entities, before.occurred_at)
            sets = ", ".join(f"{k} = ?" for k in changes)
            db.execute(f"UPDATE memories SET {sets}, updated_at = ? WHERE rowid = ?",
                       (*changes.values(), to_db(now), rowid))
            log_event(db, to_db(now), "edit", memory_id, client, edit_detail(changes, before))
            return load_memory(db, memory_id)[1]

    def forget(self, *, ids: list[str] | str | None = None, older_than_days: float | None = None,
               layer: str | None = None, type: str | None = None, below_importance: float | None = None,
               written_by: str | None = None, query: str | None = None, purge: bool = False,
               client: str = PERSON, sees_all: bool = True) -> ForgetReceipt:
        """Archive (default) or purge every memory that matches all the given conditions."""
        req = forgetting.ForgetRequest(
            client=client, ids=None if ids is None else validate.text_list(ids, "memory_id", max_items=validate.MAX_IDS),
            older_than_days=validate.days(older_than_days, "older_than_days"),
            layer=validate.layer(layer), type=validate.label(type, "type"),
            below_importance=validate.unit_interval(below_importance, "below_importance"),
            written_by=written_by, query=None if query is None else validate.query(query),
            purge=bool(purge), sees_all=sees_all, purge_any=self.settings.assistants_purge_any,
        )
        receipt = self._with_models(lambda: self._forget(req))
        if req.purge and receipt.forgotten:
            receipt.wal_cleared = self.store.checkpoint()
        return receipt

    def _forget(self, req: forgetting.ForgetRequest) -> ForgetReceipt:
        now = self.clock()
        with self.store.write() as db:
            targets = forgetting.select(self.parts, db, req, now)
            if req.purge:
                receipt = forgetting.purge(self.parts, db, targets, req.client, now)
            else:
                receipt = forgetting.archive(db, forgetting.within_cap(req, targets), req.client, now)
        receipt.matched, receipt.left = len(targets), len(targets) - len(receipt.forgotten)
        return receipt

    def undo_forget(self, batch: str, *, client: str = PERSON) -> list[Memory]:
        """Restore every memory one archive batch (a receipt's `batch`) took that is still archived."""
        if not isinstance(batch, str) or not batch.strip():
            raise InvalidInput("batch must be the batch id of a forget receipt")
        now = self.clock()
        with self.store.write() as db:
            members = forgetting.batch_members(db, batch.strip())
            for rowid, memory_id in members:
                db.execute("UPDATE memories SET status = 'active', updated_at = ? WHERE rowid = ?",
                           (to_db(now), rowid))
                log_event(db, to_db(now), "restore", memory_id, client, {"from": "archived", "batch": batch})
            return [load_memory(db, mid)[1] for _, mid in members]

    def forget_batch(self, batch: str) -> list[str]:
        """The ids of the memories one archive batch took that are still archived: what
        `undo_forget(batch)` would restore now."""
        if not isinstance(batch, str) or not batch.strip():
            raise InvalidInput("batch must be the batch id of a forget receipt")
        with self.store.read() as db:
            return [memory_id for _, memory_id in forgetting.batch_members(db, batch.strip())]

    def restore(self, memory_id: str, *, client: str = PERSON) -> Memory:
        """Bring an archived or superseded memory back into normal recall."""
        now = self.clock()
        with self.store.write() as db:
            rowid, memory = load_memory(db, memory_id)
            if memory.status == "active":
                raise InvalidInput(f"memory {memory_id} is already active")
            db.execute("UPDATE memories SET status = 'active', superseded_by = NULL, updated_at = ? "
                       "WHERE rowid = ?", (to_db(now), rowid))
            log_event(db, to_db(now), "restore", memory_id, client, {"from": memory.status})
            return load_memory(db, memory_id)[1]

    def link(self, source_id: str, target_id: str, relation_type: str, *, strength: float = 1.0,
             client: str | None = None) -> Link:
        """Connect two memories (both must be visible to the client)."""
        kind = validate.label(relation_type, "relation_type")
        if kind is None:
            raise InvalidInput("relation_type is required")
        weight = validate.unit_interval(strength, "strength")
        if source_id == target_id:
            raise InvalidInput("a memory cannot be linked to itself")
        now = self.clock()
        with self.store.write() as db:
            load_memory(db, source_id, client)
            load_memory(db, target_id, client)
            db.execute("INSERT OR REPLACE INTO relations (source_id, target_id, type, strength, created_at) "
                       "VALUES (?, ?, ?, ?, ?)", (source_id, target_id, kind, weight, to_db(now)))
            log_event(db, to_db(now), "link", source_id, client or PERSON, {"target": target_id, "type": kind})
        return Link(source_id, target_id, kind, float(weight), now)

    def reflect(self, client: str | None = None, *, should_stop: Callable[[], bool] | None = None,
                progress: lifecycle.Progress | None = None, summarizer: Summarizer | None = None,
                **policy: Any) -> dict[str, Any]:
        """Maintenance now (see lifecycle.py): expired working memory, contradictions, duplicates,
        consolidation, fading, capacity, index repair. Stops at a batch boundary when `should_stop()`
        is true, and the next call resumes there. Keyword arguments override the policy (e.g. batch=100)."""
        rules = MaintenancePolicy.from_settings(self.settings, **policy)
        return self._with_models(lambda: lifecycle.reflect(
            self.parts, client or PERSON, policy=rules, should_stop=should_stop, progress=progress,
            summarizer=summarizer))

    def maintenance_runs(self, limit: int = 20) -> list[dict[str, Any]]:
        """Recent maintenance and re-embed runs: when, what changed, how long, how they ended."""
        return lifecycle.last_runs(self.parts, validate.positive_int(limit, "limit", high=10_000))

    # ---- numbers -------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        self._sync_models()
        with self.store.read() as db:
            by_layer = dict(db.execute("SELECT layer, count(*) FROM memories GROUP BY layer").fetchall())
            by_status = dict(db.execute("SELECT status, count(*) FROM memories GROUP BY status").fetchall())
            by_client = dict(db.execute("SELECT client, count(*) FROM memories GROUP BY client").fetchall())
            searches, hits = db.execute("SELECT count(*), coalesce(sum(hits > 0), 0) FROM searches").fetchone()
            links = db.execute("SELECT count(*) FROM relations").fetchone()[0]
            vectors = self.parts.vectors.count(db)
        return {
            "memories": sum(by_layer.values()), "by_layer": by_layer, "by_status": by_status,
            "by_client": by_client, "links": links, "vectors": vectors, "model": self.parts.model_id,
            "searches": searches, "hit_rate": round(hits / searches, 4) if searches else None,
            "database": str(self.store.path),
        }

    def search_activity(self, days: int = 14) -> list[dict[str, Any]]:
        """Searches per UTC day over the last `days` days and how many found something (the hit rate)."""
        days = validate.positive_int(days, "days", high=3660)
        since = to_db(self.clock() - timedelta(days=days))
        with self.store.read() as db:
            rows = db.execute("SELECT substr(at, 1, 10), count(*), sum(hits > 0) FROM searches WHERE at >= ? "
                              "GROUP BY 1 ORDER BY 1", (since,)).fetchall()
        return [{"day": day, "searches": n, "found": int(found)} for day, n, found in rows]

    def most_recalled(self, limit: int = 8) -> list[Memory]:
        """Active memories recalled most often, most first."""
        limit = validate.positive_int(limit, "limit", high=1000)
        with self.store.read() as db:
            rows = db.execute(f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.status = 'active' "
                              "AND m.access_count > 0 ORDER BY m.access_count DESC, m.rowid LIMIT ?", (limit,))
            return [memory_from_row(r) for r in rows]

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _type_label(value: Any) -> str | None:
    return validate.label(value, "type")


def _tuple(value: Any, check: Callable[[Any], str | None], field: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = validate.text_list(value, field, max_chars=40)
    return tuple(check(v) for v in items) or None


def _when(value: datetime | str | None, field: str) -> datetime | None:
    return None if value is None else parse_when(value, field)
