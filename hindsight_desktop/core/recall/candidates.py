"""Where recall's candidates come from, besides the vector index: keywords (also in the other
language), named entities weighted by rarity, each filtered by who may see them while gathered."""

from __future__ import annotations

import math
from collections.abc import Callable

import apsw

from hindsight_desktop.core.index import bilingual, keyword, keyword_stats
from hindsight_desktop.core.store import entities, memories

ENTITY_CAP = 100  # an entity named in more memories than this is too common to point anywhere


def cross_language_hits(
    db: apsw.Connection, question: str, pool: int, viewer: str | None, seen: keyword_stats.View | None = None
) -> dict[int, float]:
    """Keyword hits for the question's words in the other language (bilingual.py): "女儿对什么食物过敏？"
    also searches "daughter food allergic", so the English memory that answers it is a candidate.
    None while the lexicon is still being built (a search never waits for it)."""
    lexicon = bilingual.lexicon()
    translated = bilingual.other_language_terms(lexicon, question) if lexicon is not None else []
    return visible_hits(db, lambda k: keyword.search_words(db, translated, k, seen), pool, viewer) if translated else {}


def visible_hits(
    db: apsw.Connection, fetch: Callable[[int], list[tuple[int, float]]], pool: int, viewer: str | None
) -> dict[int, float]:
    """The best `pool` hits of `fetch(k)` that `viewer` may see. Other clients' private memories are
    dropped while candidates are gathered, and more are fetched in their place, so they neither leak
    into the viewer's results nor crowd its own memories out of the pool."""
    k = pool
    while True:
        hits = fetch(k)
        if viewer is None:
            return dict(hits)
        hidden = memories.hidden_from(db, [rowid for rowid, _ in hits], viewer)
        seen = [(rowid, score) for rowid, score in hits if rowid not in hidden]
        if len(seen) >= pool or len(hits) < k:  # enough, or the index has nothing more
            return dict(seen[:pool])
        k *= 2


def entity_hits(
    db: apsw.Connection, qentities: set[tuple[str, str]], viewer: str | None, total: int
) -> dict[int, float]:
    """How much of the query's entities each memory names, each weighted by how rare it is (IDF)
    among the `total` memories the viewer may see.

    A name that appears in half the memories (say, the person's own) says little about which one
    is meant; a flight number or a date that appears twice says a lot.
    """
    if not qentities:
        return {}
    weights: dict[tuple[str, str], float] = {}
    matches: dict[tuple[str, str], list[int]] = {}
    # Rarity is counted among the memories the viewer may see: others' private ones neither weigh nor match.
    for kind, value in qentities:
        rows = entities.naming(db, value, kind, viewer, ENTITY_CAP + 1)
        df = len(rows)
        weights[(kind, value)] = max(0.0, math.log((total + 1) / (df + 1))) if df <= ENTITY_CAP else 0.0
        matches[(kind, value)] = rows if df <= ENTITY_CAP else []
    # Scale by the rarest possible entity (named once), not by the query's own entities, so a query
    # whose only entity is a common name does not hand every memory of that name a full score.
    norm = math.log((total + 1) / 2) or 1.0
    scores: dict[int, float] = {}
    for key, rows in matches.items():
        for rowid in rows:
            scores[rowid] = scores.get(rowid, 0.0) + weights[key] / norm
    return scores
