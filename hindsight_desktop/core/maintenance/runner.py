"""Maintenance: one entry point for the idle scheduler, the `memory_reflect` tool and the CLI.

Passes, in order: drop expired working memory; resolve contradictions the write path missed; merge
near-duplicates and consolidate repeated episodic statements (one look at each memory's neighbours);
consolidate statements of the same extracted fact; archive what faded; enforce the per-client cap;
repair the indexes. Each pass works in bounded batches, one short write transaction each, so the
MCP server keeps writing in between. `should_stop` is asked after every batch: a stopped run records
where it was and the next run resumes there. Every run is recorded in `maintenance_runs`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

import apsw

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.maintenance import decay, repair
from hindsight_desktop.core.maintenance.consolidate import Summarizer, consolidate_facts
from hindsight_desktop.core.maintenance.contradictions import contradictions_pass
from hindsight_desktop.core.maintenance.neighbours import neighbours_pass
from hindsight_desktop.core.maintenance.passes import Pass, RunContext
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy
from hindsight_desktop.core.store import meta, models, runs
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.runs import fail_unfinished, finish_run, start_run
from hindsight_desktop.core.timeutil import to_db

# Stored keys and the run kind keep the operation's first name, "reflect", so existing files resume.
RESUME = "reflect.resume"
LEASE = "reflect.lease"
LEASE_SECONDS = 120  # a run that has not finished a batch for this long is taken to have died

COUNTS = (
    "expired_working",
    "contradictions",
    "merged",
    "consolidated",
    "evidence_added",
    "archived",
    "capacity_archived",
    "orphan_index_rows",
    "repaired",
    "dead_links",
)

Progress = Callable[[str, int], None]


def passes(summarizer: Summarizer | None) -> list[tuple[str, Pass]]:
    return [
        ("expired", decay.drop_expired),
        ("contradictions", contradictions_pass),
        ("neighbours", lambda ctx: neighbours_pass(ctx, summarizer)),
        ("facts", lambda ctx: consolidate_facts(ctx, summarizer)),
        ("faded", decay.archive_faded),
        ("capacity", decay.enforce_capacity),
        ("repair", repair.repair_pass),
    ]


def run_maintenance(
    parts: Parts,
    client: str,
    *,
    policy: MaintenancePolicy | None = None,
    should_stop: Callable[[], bool] | None = None,
    progress: Progress | None = None,
    summarizer: Summarizer | None = None,
) -> dict[str, Any]:
    """Run maintenance now (or continue a stopped run). Returns the report, also stored with the run."""
    started = time.perf_counter()
    ctx = RunContext(
        parts=parts, client=client, now=parts.clock(), policy=policy or MaintenancePolicy.from_settings(parts.settings)
    )
    ctx.report.update({key: 0 for key in COUNTS})
    lease = f"{os.getpid()}:{id(ctx)}"
    with parts.store.write() as db:
        if not _take_lease(db, lease):
            ctx.report["seconds"] = 0.0
            ctx.report["run"] = {"skipped": "another maintenance run is in progress"}
            return ctx.report
        fail_unfinished(db, "reflect", ctx.now_db)  # this process holds the lease: any other run has ended
        ctx.switching = models.read_state(db).switch is not None
        resume = meta.get(db, RESUME, "")
    run_id = start_run(parts.store, "reflect", client, ctx.now_db)
    order = passes(summarizer)
    names = [name for name, _ in order]
    first = names.index(resume) if resume in names else 0
    batches, stopped_at = 0, None
    try:
        for name, run_pass in order[first:]:
            for _ in run_pass(ctx):
                batches += 1
                _heartbeat(parts, lease)
                if progress is not None:
                    progress(name, batches)
                time.sleep(0)  # let other threads (an event loop, the Qt main thread) take the GIL
                if should_stop is not None and should_stop():
                    stopped_at = name
                    break
            if stopped_at is not None:
                break
    except BaseException as exc:
        _end(parts, run_id, ctx, started, "failed", batches, None, resume, lease, error=repr(exc))
        raise
    return _end(parts, run_id, ctx, started, "stopped" if stopped_at else "done", batches, stopped_at, resume, lease)


def _end(
    parts: Parts,
    run_id: int,
    ctx: RunContext,
    started: float,
    status: str,
    batches: int,
    stopped_at: str | None,
    resumed: str,
    lease: str,
    error: str | None = None,
) -> dict[str, Any]:
    ctx.report["seconds"] = round(time.perf_counter() - started, 3)
    ctx.report["run"] = {
        "id": run_id,
        "status": status,
        "batches": batches,
        "resumed_from": resumed or None,
        "stopped_at": stopped_at,
        **({"error": error} if error else {}),
    }
    with parts.store.write() as db:
        if status == "done":
            meta.remove(db, RESUME)
        elif stopped_at is not None:
            meta.put(db, RESUME, stopped_at)
        if meta.get(db, LEASE, "").startswith(lease + "|"):
            meta.remove(db, LEASE)
        counts = {k: v for k, v in ctx.report.items() if not isinstance(v, list)}
        log_event(db, to_db(parts.clock()), "reflect", None, ctx.client, counts)
        finish_run(db, run_id, to_db(parts.clock()), status, ctx.report["seconds"], ctx.report)
    if status == "done":
        parts.store.optimize()
    return ctx.report


def _take_lease(db: apsw.Connection, lease: str) -> bool:
    holder = meta.get(db, LEASE, "")
    if holder:
        beat = float(holder.rpartition("|")[2] or 0)
        if time.time() - beat < LEASE_SECONDS and _holder_alive(holder):
            return False
    meta.put(db, LEASE, f"{lease}|{time.time()}")
    return True


def _holder_alive(holder: str) -> bool:
    """Whether the process named in a lease ("pid:id|beat") still exists. A run killed outright (kill -9,
    a crash) leaves its lease behind; without this check maintenance would wait out LEASE_SECONDS."""
    pid = holder.partition(":")[0]
    if os.name != "posix" or not pid.isdigit():
        return True  # on Windows os.kill would end the process: rely on the heartbeat alone
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, under another account
        return True
    return True


def _heartbeat(parts: Parts, lease: str) -> None:
    # Wall-clock time on purpose: the lease is about whether a process is alive, not about memory time.
    with parts.store.write() as db:
        if meta.get(db, LEASE, "").startswith(lease + "|"):
            meta.put(db, LEASE, f"{lease}|{time.time()}")


def last_runs(parts: Parts, limit: int = 20) -> list[dict[str, Any]]:
    """The most recent maintenance and re-embed runs, newest first."""
    with parts.store.read() as db:
        rows = runs.latest(db, limit)
    return [{**row._asdict(), "report": json.loads(row.report)} for row in rows]
