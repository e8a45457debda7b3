"""Whether a memory's own words match a keyword expression, without the terms the index adds.

The words index holds more than the text: each memory's event date in words and its normalised entity
values (keyword.extra_terms), so that "what did I do in May?" finds it. An action that takes what a
memory *says* (forget by query) must not follow those: "December" would sweep up every memory dated
in December. The candidates the index found are matched again here, against an index entry built from
their text alone, in a temporary FTS table with the words index's own tokenizer (same stemming, same
Chinese segmentation), so the two can never disagree about what a word is.
"""

from __future__ import annotations

import re

import apsw

from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.store import memories, values

_TABLE = "temp.own_words"
_TOKENIZE = re.compile(r"tokenize\s*=\s*'([^']*)'")


def _tokenizer(db: apsw.Connection) -> str:
    row = db.execute("SELECT sql FROM sqlite_master WHERE name = 'fts_words'").fetchone()
    found = _TOKENIZE.search(str(row[0])) if row else None
    if found is None:
        raise RuntimeError("the words index (fts_words) is missing or names no tokenizer")
    return found.group(1)


def matching(db: apsw.Connection, rowids: list[int], expression: str) -> set[int]:
    """Those of `rowids` whose own text (keyword.index_body with no extra terms) matches `expression`
    (keyword.match_expression's form)."""
    texts: dict[int, str] = {}
    for chunk in values.chunks(rowids):
        texts.update(memories.contents(db, list(chunk)))
    if not texts:
        return set()
    db.execute(f"DROP TABLE IF EXISTS {_TABLE}")
    db.execute(f"CREATE VIRTUAL TABLE {_TABLE} USING fts5 (body, tokenize='{_tokenizer(db)}')")
    try:
        db.executemany(
            f"INSERT INTO {_TABLE} (rowid, body) VALUES (?, ?)",
            [(rowid, keyword.index_body(text, [])) for rowid, text in texts.items()],
        )
        return {int(r) for (r,) in db.execute(f"SELECT rowid FROM {_TABLE} WHERE own_words MATCH ?", (expression,))}
    finally:
        db.execute(f"DROP TABLE {_TABLE}")
