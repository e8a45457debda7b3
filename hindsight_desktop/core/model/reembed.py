"""Switching the embedding model: register the new model's vector table, then re-embed every memory
into it in batches, then drop the old vectors.

The state lives in the memory file (`model_switch`): each batch writes its vectors and moves the
cursor in one transaction, so a crash or a kill loses at most the batch in flight and the next run
carries on from the cursor. Memories changed meanwhile by a process that only has the old model are
found in the vector change log and embedded again. Until the switch finishes, recall scores each
memory in its own model's space (see model/switching.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import apsw
import numpy as np

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model import switching
from hindsight_desktop.core.model.embedder import Embedder
from hindsight_desktop.core.store import models, vectors
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.runs import finish_run, start_run
from hindsight_desktop.core.store.vectors import VectorIndex
from hindsight_desktop.core.timeutil import to_db

DEFAULT_BATCH = 64
Progress = Callable[[int, int], None]


def choose(store: Store, embedder: Embedder, now: datetime, client: str) -> str:
    """Make `embedder` the model to switch to. Returns started, switching, cancelled or unchanged."""
    path = str(Path(embedder.path).resolve())
    with store.write() as db:
        state = models.read_state(db)
        if state.active is None:
            raise ModelError("the memory file has no model yet; open it with the engine first")
        if embedder.model_id == state.active.model_id:
            models.set_path(db, state.active.num, path)
            if state.switch is None:
                return "unchanged"
            models.cancel_switch(db, now)  # back to the model in use: the half-made vectors go
            log_event(
                db, to_db(now), "model_switch", None, client, {"cancelled": state.target and state.target.model_id}
            )
            return "cancelled"
        if state.target is not None and state.target.model_id == embedder.model_id:
            return "switching"
        row = models.register(db, embedder.model_id, embedder.dim, path, now)
        models.begin_switch(db, state.active, row, now)
        log_event(db, to_db(now), "model_switch", None, client, {"from": state.active.model_id, "to": row.model_id})
    return "started"


def status(store: Store) -> dict[str, Any]:
    with store.read() as db:
        state = models.read_state(db)
        total = vectors.long_term_count(db)
        done = vectors.long_term_count(db, state.switch.cursor) if state.switch else total
    return {
        "active": _describe(state.active),
        "target": _describe(state.target),
        "switching": state.switch is not None,
        "done": done,
        "total": total,
        "started_at": state.switch.started_at if state.switch else None,
    }


def _describe(row: models.ModelRow | None) -> dict[str, Any] | None:
    return None if row is None else {"model_id": row.model_id, "dim": row.dim, "path": row.path}


@dataclass
class _Plan:
    switch: models.SwitchRow
    rows: list[tuple[int, str]]
    cursor: int
    log_seq: int
    total: int


def run(
    parts: Parts,
    client: str,
    *,
    batch: int = DEFAULT_BATCH,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Re-embed until the switch is done or `should_stop()` says stop (checked after every batch)."""
    store = parts.store
    with store.read() as db:
        state = models.read_state(db)
    if state.switch is None or state.target is None:
        return {"status": "idle", **status(store)}
    embedder = parts.embedders.get(state.target.num)
    if embedder is None:
        raise ModelError(f"the new model {state.target.model_id} cannot be loaded from {state.target.path}")
    index = VectorIndex(state.target.num, state.target.dim)
    started, written, batches = time.perf_counter(), 0, 0
    run_id = start_run(store, "reembed", client, to_db(parts.clock()))
    outcome = "stopped"
    try:
        while True:
            plan = _plan(store, state.target.num, batch)
            if plan is None:
                outcome = "changed"  # another process cancelled or retargeted the switch
                break
            if not plan.rows and (plan.cursor, plan.log_seq) == (plan.switch.cursor, plan.switch.log_seq):
                if _finish(store, index, plan.switch, parts.clock(), client):
                    outcome = "done"
                    break
                continue
            made = switching.embed_in_groups(embedder.embed, [text for _, text in plan.rows]) if plan.rows else None
            written += _apply(store, index, plan, made)
            batches += 1
            if progress is not None:
                progress(min(plan.total, _done(store, plan)), plan.total)
            time.sleep(0)  # let other threads take the GIL between batches
            if should_stop is not None and should_stop():
                break
    except BaseException as exc:
        with store.write() as db:
            finish_run(
                db,
                run_id,
                to_db(parts.clock()),
                "failed",
                time.perf_counter() - started,
                {"error": repr(exc), "reembedded": written},
            )
        raise
    seconds = round(time.perf_counter() - started, 3)
    report = {
        "status": outcome,
        "reembedded": written,
        "batches": batches,
        "seconds": seconds,
        "per_second": round(written / seconds, 1) if seconds else None,
    }
    with store.write() as db:
        finish_run(db, run_id, to_db(parts.clock()), "done" if outcome == "done" else "stopped", seconds, report)
    return {**report, **status(store)}


def _done(store: Store, plan: _Plan) -> int:
    with store.read() as db:
        return vectors.long_term_count(db, plan.cursor)


def _plan(store: Store, target_num: int, batch: int) -> _Plan | None:
    """What the next batch embeds: changes the old-model processes made behind the cursor first,
    then the next memories after it."""
    with store.read() as db:
        switch = models.read_state(db).switch
        if switch is None or switch.to_num != target_num:
            return None
        total = vectors.long_term_count(db)
        latest = models.latest_change(db)
        redo = vectors.long_term_texts(db, _changed_behind_cursor(db, switch, latest))
        if redo:  # the log window only moves on once everything in it is embedded again
            return _Plan(switch, redo[:batch], switch.cursor, latest if len(redo) <= batch else switch.log_seq, total)
        rows = vectors.long_term_after(db, switch.cursor, batch)
        if rows:
            return _Plan(switch, rows, rows[-1][0], latest, total)
        missing = vectors.without_vector(db, f"vec_{switch.to_num}", batch)
        return _Plan(switch, missing, switch.cursor, latest, total)


def _changed_behind_cursor(db: apsw.Connection, switch: models.SwitchRow, latest: int) -> list[int]:
    """Rowids at or before the cursor whose old-space vector was rewritten (an edit, or a new memory
    reusing a rowid) after their new-space vector was made."""
    last_old: dict[int, int] = {}
    last_new: dict[int, int] = {}
    for seq, num, rowid, op in models.changes_between(db, switch.log_seq, latest, (switch.from_num, switch.to_num)):
        if op == "add":
            (last_old if num == switch.from_num else last_new)[rowid] = seq
    return sorted(r for r, seq in last_old.items() if r <= switch.cursor and last_new.get(r, 0) < seq)


def _apply(store: Store, index: VectorIndex, plan: _Plan, made: np.ndarray | None) -> int:
    """Store one batch and move the cursor, in one transaction; 0 when another re-embedder got there first."""
    written = 0
    with store.write() as db:
        if models.read_state(db).switch != plan.switch:
            return 0
        for (rowid, text), vector in zip(plan.rows, made if made is not None else [], strict=True):
            if vectors.long_term_text(db, rowid) == text:  # else it changed after we read it: done again later
                index.add(db, rowid, vector)
                written += 1
        models.move_cursor(db, plan.cursor, plan.log_seq, written)
    return written


def _finish(store: Store, index: VectorIndex, seen: models.SwitchRow, now: datetime, client: str) -> bool:
    """Make the new model the one in use and drop the old vectors, if every memory has a new vector."""
    with store.write() as db:
        state = models.read_state(db)
        if state.switch != seen:
            return False
        if _changed_behind_cursor(db, seen, models.latest_change(db)):
            return False
        if vectors.without_vector(db, index.table, 1):
            return False
        for rowid in vectors.orphans(db, index.table):
            index.delete(db, rowid)  # memories purged by a process that only had the old model
        models.drop_space(db, seen.from_num, now)
        models.set_active(db, seen.to_num)
        models.end_switch(db)
        models.bump_generation(db)
        log_event(
            db,
            to_db(now),
            "model_switch",
            None,
            client,
            {
                "finished": state.target.model_id if state.target else None,
                "retired": state.active.model_id if state.active else None,
            },
        )
    return True


class ReembedJob:
    """A re-embed on a background thread; `stop()` makes it stop at the next batch boundary."""

    def __init__(self, work: Callable[..., dict[str, Any]], progress: Progress | None = None) -> None:
        self._stop = threading.Event()
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work, progress), name="hindsight-reembed", daemon=True)
        self._thread.start()

    def _run(self, work: Callable[..., dict[str, Any]], progress: Progress | None) -> None:
        try:
            self.result = work(progress=progress, should_stop=self._stop.is_set)
        except BaseException as exc:  # handed to whoever joins
            self.error = exc

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()

    def join(self, timeout: float | None = None) -> dict[str, Any] | None:
        self._thread.join(timeout)
        if self.error is not None:
            raise self.error
        return self.result
