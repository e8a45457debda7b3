"""MemoryEngine: the one API that the CLI, the MCP server and the app all use. A front door: it checks
the input and hands each operation to the package that owns it (write/, recall/, maintenance/, model/,
portable/, diagnose/). The edges import this module, records, errors, identities and clients from the
core, and nothing else (tests/unit/test_architecture.py); the names below in __all__ are its face."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import fields
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any, TypeVar

import apsw

from hindsight_desktop.config import DB_FILE, Settings, default_data_dir
from hindsight_desktop.core import stats as numbers
from hindsight_desktop.core import validate
from hindsight_desktop.core.context import Parts, assemble
from hindsight_desktop.core.diagnose import checks
from hindsight_desktop.core.diagnose.why import Explanation, why_not_recalled
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.identities import PERSON
from hindsight_desktop.core.inbox import pending
from hindsight_desktop.core.inbox import policy as write_policy
from hindsight_desktop.core.index import bilingual, keyword
from hindsight_desktop.core.maintenance import forget as forgetting
from hindsight_desktop.core.maintenance import runner
from hindsight_desktop.core.maintenance.consolidate import Summarizer
from hindsight_desktop.core.maintenance.forget import BULK_ARCHIVE_CAP
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy
from hindsight_desktop.core.model import calibration, loader
from hindsight_desktop.core.model import reembed as reembedding
from hindsight_desktop.core.model.default_model import DEFAULT_MODEL_FILE
from hindsight_desktop.core.model.embedder import Embedder, default_embedder, load_embedder
from hindsight_desktop.core.portable import transfer
from hindsight_desktop.core.portable.importer import ImportReport
from hindsight_desktop.core.portable.plan_files import ImportPlan
from hindsight_desktop.core.recall.access_stats import AccessStats, SearchRecord, UseRecord
from hindsight_desktop.core.recall.confidence import HIT_CONFIDENCE
from hindsight_desktop.core.recall.hybrid import RecallWeights, recall
from hindsight_desktop.core.recall.query import Query
from hindsight_desktop.core.records import (
    Event,
    Finding,
    ForgetReceipt,
    Link,
    Memory,
    MemoryFilter,
    PendingItem,
    SearchResult,
    WriteResult,
)
from hindsight_desktop.core.store import clients as client_store
from hindsight_desktop.core.store import events as event_log
from hindsight_desktop.core.store import memories, meta, models, relations
from hindsight_desktop.core.store.database import Store, utcnow
from hindsight_desktop.core.sync.service import SyncService
from hindsight_desktop.core.text import en_names, segment
from hindsight_desktop.core.timeutil import parse_when, to_db
from hindsight_desktop.core.validate import MAX_ID_CHARS, MAX_LIST_ITEMS
from hindsight_desktop.core.write import edit as editing
from hindsight_desktop.core.write.gate_language import CHATTER_PROTOTYPES, KEEP_PROTOTYPES
from hindsight_desktop.core.write.writer import WriteRequest, write

# The engine's face: what the edges may take from here besides the engine (limits they show or check
# before calling, and the records of the operations below).
__all__ = [
    "BULK_ARCHIVE_CAP",
    "DEFAULT_MODEL_STEM",
    "HIT_CONFIDENCE",
    "MAX_ID_CHARS",
    "MAX_LIST_ITEMS",
    "PERSON",
    "Explanation",
    "ImportPlan",
    "ImportReport",
    "MemoryEngine",
    "Progress",
]
DEFAULT_MODEL_STEM = Path(DEFAULT_MODEL_FILE).stem  # the packaged model's ids start "<stem>:"
# The fixed sentences every process embeds for its model (the score scale's probes, the gate's prototypes):
# their vectors are kept per model between processes (model/handle.py).
PROBE_TEXTS = calibration.probe_texts() | frozenset(KEEP_PROTOTYPES + CHATTER_PROTOTYPES)
Progress = Callable[[int, int], None]  # (done, total), for exports and imports
T = TypeVar("T")


class MemoryEngine:
    """A memory store in one SQLite file, with its embedding model.

    >>> engine = MemoryEngine(tmp_dir)                                  # doctest: +SKIP
    >>> engine.write("Remember: my passport expires in March 2027")    # doctest: +SKIP
    >>> engine.search("when does my passport expire?").hits[0].memory.content  # doctest: +SKIP
    """

    def __init__(
        self,
        data_dir: Path | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        clock: Callable[[], datetime] | None = None,
        lazy_model: bool = False,
    ) -> None:
        """`embedder` (else the settings' model, else the packaged default) is the model of a new memory
        file; an existing file keeps the model its vectors came from (loader.py); `use_model` switches it.
        `lazy_model`: the model loads when text is first embedded, not now (a command that only reads)."""
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.settings = (settings or Settings()).validate()
        self.clock = clock or utcnow
        self.store = Store(self.data_dir / DB_FILE, encrypt=self.settings.encrypt_memory_file)
        self._access = AccessStats(self.store)  # searches' access statistics, written after the answer
        self._sync = SyncService(self.store)  # sync with this person's other devices (core/sync/)
        self._models = loader.ModelSource(self.data_dir, self.settings, embedder, lazy=lazy_model, fixed=PROBE_TEXTS)
        self._load_models()
        self.recall_weights = RecallWeights()

    # ---- the embedding model -------------------------------------------------------------------
    def _load_models(self) -> None:
        loaded = loader.load(self.store, self._models, self.clock)
        # The one place the parts are put together (context.assemble), on the models the file uses.
        self.parts = assemble(self.store, self.settings, self.clock, loaded)
        self.embedder, self._generation = loaded.embedder, loaded.state.generation

    def _sync_models(self) -> None:
        """Another process may have switched the model: one cheap read tells, and the parts follow."""
        with self.store.read() as db:
            current = models.generation(db)
        if current != self._generation:
            self._load_models()

    def _with_models(self, op: Callable[[], T]) -> T:
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
        """The parts, up to date with the memory file's model (for tests that look inside; the core's
        own modules get them from the operation that calls them)."""
        self._sync_models()
        return self.parts

    def model_status(self) -> dict[str, Any]:
        """The model in use, the one being switched to (if any) and the re-embed's progress."""
        self._sync_models()
        multilingual = bool(getattr(self.embedder, "multilingual", False))
        return {**reembedding.status(self.store), "languages": self.parts.calibration.languages(multilingual)}

    def use_model(self, path: str | Path | None, *, client: str = PERSON) -> dict[str, Any]:
        """Switch to the GGUF model at `path` (None: the packaged default, built under the data folder if
        needed); until `reembed()` finishes, recall uses both models, each for its own vectors. Choosing
        the model in use again cancels an unfinished switch."""
        embedder = load_embedder(Path(path)) if path else default_embedder(self.data_dir)
        self._sync_models()
        outcome = reembedding.choose(self.store, embedder, self.clock(), client)
        self._sync_models()
        return {"status": outcome, **reembedding.status(self.store)}

    def reembed(
        self,
        *,
        batch: int = reembedding.DEFAULT_BATCH,
        progress: reembedding.Progress | None = None,
        should_stop: Callable[[], bool] | None = None,
        client: str = PERSON,
    ) -> dict[str, Any]:
        """Re-embed into the new model's space until done or `should_stop()`; resumable at any time."""
        batch = validate.positive_int(batch, "batch", high=10_000)
        self._sync_models()
        result = reembedding.run(self.parts, client, batch=batch, progress=progress, should_stop=should_stop)
        self._sync_models()
        return result

    def reembed_in_background(self, progress: reembedding.Progress | None = None) -> reembedding.ReembedJob:
        """The re-embed on a worker thread; `job.stop()` stops it at the next batch, `job.join()` waits."""
        return reembedding.ReembedJob(self.reembed, progress)

    def apply_settings(self, settings: Settings) -> None:
        """Use new settings at once (write gate, recall, decay, capacity, privacy). The embedding model is
        not among them: a model change means re-embedding, which `use_model` starts."""
        settings.validate()
        self.parts.scorer.retune(dict(settings.signal_weights), settings.write_threshold)
        for item in fields(Settings):
            if item.name != "embedding_model":
                # In place: the parts (and parts rebuilt after a model switch) share this object.
                setattr(self.settings, item.name, getattr(settings, item.name))

    # ---- writing -------------------------------------------------------------------------------
    def write(
        self,
        content: str,
        *,
        client: str = PERSON,
        type: str | None = None,
        importance: float | None = None,
        metadata: dict[str, Any] | None = None,
        occurred_at: datetime | str | None = None,
        session_id: str | None = None,
        scope: str = "shared",
        layer: str | None = None,
        explicit: bool = False,
        gate: bool = True,
    ) -> WriteResult:
        """Score and store one memory (or keep it in working memory when it is not worth keeping)."""
        with self.store.read() as db:
            meta.refuse_if_paused(db, "nothing new is being remembered right now")
        request = WriteRequest(
            content=content,
            client=client,
            type=type,
            importance=importance,
            metadata=metadata,
            session_id=session_id,
            scope=scope,
            layer=layer,
            explicit=explicit,
            gate=gate,
            occurred_at=None if occurred_at is None else parse_when(occurred_at, "timestamp"),
        )
        hold = self._hold(request)  # the client's policy and the product's own reading of the text
        if hold is not None:
            proposed = self._with_models(lambda: pending.propose(self.parts, request, hold))
            if proposed is not None:
                return proposed
        return self._with_models(lambda: write(self.parts, request))

    def _hold(self, request: WriteRequest) -> write_policy.Hold | None:
        """Whether this write waits in the inbox (raises NotAllowed for a read-only client)."""
        if not isinstance(request.content, str) or not isinstance(request.client, str):
            return None  # the writer names the bad argument
        with self.store.read() as db:
            rule = client_store.policy_of(db, request.client)
        by_hand = request.explicit or not request.gate
        return write_policy.decide(
            request.client, rule, self.settings.review_directives, request.content, by_hand=by_hand
        )

    def _refuse_read_only(self, client: str | None) -> None:
        if client is not None:
            with self.store.read() as db:
                rule = client_store.policy_of(db, client)
            write_policy.decide(client, rule, False, "", by_hand=False)

    def set_paused(self, paused: bool, *, client: str = PERSON) -> None:
        """Pause or resume remembering, for every process that shares this memory file."""
        with self.store.write() as db:
            meta.set_paused(db, paused)
            event_log.log_event(db, to_db(self.clock()), "pause" if paused else "resume", None, client, {})

    def is_paused(self) -> bool:
        with self.store.read() as db:
            return meta.is_paused(db)

    # ---- recall --------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        limit: int = 5,
        layer: str | list[str] | None = None,
        type: str | list[str] | None = None,
        time_range_days: float | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        client: str | None = None,
        written_by: str | None = None,
        deep: bool = False,
        mode: str = "hybrid",
        log: bool = True,
    ) -> SearchResult:
        """Hybrid recall. `client` is who asks (None: the person, who sees everything)."""
        q = Query.checked(
            self.clock(),
            query,
            limit=limit,
            layer=layer,
            type=type,
            time_range_days=time_range_days,
            since=since,
            until=until,
            client=client,
            written_by=written_by,
            deep=deep,
            mode=mode,
        )
        hits = self._with_models(lambda: recall(self.parts, q, self.recall_weights))
        if log:  # queued, not written: a search never waits for the file's write lock (access_stats.py)
            self._access.record(
                SearchRecord(
                    ids=tuple(h.memory.id for h in hits if h.evidenced),
                    at=self.clock(),
                    client=client or PERSON,
                    deep=q.deep,
                    mode=q.mode,
                    policy=MaintenancePolicy.from_settings(self.settings),
                )
            )
        return SearchResult(query=q.text, hits=hits)

    def record_used(self, ids: Any, *, client: str) -> None:
        """A client's word that its reply relied on these recalled memories: counted for the used share and
        a stronger use of each than being returned. Ids the client may not see, or that name nothing, are
        dropped when the record is written (after the caller has its answer), so it learns nothing."""
        checked = validate.text_list(ids, "used")
        if checked:
            policy = MaintenancePolicy.from_settings(self.settings)
            self._access.record(UseRecord(ids=tuple(checked), at=self.clock(), policy=policy, client=client))

    def warm_up(self) -> None:
        """Do what the first search would otherwise pay for: loading the vector cache, the index pages
        into memory, each viewer's keyword statistics, and the cross-language lexicon the first time.
        Unlogged; safe from any thread."""
        bilingual.lexicon(build_now=True)
        # The text tools a first question would load: the English word lists that tell names from words,
        # and Chinese segmentation where the memories hold Chinese (its dictionary, compiled into a library,
        # takes more memory than an English-only store should pay for).
        en_names.load_words()
        with self.store.read() as db:
            chinese = keyword.holds_chinese(db)
        if chinese:
            segment.tokenizer()
        self.search("warm up", limit=1, log=False)
        # Each viewer's keyword statistics too (read the first time it asks): the clients that keep
        # private memories, and one of those that keep none, whose view every other such client shares;
        # with every row's length, kept from now on across this process's writes (row_lengths.py).
        with self.store.read() as db:
            owners = memories.private_owners(db)
            self.store.row_lengths.load(db)
        others = next(name for n in range(len(owners) + 1) if (name := f"warm-up-{n}") not in owners)
        for client in [*owners, others]:
            self.search("warm up", limit=1, log=False, client=client)

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

    # ---- reading -------------------------------------------------------------------------------
    def get(self, memory_id: str, *, client: str | None = None) -> Memory:
        self._access.flush()  # its access count includes every search so far
        with self.store.read() as db:
            return memories.load_memory(db, memory_id, client)[1]

    def list_memories(
        self, filters: MemoryFilter | None = None, *, limit: int = 50, offset: int = 0, after: Memory | None = None
    ) -> list[Memory]:
        """Newest first (by event time), for timelines and exports; `filters` narrows it. `after` continues
        from a memory of the previous page (keyset paging: as fast however deep, unlike `offset`)."""
        limit = validate.positive_int(limit, "limit", high=100_000)
        offset = validate.positive_int(offset, "offset", low=0, high=10**9)
        with self.store.read() as db:
            return memories.page(db, filters or MemoryFilter(), limit, offset, after)

    def count(self, filters: MemoryFilter | None = None) -> int:
        with self.store.read() as db:
            return memories.count(db, filters or MemoryFilter())

    def links(self, memory_id: str) -> list[Link]:
        with self.store.read() as db:
            memories.load_memory(db, memory_id)
            return relations.links_of(db, memory_id)

    def events(self, memory_id: str | None = None, limit: int = 100) -> list[Event]:
        with self.store.read() as db:
            return event_log.recent(db, memory_id, limit)

    # ---- changing ------------------------------------------------------------------------------
    def edit(
        self,
        memory_id: str,
        *,
        client: str = PERSON,
        content: str | None = None,
        type: str | None = None,
        importance: float | None = None,
        pinned: bool | None = None,
        summary: str | None = None,
        scope: str | None = None,
        occurred_at: datetime | str | None = None,
    ) -> Memory:
        """Change a memory; new content is redacted, re-extracted, re-embedded and re-indexed, a new date
        (`occurred_at`, stored UTC) re-extracted and re-indexed. The person may edit any memory; any
        other client only what it wrote itself, and never its scope (private or shared: who sees it is
        the person's choice)."""
        if scope is not None and client != PERSON:
            raise InvalidInput("only the person can change a memory's scope (private or shared)")
        changes = editing.requested(
            self.settings.redact_personal_ids,
            content=content,
            type=type,
            importance=importance,
            pinned=pinned,
            summary=summary,
            scope=scope,
            occurred_at=occurred_at,
        )
        owner = None if client == PERSON else client
        return self._with_models(lambda: editing.edit(self.parts, memory_id, client, changes, self.clock(), owner))

    def forget(
        self,
        *,
        ids: list[str] | str | None = None,
        older_than_days: float | None = None,
        layer: str | None = None,
        type: str | None = None,
        below_importance: float | None = None,
        written_by: str | None = None,
        query: str | None = None,
        purge: bool = False,
        client: str = PERSON,
        sees_all: bool = True,
    ) -> ForgetReceipt:
        """Archive (default) or purge every memory that matches all the given conditions."""
        req = forgetting.ForgetRequest.checked(
            client,
            sees_all,
            self.settings.assistants_purge_any,
            ids=ids,
            older_than_days=older_than_days,
            layer=layer,
            type=type,
            below_importance=below_importance,
            written_by=written_by,
            query=query,
            purge=purge,
        )
        self._refuse_read_only(client)
        receipt = self._with_models(lambda: forgetting.run(self.parts, req, self.clock()))
        if req.purge and receipt.forgotten:
            receipt.wal_cleared = self.store.checkpoint()
        return receipt

    def undo_forget(self, batch: str, *, client: str = PERSON) -> list[Memory]:
        """Restore every memory one archive batch (a receipt's `batch`) took that is still archived."""
        return forgetting.undo(self.parts, validate.batch_id(batch), client, self.clock())

    def forget_batch(self, batch: str) -> list[str]:
        """The ids of what one archive batch took that is still archived: what `undo_forget` would restore."""
        checked = validate.batch_id(batch)
        with self.store.read() as db:
            return [memory_id for _, memory_id in forgetting.batch_members(db, checked)]

    def restore(self, memory_id: str, *, client: str = PERSON) -> Memory:
        """Bring an archived or superseded memory back into normal recall."""
        return forgetting.restore(self.parts, memory_id, client, self.clock())

    def link(
        self, source_id: str, target_id: str, relation_type: str, *, strength: float = 1.0, client: str | None = None
    ) -> Link:
        """Connect two memories (both must be visible to the client)."""
        kind = validate.label(relation_type, "relation_type")
        if kind is None:
            raise InvalidInput("relation_type is required")
        weight = validate.unit_interval(strength, "strength")
        if weight is None:
            raise InvalidInput("strength must be a number from 0 to 1")
        self._refuse_read_only(client)
        return editing.link(self.parts, source_id, target_id, kind, weight, client, client or PERSON, self.clock())

    def run_maintenance(
        self,
        client: str | None = None,
        *,
        should_stop: Callable[[], bool] | None = None,
        progress: runner.Progress | None = None,
        summarizer: Summarizer | None = None,
        **policy: object,
    ) -> dict[str, Any]:
        """Maintenance now (maintenance/runner.py); stops at a batch boundary when `should_stop()` is true
        and the next call resumes there. Keyword arguments override the policy (e.g. batch=100)."""
        rules = MaintenancePolicy.from_settings(self.settings, **policy)
        return self._with_models(
            lambda: runner.run_maintenance(
                self.parts,
                client or PERSON,
                policy=rules,
                should_stop=should_stop,
                progress=progress,
                summarizer=summarizer,
            )
        )

    def maintenance_runs(self, limit: int = 20) -> list[dict[str, Any]]:
        """Recent maintenance and re-embed runs: when, what changed, how long, how they ended."""
        return runner.last_runs(self.parts, validate.positive_int(limit, "limit", high=10_000))

    # ---- the inbox: what assistants proposed, for the person to decide (core/inbox/) --------------
    def inbox(self, *, client: str | None = None) -> list[PendingItem]:
        """What waits for the person, oldest first (one client's when given); the expired go first.
        For the person's edges only: no MCP tool reaches it."""
        self._expire_inbox()
        return pending.waiting(self.parts, None if client is None else validate.client_name(client))

    def inbox_count(self) -> int:
        """How many items wait (the tray's count)."""
        self._expire_inbox()
        return pending.count(self.parts)

    def approve(self, ids: list[str] | str, *, content: str | None = None) -> list[WriteResult]:
        """Keep these proposals as their clients wrote them, dated when proposed. `content` (one id only):
        the person's edit, made after the approval so the memory's history shows it."""
        checked = validate.text_list(ids, "ids")
        if content is not None and len(checked) != 1:
            raise InvalidInput("an edit can be approved for one inbox item at a time")
        results = [self._approve_one(item_id) for item_id in checked]
        if content is not None:
            self.edit(results[0].id, content=content)
        return results

    def _approve_one(self, item_id: str) -> WriteResult:
        return self._with_models(lambda: pending.approve(self.parts, item_id))

    def reject(self, ids: list[str] | str) -> list[str]:
        """Delete these proposals for good: no copy stays in the memory file or its WAL (as a purge)."""
        gone = [pending.reject(self.parts, item_id) for item_id in validate.text_list(ids, "ids")]
        if gone:
            self.store.checkpoint()
        return gone

    def _expire_inbox(self) -> None:
        if pending.expire(self.parts, self.clock()):
            self.store.checkpoint()

    # ---- numbers -------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        self._sync_models()
        self._access.flush()  # every search so far is counted
        return numbers.numbers(self.parts)

    def search_activity(self, days: int = 14) -> list[dict[str, Any]]:
        """Searches per UTC day over the last `days` days and how many found something (the hit rate)."""
        days = validate.positive_int(days, "days", high=3660)
        self._access.flush()
        return numbers.search_activity(self.parts, self.clock() - timedelta(days=days))

    def most_recalled(self, limit: int = 8) -> list[Memory]:
        """Active memories recalled most often, most first."""
        limit = validate.positive_int(limit, "limit", high=1000)
        self._access.flush()
        with self.store.read() as db:
            return memories.most_recalled(db, limit)

    # ---- moving memories in and out ------------------------------------------------------------------
    def export(
        self,
        fmt: str,
        target: str | os.PathLike[str] | IO[str],
        filters: MemoryFilter | None = None,
        progress: Progress | None = None,
        *,
        embeddings: bool = False,
        ids: list[str] | None = None,
        encrypt: bool = False,
    ) -> dict[str, Any]:
        """Write every memory (or those `filters` and `ids` select) to a file, atomically, or to an open
        text stream, in `fmt` (portable/export_formats.py); returns what was written (portable/transfer.py).
        `encrypt`: a file only this memory's recovery key opens (portable/encrypted.py)."""
        self._sync_models()
        key = None
        if encrypt:
            key = self.store.key
            if key is None:
                raise InvalidInput(
                    "the memory file is not encrypted, so it has no recovery key to encrypt the export with: "
                    "encrypt it (`hindsight-desktop key init`) or export it plain"
                )
        return transfer.export_memories(
            self.parts, fmt, target, filters, progress, embeddings=embeddings, ids=ids, encrypt_key=key
        )

    def import_file(
        self,
        path: str | os.PathLike[str],
        fmt: str | None = None,
        dry_run: bool = False,
        progress: Progress | None = None,
        *,
        keep_writers: bool = False,
        key: bytes | None = None,
    ) -> ImportReport:
        """Bring memories in from a file in one transaction; `dry_run` reports and changes nothing.
        `keep_writers`: the file is the person's own, so who wrote each memory is kept (portable/transfer.py).
        `key`: what opens an encrypted export (a recovery key's), else this memory's own key."""
        self._sync_models()
        return transfer.import_memories(self.parts, path, fmt, dry_run, progress, keep_writers=keep_writers, key=key)

    def plan_import(
        self, path: str | os.PathLike[str], fmt: str | None = None, *, key: bytes | None = None
    ) -> ImportPlan:
        """Read and parse an import file once, for `run_import_plan`: a preview and then the import reuse
        the parse and the preview's embeddings (portable/plan_files.py)."""
        return transfer.plan_import(self.parts, path, fmt, key=key)

    def run_import_plan(
        self, plan: ImportPlan, dry_run: bool = False, progress: Progress | None = None, *, keep_writers: bool = False
    ) -> ImportReport:
        """`import_file` for a planned file; refused (InvalidInput) when the file changed since it was planned."""
        self._sync_models()
        return transfer.run_plan(self.parts, plan, dry_run, progress, keep_writers=keep_writers)

    # ---- diagnosis -----------------------------------------------------------------------------
    def why(self, query: str, memory_id: str) -> Explanation:
        """Why `memory_id` was or was not recalled for `query`: exists, status, vector, keywords,
        similarity, rank (diagnose/why.py). Reads only; its search is not logged."""
        self._sync_models()
        return why_not_recalled(self.parts, self.search, query, memory_id)

    def check_indexes(self) -> Finding:
        """The keyword index and the vector table of the model in use hold exactly the long-term memories."""
        return checks.check_indexes(self.store)

    @staticmethod
    def check_folder(data_dir: Path) -> list[Finding]:
        """The checks that need no engine (and open nothing for writing): the data folder takes a file,
        the memory file passes SQLite's integrity check, the sqlite-vec extension loads."""
        data_dir = Path(data_dir)
        return [checks.check_data_dir(data_dir), checks.check_database(data_dir / DB_FILE), checks.check_sqlite_vec()]

    @staticmethod
    def check_file_modes(data_dir: Path) -> Finding:
        """Only this account may read the data folder; wider modes are repaired, and the finding says so."""
        return checks.check_file_modes(Path(data_dir))

    def flush_access_stats(self) -> None:
        """Write the searches' access statistics queued so far now (a server answering the person's
        command line, whose next command may be `stats` in another process)."""
        self._access.flush()

    # ---- sync between devices (core/sync/; rules in docs/ARCHITECTURE.md "Sync") ----------------------
    def sync_setup(self, folder: str | os.PathLike[str], *, name: str | None = None) -> dict[str, Any]:
        """Make `folder` (synced by the person's own sync service) this memory's sync folder, as its first
        device; the pairing code (shown once) lets the other devices join. Syncs at once ("sync")."""
        started = self._sync.setup(Path(folder), validate.optional_text(name, "name"), self.clock())
        return {**started, "sync": self.sync_now()}

    def sync_join(self, folder: str | os.PathLike[str], code: str, *, name: str | None = None) -> dict[str, Any]:
        """Join the sync folder another device set up, with its pairing code; syncs at once ("sync")."""
        joined = self._sync.join(Path(folder), code, validate.optional_text(name, "name"))
        return {**joined, "sync": self.sync_now()}

    def sync_now(self) -> dict[str, Any]:
        """Write this device's new changes to the folder and apply every new one of the other devices:
        {"sent", "applied", "refused": [{"file", "device", "reason"}], ...} (core/sync/service.py)."""
        self._access.flush()
        return self._with_models(lambda: self._sync.now(self.parts))

    def sync_status(self) -> dict[str, Any]:
        """Whether sync is set up, the folder, this device, pending changes, the last sync's report."""
        return self._sync.status()

    def sync_devices(self) -> list[dict[str, Any]]:
        """The devices in the sync folder, this one first, with when each last synced."""
        return self._sync.devices()

    def sync_remove_device(self, device_id: str) -> dict[str, Any]:
        """Stop reading a device's files (a lost laptop); the memories it brought stay."""
        return self._sync.remove_device(device_id)

    def sync_leave(self) -> dict[str, Any]:
        """Stop syncing on this device; its memories stay, the sync key and state are forgotten."""
        return self._sync.leave()

    def close(self) -> None:
        self._access.close()  # the searches' access statistics land before the file closes
        self.store.close()

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
