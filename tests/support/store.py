"""Memories put straight into a store with their keyword index entries, for tests of the indexes
that need no model or write path."""

from __future__ import annotations

from datetime import datetime

from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.timeutil import to_db


def insert_indexed(db, content: str, occurred: datetime, old_style: bool = False) -> int:
    db.execute(
        "INSERT INTO memories (id, content, layer, type, importance, client, scope, created_at, occurred_at, "
        "updated_at, content_hash) VALUES (?, ?, 'episodic', 'note', 0.5, 'test', 'shared', ?, ?, ?, ?)",
        (f"m{abs(hash(content))}", content, to_db(occurred), to_db(occurred), to_db(occurred), str(hash(content))),
    )
    rowid = db.last_insert_rowid()
    if old_style:  # the words index as schema 5 wrote it: the text and its character pairs only
        body = "\n".join([content, " ".join(keyword.cjk_pairs(content))])
        db.execute("INSERT INTO fts_words (rowid, body) VALUES (?, ?)", (rowid, body))
        db.execute("INSERT INTO fts_trigram (rowid, body) VALUES (?, ?)", (rowid, content))
    else:
        keyword.add(db, rowid, content, [], occurred)
    return rowid
