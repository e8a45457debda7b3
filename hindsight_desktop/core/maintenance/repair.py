"""Index repair: the keyword and vector indexes are checked against the memories table.

Index rows whose memory is gone are removed, memories missing from an index are indexed again, links
to memories that no longer exist are removed, and the vector change log is trimmed. While the
embedding model is being switched, vectors are left to the re-embedder, which checks completeness
itself before it finishes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import apsw

from hindsight_desktop.core.index import coverage, keyword
from hindsight_desktop.core.maintenance.passes import RunContext, stored_time
from hindsight_desktop.core.model import switching
from hindsight_desktop.core.store import relations


def repair_pass(ctx: RunContext) -> Iterator[None]:
    yield from _remove_orphans(ctx)
    yield from _reindex_missing(ctx)
    with ctx.parts.store.write() as db:
        ctx.count("dead_links", relations.drop_dangling(db))
        if not ctx.switching:
            ctx.parts.vectors.prune_log(db)
    yield


def _remove_orphans(ctx: RunContext) -> Iterator[None]:
    store, batch = ctx.parts.store, ctx.policy.batch
    indexes = [] if ctx.switching else switching.indexes(ctx.parts.vectors)
    with store.read() as db:
        vector_orphans = [(index, r) for index in indexes for r in coverage.orphans(db, index.table)]
        fts_orphans = coverage.orphans(db, coverage.KEYWORD_TABLE)
    work: list[tuple[Callable[[apsw.Connection, int], int], int]] = [
        *((index.delete, r) for index, r in vector_orphans),
        *((keyword.delete, r) for r in fts_orphans),
    ]
    for start in range(0, len(work), batch):
        with store.write() as db:
            for delete, rowid in work[start : start + batch]:
                # Checked again inside the transaction: a write may have reused the rowid since.
                if not coverage.is_long_term(db, rowid) and delete(db, rowid):
                    ctx.count("orphan_index_rows")
        yield


def _reindex_missing(ctx: RunContext) -> Iterator[None]:
    parts, batch = ctx.parts, ctx.policy.batch
    with parts.store.read() as db:
        missing = coverage.unindexed(db, None if ctx.switching else parts.vectors.table)
    for start in range(0, len(missing), batch):
        chunk = missing[start : start + batch]
        # Embedded before the write lock is taken.
        vectors = switching.embed_in_groups(parts.embed, [row.content for row in chunk])
        with parts.store.write() as db:
            for row, vector in zip(chunk, vectors, strict=True):
                if coverage.long_term_content(db, row.rowid) != row.content:
                    continue  # edited or gone meanwhile: the edit indexed it already
                keyword.delete(db, row.rowid)
                pairs = [(e["kind"], e["value"]) for e in json.loads(row.entities)]
                keyword.add(db, row.rowid, row.content, pairs, stored_time(row.occurred_at))
                parts.vectors.add(db, row.rowid, vector)
                ctx.count("repaired")
        yield
