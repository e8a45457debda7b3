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

from hindsight_desktop.core import keyword, spaces
from hindsight_desktop.core.passes import RunContext
from hindsight_desktop.core.timeutil import from_db

# The rowids that belong in the keyword and vector indexes (working memory is never indexed).
LONG_TERM_ROWIDS = "SELECT rowid FROM memories WHERE layer != 'working'"


def repair_pass(ctx: RunContext) -> Iterator[None]:
    yield from _remove_orphans(ctx)
    yield from _reindex_missing(ctx)
    with ctx.parts.store.write() as db:
        db.execute("DELETE FROM relations WHERE source_id NOT IN (SELECT id FROM memories) "
                   "OR target_id NOT IN (SELECT id FROM memories)")
        ctx.count("dead_links", db.changes())
        if not ctx.switching:
            ctx.parts.vectors.prune_log(db)
    yield


def _remove_orphans(ctx: RunContext) -> Iterator[None]:
    store, batch = ctx.parts.store, ctx.policy.batch
    indexes = [] if ctx.switching else spaces.indexes(ctx.parts.vectors)
    with store.read() as db:
        vector_orphans = [(index, r) for index in indexes
                          for (r,) in db.execute(f"SELECT rowid FROM {index.table} WHERE rowid NOT IN ({LONG_TERM_ROWIDS})")]
        fts_orphans = [r for (r,) in db.execute(f"SELECT rowid FROM fts_words WHERE rowid NOT IN ({LONG_TERM_ROWIDS})")]
    work: list[tuple[Callable[[apsw.Connection, int], int], int]] = [
        *((index.delete, r) for index, r in vector_orphans), *((keyword.delete, r) for r in fts_orphans)]
    for start in range(0, len(work), batch):
        with store.write() as db:
            for delete, rowid in work[start:start + batch]:
                # Checked again inside the transaction: a write may have reused the rowid since.
                if db.execute(f"{LONG_TERM_ROWIDS} AND rowid = ?", (rowid,)).fetchone() is None and delete(db, rowid):
                    ctx.count("orphan_index_rows")
        yield


def _reindex_missing(ctx: RunContext) -> Iterator[None]:
    parts, batch = ctx.parts, ctx.policy.batch
    vector_check = "" if ctx.switching else f"rowid NOT IN (SELECT rowid FROM {parts.vectors.table}) OR "
    with parts.store.read() as db:
        missing = db.execute(
            f"SELECT rowid, content, entities, occurred_at FROM memories WHERE layer != 'working' AND "
            f"({vector_check}rowid NOT IN (SELECT rowid FROM fts_words))").fetchall()
    for start in range(0, len(missing), batch):
        chunk = missing[start:start + batch]
        # Embedded before the write lock is taken.
        vectors = spaces.embed_in_groups(parts.embed, [content for _, content, _, _ in chunk])
        with parts.store.write() as db:
            for (rowid, content, entities, occurred), vector in zip(chunk, vectors, strict=True):
                row = db.execute("SELECT content FROM memories WHERE rowid = ? AND layer != 'working'",
                                 (rowid,)).fetchone()
                if row is None or row[0] != content:
                    continue  # edited or gone meanwhile: the edit indexed it already
                keyword.delete(db, rowid)
                pairs = [(e["kind"], e["value"]) for e in json.loads(entities)]
                keyword.add(db, rowid, content, pairs, from_db(occurred))
                parts.vectors.add(db, rowid, vector)
                ctx.count("repaired")
        yield
