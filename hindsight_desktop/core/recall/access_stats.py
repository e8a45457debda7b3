"""What a search leaves behind, written after the answer: each recalled memory's use (decay.record_access)
and a row in the search log. Likewise a report that a reply relied on recalled memories (`UseRecord`):
a stronger use of each, and a row in the use log.

Writing them inside the search took the memory file's write lock, shared by every process, on the
caller's thread: a read-only tool waited for other processes' writes. Here a search only queues its
record. A background thread writes what gathered in one transaction; the next write transaction of
this process writes it first (Store.before_write), so maintenance, merges and fading see every use;
`flush` writes it at once for a reader who wants the numbers, and `close` before the store closes.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime

import apsw

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.maintenance import decay
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.searches import add_accesses, log_search, log_uses, visible_ids
from hindsight_desktop.core.timeutil import to_db

GATHER_S = 0.2  # the background writer waits this long after a search, so one transaction takes many
# How many accesses a memory a reply relied on counts for (a memory merely returned counts for one): the
# assistant's word that it helped is a better sign it will be wanted again than being near a query.
USED_WEIGHT = 3

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchRecord:
    ids: tuple[str, ...]  # the memories recalled, best first
    at: datetime  # when the search ran: the use's time, whenever it is written
    policy: MaintenancePolicy  # the reinforcement rules in force at that time
    client: str
    deep: bool
    mode: str


@dataclass(frozen=True)
class UseRecord:
    ids: tuple[str, ...]  # what the client said it used; checked against what it may see when written
    at: datetime
    policy: MaintenancePolicy
    client: str


class AccessStats:
    """Queued search records of one store, and the thread that writes them. Safe across threads."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._queue: list[SearchRecord | UseRecord] = []
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._in_flight = 0  # records taken off the queue and not yet committed
        self._writing = False  # guarded by the store's lock: our own transaction is under way
        store.before_write(self._write_queued)

    def record(self, entry: SearchRecord | UseRecord) -> None:
        """Queue one search's (or use report's) record; returns at once (never waits for the memory file)."""
        with self._changed:
            if self._stop.is_set():
                raise HindsightError("the memory database is closed")
            self._queue.append(entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="access-stats", daemon=True)
                self._thread.start()
            self._changed.notify()

    def flush(self) -> None:
        """Write everything queued so far, on this thread (or wait for the background writer's batch
        under way). Not from inside a write transaction of another thread's making."""
        with self._changed:
            idle = not self._queue and not self._in_flight
        if not idle:
            self._write_queued()

    def close(self) -> None:
        """Stop the background writer and write what is left (a clean close loses no record)."""
        with self._changed:
            self._stop.set()
            self._changed.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
        self._write_queued()
        self._store.before_write(None)

    # ---- writing ---------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            with self._changed:
                while not self._queue and not self._stop.is_set():
                    self._changed.wait()
            if self._stop.wait(GATHER_S):
                return  # close() writes what is left
            self._write_queued()

    def _write_queued(self) -> None:
        """Every queued record in one transaction. Also the store's before-write hook, so it runs with the
        store's lock held and its own nested write must not call it again."""
        with self._store.lock:  # a batch under way on another thread commits before this goes on
            if self._writing:
                return
            with self._changed:
                batch, self._queue = self._queue, []
                self._in_flight = len(batch)
            if not batch:
                return
            self._writing = True
            try:
                with self._store.write() as db:
                    for entry in batch:
                        if isinstance(entry, UseRecord):
                            _write_use(db, entry)
                            continue
                        # A recall is a use: it resets the memory's fading and, after a gap, slows it.
                        decay.record_access(db, list(entry.ids), entry.at, entry.policy)
                        log_search(db, to_db(entry.at), entry.client, len(entry.ids), entry.deep, entry.mode)
            except Exception:
                with self._changed:  # kept, in order, for the next try
                    self._queue[:0] = batch
                _log.warning("could not write %d searches' access statistics yet", len(batch), exc_info=True)
            finally:
                self._writing = False
                with self._changed:
                    self._in_flight = 0


def _write_use(db: apsw.Connection, entry: UseRecord) -> None:
    """Only memories the client may see count: an id it cannot see (another client's private memory, or
    none at all) is dropped here, after the tool answered, so its reply is the same either way."""
    ids = visible_ids(db, entry.ids, entry.client)
    if not ids:
        return
    decay.record_access(db, ids, entry.at, entry.policy)
    add_accesses(db, ids, USED_WEIGHT - 1)
    log_uses(db, to_db(entry.at), entry.client, len(ids))
