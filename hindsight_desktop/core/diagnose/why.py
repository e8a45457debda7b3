"""Why wasn't this recalled? The design's troubleshooting steps for one query and one memory: does it
exist, is it active, is it indexed, do its words match, how similar is it, where does it rank.

Everything here reads (its search is not logged, so the hit rate stays honest).

>>> engine.why("passport expiry", "mem_…").verdict                  # doctest: +SKIP
'archived: normal recall skips archived memories'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import apsw
import numpy as np

from hindsight_desktop.core import validate
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.diagnose.checks import MAINTENANCE_FIX
from hindsight_desktop.core.errors import NotFound
from hindsight_desktop.core.index import coverage, keyword
from hindsight_desktop.core.model import switching
from hindsight_desktop.core.records import SearchResult
from hindsight_desktop.core.store import models
from hindsight_desktop.core.store.memories import load_memory
from hindsight_desktop.core.text.language import dominant_language

DEFAULT_LIMIT = 5  # what `search` and the memory_search tool return unless asked for more
RANK_DEPTH = 200  # the most results a search may return: a memory below this is "not found at all"


@dataclass
class Explanation:
    """The five troubleshooting steps for one query and one memory, with the verdict they add up to."""

    query: str
    memory_id: str
    exists: bool
    verdict: str = ""
    fix: str = ""
    recalled: bool = False  # would be among the first DEFAULT_LIMIT results of a normal search
    content: str | None = None
    status: str | None = None
    layer: str | None = None
    superseded_by: str | None = None
    vector_models: list[str] = field(default_factory=list)  # models whose index holds its vector
    keyword_indexed: bool = False
    terms: list[str] = field(default_factory=list)
    matched_terms: list[str] = field(default_factory=list)
    similarity: float | None = None
    deep: bool = False  # ranked in a deep search (archived memories are only found that way)
    rank: int | None = None
    nearest_rank: int | None = None  # listed only as one of the nearest in meaning (no evidence: not a find)
    relevance: float | None = None
    scores: dict[str, float] = field(default_factory=dict)
    results: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Search = Callable[..., SearchResult]  # the engine's search (query, limit=, deep=, log=)


def why_not_recalled(parts: Parts, search: Search, query: str, memory_id: str) -> Explanation:
    """Explain where `memory_id` stands for `query`: exists, status, vector, keywords, similarity, rank.
    `search` is the engine's own, so the rank is exactly the one a search gives."""
    text = validate.query(query)
    with parts.store.read() as db:
        try:
            rowid, memory = load_memory(db, memory_id)
        except NotFound:
            ex = Explanation(query=text, memory_id=memory_id, exists=False)
            return _judge(ex, 0.0)
        ex = Explanation(
            query=text,
            memory_id=memory.id,
            exists=True,
            content=memory.content,
            status=memory.status,
            layer=memory.layer,
            superseded_by=memory.superseded_by,
        )
        ex.vector_models = _vector_models(db, parts.vectors, rowid)
        ex.terms = keyword.query_terms(text)
        ex.keyword_indexed, ex.matched_terms = _keyword_evidence(db, rowid, ex.terms)
        stored = parts.vectors.vectors(db, [rowid]).get(rowid)
    asked = dominant_language(text)
    if stored is not None and ex.vector_models:
        question = parts.centred_question(parts.embed([text], "query")[0], asked)
        ex.similarity = round(float(np.dot(stored, question)), 4)
    if memory.layer != "working":  # working memory is never a candidate: no search needed to know
        _rank(search, ex)
    # Recall's floor for a candidate with only vector evidence, for this question's language.
    scale = parts.calibration
    floor = scale.candidate_floor(asked)
    return _judge(ex, floor)


def _vector_models(db: apsw.Connection, vectors: Any, rowid: int) -> list[str]:
    """Ask the vec0 tables themselves (the stored truth), not the in-process cache."""
    state = models.read_state(db)
    names = {row.num: row.model_id for row in (state.active, state.target) if row is not None}
    return [
        names.get(index.num, index.table)
        for index in switching.indexes(vectors)
        if coverage.has_row(db, index.table, rowid)
    ]


def _keyword_evidence(db: apsw.Connection, rowid: int, terms: list[str]) -> tuple[bool, list[str]]:
    """Whether the memory is in the words index, and which of the query's terms match it there
    (each term matched on its own, quoted as recall quotes it, so stemming applies the same way)."""
    indexed = keyword.indexed(db, rowid)
    matched = [t for t in terms if indexed and keyword.matches(db, keyword.match_expression([t]), rowid)]
    return indexed, matched


def _rank(search: Search, ex: Explanation) -> None:
    # Deep only for an archived memory: archived candidates would otherwise shift every other rank,
    # and the rank that matters is the one a normal search gives. log=False keeps the hit rate honest.
    ex.deep = ex.status == "archived"
    result = search(ex.query, limit=RANK_DEPTH, deep=ex.deep, log=False)
    ex.results = len(result.hits)
    for hit in result.hits:
        if hit.memory.id == ex.memory_id:
            if hit.evidenced:
                ex.rank, ex.relevance, ex.scores = hit.rank, round(hit.relevance, 4), dict(hit.scores)
            else:
                ex.nearest_rank = hit.rank
            break
    ex.recalled = not ex.deep and ex.rank is not None and ex.rank <= DEFAULT_LIMIT


def _judge(ex: Explanation, min_similarity: float) -> Explanation:
    ex.verdict, ex.fix = _verdict(ex, min_similarity)
    return ex


def _verdict(ex: Explanation, min_similarity: float) -> tuple[str, str]:
    """The first step of the troubleshooting list that fails decides the verdict (and its fix)."""
    mid = ex.memory_id
    if not ex.exists:
        return (
            "no memory has this id (a typo, or it was purged)",
            "look the memory up with `hindsight-desktop search` or in the timeline and use its id",
        )
    if ex.layer == "working":
        return (
            "in working memory only: it was not judged worth keeping, and working memory is never "
            "recalled (it expires)",
            'store it on purpose: `hindsight-desktop add "..."` is always kept',
        )
    if ex.status == "archived":
        deep_fix = f"search with deep=true (`--deep`) or restore it: `hindsight-desktop restore {mid}`"
        if ex.rank:
            return f"archived: normal recall skips archived memories (rank {ex.rank} in a deep search)", deep_fix
        # Restoring alone would not help here: say why even a deep search misses it.
        why, fix = _ranking_verdict(ex, "", min_similarity)
        return f"archived, and not found by a deep search either: {why}", f"{fix}; then {deep_fix}"
    if not ex.vector_models or not ex.keyword_indexed:
        lacking = " and ".join(
            n
            for n, bad in (
                ("a vector from the current model", not ex.vector_models),
                ("a keyword index entry", not ex.keyword_indexed),
            )
            if bad
        )
        return f"not fully indexed: it has no {lacking}", MAINTENANCE_FIX
    superseded = ""
    if ex.status == "superseded":
        superseded = f"superseded by {ex.superseded_by}: it ranks below its replacement at half its score; "
    if ex.recalled:
        if superseded:
            return (
                superseded + f"still found at rank {ex.rank}",
                f"if it is still true, restore it: `hindsight-desktop restore {mid}`",
            )
        return f"recalled: rank {ex.rank} of {ex.results}", ""
    return _ranking_verdict(ex, superseded, min_similarity)


def _ranking_verdict(ex: Explanation, superseded: str, min_similarity: float) -> tuple[str, str]:
    restore = f"; if it is still true, restore it: `hindsight-desktop restore {ex.memory_id}`" if superseded else ""
    if ex.rank is not None:
        return (
            superseded + f"found, but at rank {ex.rank}: below the default limit of {DEFAULT_LIMIT}",
            "ask for more results (`--limit`), search with more specific words, or pin it / raise its "
            "importance" + restore,
        )
    similarity = ex.similarity if ex.similarity is not None else 0.0
    if not ex.matched_terms and similarity < min_similarity:
        listed = (
            f" (listed at rank {ex.nearest_rank} only as one of the nearest in meaning, which does not count as found)"
            if ex.nearest_rank
            else ""
        )
        return (
            superseded + f"no keyword match and low similarity ({similarity:.2f}, below {min_similarity:.2f}): "
            "the query shares neither words nor meaning with it" + listed,
            "add the words you search with to the memory (edit it), or search with words it contains" + restore,
        )
    return (
        superseded + f"outranked: {ex.results} other memories scored higher",
        "search with more specific words, or pin it / raise its importance" + restore,
    )
