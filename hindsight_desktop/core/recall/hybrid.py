"""Hybrid recall: candidates from the vector and keyword indexes and exact entity matches, fused with
recency, links, access frequency and importance. Every signal's score is kept for "why was this recalled".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime

import apsw
import numpy as np

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.index import bilingual, keyword, keyword_stats
from hindsight_desktop.core.recall import confidence as sure
from hindsight_desktop.core.recall import conflicts, dates, fact_questions, fusion, subjects
from hindsight_desktop.core.recall.candidates import cross_language_hits, entity_hits, visible_hits
from hindsight_desktop.core.recall.query import Query
from hindsight_desktop.core.records import MemoryFilter, SearchHit
from hindsight_desktop.core.store import entities, memories, relations
from hindsight_desktop.core.text.extract import extract_entities
from hindsight_desktop.core.text.language import dominant_language
from hindsight_desktop.core.timeutil import from_db

CANDIDATE_POOL = 100
CROSS_WEIGHT = 0.5  # a keyword found through translation counts half as much as one the question used
# The best keyword match counts in full only if it scores at least this share of what a memory holding
# every term of the question would (keyword.full_match_score); a weaker best match is scaled down with
# the rest, so a stray shared word or character pair does not outweigh a memory near in meaning
# (bench/NOTES.md).
KEYWORD_FULL_SHARE = 0.5
# The memories nearest in meaning stay candidates even below the evidence floor: in a store of one
# person's life many memories sit near every question, and a paraphrase that shares no word with its
# answer ("孩子现在多大了？" / "女儿朵朵今年六岁") can land under it. Their confidence stays low, and
# one kept only for this is not counted as a use or as a search that found something (SearchHit.evidenced).
NEAREST_KEPT = 5


@dataclass(frozen=True)
class RecallWeights:
    """How much each signal counts. Similarity and keywords carry the meaning; the rest break ties.

    The final order is `fusion`'s, or else the fitted fusion of the question's language (fusion.py).
    `vector`, `keyword`, `entity` and `fact` set the content score that linked hits spread; they and the
    tie-breakers below are fusion.HAND_SET's weights, which the why panel shows shares of."""

    fusion: fusion.Fusion | None = None
    vector: float = 0.50
    keyword: float = 0.30
    entity: float = 0.10
    fact: float = 0.15
    recency: float = 0.04
    access: float = 0.02
    importance: float = 0.08
    link: float = 0.30  # share of a linked top hit's score passed on (damped spreading)
    spread_from: int = 5  # how many of the strongest hits pass score on to their links
    pinned_bonus: float = 0.03
    superseded_factor: float = 0.5
    # A result that says nearly what a higher one already said costs a slot and adds little: above
    # this closeness to a higher result (calibration.closeness: 0 unrelated, 1 identical) it loses
    # `repeat` per unit of the excess.
    repeat: float = 0.30
    repeat_above: float = 0.57
    # Put the newer of two answers stating different values of one attribute first (conflicts.py).
    conflicts: bool = True
    # A result about someone other than whom the question names keeps this share of its relevance
    # (subjects.py): "where does Priya live?" puts Priya's memories before "I live in Beijing".
    other_subject: float = 0.85


@dataclass(slots=True)
class Ranked:
    """A scored candidate; it becomes a SearchHit (with the full memory) only if it makes the cut."""

    cand: Candidate
    relevance: float
    recency: float
    access: float
    repeat: float = 0.0  # how far it repeats a higher result (cosine above the threshold)
    other: float = 0.0  # relevance taken away: about someone other than whom the question names


# Only what scoring needs: a search weighs a few hundred candidates but returns a handful, and
# reading every candidate's text, entities and metadata would be most of a search's time in a large store.
# Recency counts from when it happened but never from later than when it was written (a claimed future
# date would otherwise rank first for ever): visibility.STATED_AT.
CANDIDATE_COLUMNS = (
    "m.rowid, m.id, m.importance, m.pinned, m.status, m.superseded_by, "
    "min(m.occurred_at, m.created_at), m.access_count, "
    # The opening of the text tells its language: the model's scale differs per language pair.
    "substr(m.content, 1, 120)"
)


@dataclass(slots=True)
class Candidate:
    rowid: int
    id: str
    importance: float
    pinned: bool
    status: str
    superseded_by: str | None
    occurred_at: datetime
    access_count: int
    lang: str = "en"  # the memory's dominant script (text/language.py)
    head: str = ""  # the opening of its text (CANDIDATE_COLUMNS): whom it names, for confidence
    says_something: bool = True  # more than a word or two: enough for its meaning to be evidence
    similarity: float = 0.0  # memory . centred question (calibration.py): the cosine less the memory's pull
    vector: float = 0.0  # the similarity on the model's calibrated scale (calibration.relevance)
    keyword: float = 0.0
    entity: float = 0.0
    link: float = 0.0
    fact: float = 0.0  # 1 when it is the active statement of a fact the question asks about
    period: float = 0.0  # the date window's share of `entity`
    vector_rank: float = 0.0  # fusion.rank_signal of its place in the vector order (0: no similarity)
    keyword_rank: float = 0.0
    base: float = 0.0


# How far past the limit results are read for whom they are about: an answer the model placed a few
# places below a near miss about someone else still comes into the limit.
OTHERS_WINDOW = 10
# Embeds questions while the search thread reads the indexes; two, so concurrent searches do not queue
# behind each other here (the model itself takes one text at a time).
_EMBEDDER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="query-embedding")


def recall(
    parts: Parts, q: Query, weights: RecallWeights | None = None, trace: list[dict[str, float]] | None = None
) -> list[SearchHit]:
    """The best `q.limit` memories for the query. `trace`, when given, receives every scored candidate's
    signals (bench/fusion_fit.py fits the fusion on them)."""
    asked = dominant_language(q.text)
    w = weights or RecallWeights()
    if w.fusion is None:
        w = replace(w, fusion=fusion.for_language(asked))
    now = parts.clock()
    # The question's embedding runs beside the keyword, entity and date look-ups
    # (in SQLite): both release the GIL, so on two cores the search waits for the longer, not the sum.
    # A question asked a moment ago is remembered: handing it to a thread would cost more than it saves.
    held = parts.embed.held(q.text, "query") if q.mode != "keyword" else None
    embedding = _EMBEDDER.submit(parts.embed, [q.text], "query") if q.mode != "keyword" and held is None else None
    # Dates count as periods (dates.py), not as exact values.
    found_dates = dates.question_dates(q.text, now)
    qentities = {
        (e.kind, e.value)
        for e in extract_entities(q.text, now, found_dates)
        if e.kind in entities.EXACT and e.kind != "date"
    }
    periods = dates.question_periods(found_dates) if q.mode == "hybrid" else []
    kw_text = dates.without_dates(q.text, found_dates)
    terms = keyword.query_terms(kw_text)  # for the full-match score and each result's shared words
    # The candidate pool does not shrink with a small limit, so the top 5 are the same whichever limit asks.
    pool = max(CANDIDATE_POOL, q.limit * 2)
    with parts.store.read() as db:
        # Keyword and rarity statistics count only what the asker may see (keyword_stats.py).
        seen = keyword_stats.view(db, q.client)
        kw_hits = (
            visible_hits(db, lambda k: keyword.search(db, kw_text, k, seen), pool, q.client)
            if q.mode != "vector"
            else {}
        )
        ent_hits = entity_hits(db, qentities, q.client, seen.words.rows) if q.mode == "hybrid" else {}
        cross_hits = cross_language_hits(db, q.text, pool, q.client, seen) if q.mode == "hybrid" else {}
        # "Who is my manager now?": the statement that currently holds it (fact_questions.py).
        named = any(kind == "person" for kind, _ in qentities)
        fact_hits = fact_questions.current_statements(db, q.text, q.client, named) if q.mode == "hybrid" else set()
        # Everything that needs only the question is done before waiting for its embedding, which the
        # model computes meanwhile on the other core: the rows found by words, whom the question is about,
        # and its terms' rarity for confidence.
        cands = _load(db, set(kw_hits) | set(ent_hits) | fact_hits | set(cross_hits), q)
        top_kw = max(kw_hits.values(), default=0.0)
        if kw_hits:
            top_kw = max(top_kw, KEYWORD_FULL_SHARE * keyword.full_match_score(db, terms, seen))
        top_cross = max(cross_hits.values(), default=0.0)
        about = subjects.of(q.text, now, found_dates, question=True)
        content, other = _confidence_terms(db, seen, kw_text, about)
        # Compared as centred on the language's average question (calibration.py): the question's
        # cosine less each memory's pull towards every question of that language.
        question = held if embedding is None else embedding.result()[0]
        qvec = None if question is None else parts.centred_question(question, asked)
        vec_hits = (
            {}
            if qvec is None
            else visible_hits(db, lambda k: parts.vectors.nearest(db, qvec, k, seen.hidden), pool, q.client)
        )
        found = set(vec_hits) | set(kw_hits) | set(ent_hits)
        period_hits = dates.period_hits(db, periods, found, pool, q.client, seen.words.rows)
        for rowid, score in period_hits.items():
            ent_hits[rowid] = ent_hits.get(rowid, 0.0) + score
        cands.update(_load(db, (set(vec_hits) | set(ent_hits)) - cands.keys(), q))
        cands = dict(sorted(cands.items()))  # in rowid order, as one read of them all gives them
        fillers: set[int] = set()  # kept only as nearest in meaning (NEAREST_KEPT)
        if not cands:
            return []
        if qvec is not None:
            _fill_similarity(parts, db, cands, qvec)
        for c in cands.values():
            _calibrate(parts, c, asked, qvec)
            c.keyword = min(1.0, kw_hits.get(c.rowid, 0.0) / top_kw) if top_kw > 0 else 0.0
            if top_cross > 0:
                c.keyword = max(c.keyword, CROSS_WEIGHT * cross_hits.get(c.rowid, 0.0) / top_cross)
            c.entity = min(1.0, ent_hits.get(c.rowid, 0.0))
            c.period = min(1.0, period_hits.get(c.rowid, 0.0))
            c.fact = 1.0 if c.rowid in fact_hits else 0.0
        if q.mode == "hybrid":
            _spread_links(parts, db, cands, q, w, qvec, now, asked)
            scale = parts.calibration
            # With no keyword, entity or link evidence, a candidate must be close enough to the question to
            # be as likely an answer as not, else it is noise: returning it would make every search "find"
            # something and hide misses from the hit rate (NEAREST_KEPT's few are listed, not counted).
            floor = scale.candidate_floor(asked)
            nearest = _nearest_in_meaning(cands.values()) if qvec is not None else set()
            fillers = {r for r in nearest if not _has_evidence(cands[r], floor)}
            cands = {r: c for r, c in cands.items() if r in fillers or _has_evidence(c, floor)}
        _fill_ranks(cands.values())
        ranked = _score_all(cands.values(), w, q.mode, now, parts.settings.recall_half_life_days)
        if trace is not None:
            trace.extend(_signals(r) | {"rowid": r.cand.rowid} for r in ranked)
        _bring_successors(parts, db, ranked, q, w, qvec, now, asked)
        ranked.sort(key=lambda r: -r.relevance)
        # Whom the question asks about (`about`), and whom the first results are about: ranking and
        # confidence both read it ("my wife" is also the Sarah a memory calls "my wife Sarah").
        tied = about  # with the names memories tie to it
        whom: dict[int, subjects.Match] = {}
        if about:
            window = ranked[: q.limit + OTHERS_WINDOW]
            tied, whom = _whom(db, window, about, [c.head for c in cands.values()], now)
            if q.mode == "hybrid" and w.other_subject < 1:
                _others_after(ranked, whom, len(window), w.other_subject)
        if q.mode == "hybrid" and w.repeat > 0:
            ranked = _demote_repeats(parts, db, ranked, q.limit, w)
        _rank_superseded_below_successors(ranked)
        if q.mode == "hybrid" and qvec is not None and w.conflicts:
            # Two values of one attribute that nothing tied at write time: the newer first (conflicts.py).
            conflicts.newer_first(parts, db, ranked, q.text, q.limit + conflicts.GAP)
        ranked = ranked[: q.limit]
        loaded = memories.load_memories(db, [r.cand.rowid for r in ranked])
    hits = [
        SearchHit(
            memory=loaded[r.cand.rowid],
            relevance=r.relevance,
            scores=_explain(r),
            evidenced=r.cand.rowid not in fillers,
        )
        for r in ranked
    ]
    # A name says whom the question is about, not what it asks: no exact-match lift from names alone.
    specific = any(kind != "person" for kind, _ in qentities)
    for i, (hit, r) in enumerate(zip(hits, ranked, strict=True), 1):
        hit.rank = i
        hit.confidence = sure.confidence(
            r.cand.similarity if qvec is not None else None,
            r.cand.entity if specific else 0.0,
            sure.coverage(content, hit.memory.content, other),
            parts.calibration,
            asked,
            same_subject=_about(whom, r.cand.rowid, tied, hit.memory.content),
            meaning_only=r.cand.rowid in fillers,
        )
    return hits


def _confidence_terms(
    db: apsw.Connection, seen: keyword_stats.View, kw_text: str, about: subjects.Subjects
) -> tuple[dict[str, float], dict[str, list[str]]]:
    """The question's content terms with their rarity among the memories the asker sees, and each one's
    words in the other language. Confidence weighs them; whom the question asks about is checked apart
    (subjects.py), so a memory that only names them covers nothing."""
    words = seen.words
    content = {
        t: sure.rarity(words.documents(db, keyword.quote(t)), words.rows)
        for t in sure.content_terms(kw_text)
        if not subjects.names_someone(about, t)
    }
    lexicon = bilingual.lexicon()  # None while it is being built: then no other-language words
    other = {t: bilingual.other_language_terms(lexicon, t) for t in content} if lexicon is not None else {}
    return content, other


def _bring_successors(
    parts: Parts,
    db: apsw.Connection,
    ranked: list[Ranked],
    q: Query,
    w: RecallWeights,
    qvec: np.ndarray | None,
    now: datetime,
    asked: str,
) -> None:
    """A superseded memory that qualifies brings in the memory that replaced it (to the end of the
    chain), scored at least as high as the old one would score were it current: "where do I live now?"
    must find the move, not only the old home, and a replacement that shares no word with the question
    ("Emily went home; Daniel teaches her now") must not fall out with the old statement's halved score."""
    by_id = {r.cand.id: r for r in ranked}
    owed: dict[str, float] = {}
    for r in ranked:
        if r.cand.status == "superseded" and r.cand.superseded_by:
            current = r.relevance / w.superseded_factor if w.superseded_factor > 0 else r.relevance
            owed[r.cand.superseded_by] = max(owed.get(r.cand.superseded_by, 0.0), current)
    for mid in [mid for mid in owed if mid in by_id]:  # already a candidate: lifted in place
        by_id[mid].relevance = max(by_id[mid].relevance, owed.pop(mid))
    present = set(by_id)
    half = parts.settings.recall_half_life_days
    for _ in range(8):  # a chain of replacements, followed a few links at most
        if not owed:
            return
        rowids = memories.rowids_of(db, owed)
        added = _load(db, rowids, q)  # the query's filters and the viewer's visibility still apply
        if qvec is not None:
            _fill_similarity(parts, db, added, qvec)
        following: dict[str, float] = {}
        for c in added.values():
            _calibrate(parts, c, asked, qvec)
        for c, r in zip(added.values(), _score_all(added.values(), w, q.mode, now, half), strict=True):
            r.relevance = max(r.relevance, owed[c.id])
            ranked.append(r)
            present.add(c.id)
            if c.status == "superseded" and c.superseded_by and c.superseded_by not in present:
                following[c.superseded_by] = r.relevance
        owed = following


def _load(db: apsw.Connection, rowids: set[int], q: Query) -> dict[int, Candidate]:
    if not rowids:
        return {}
    statuses = ("active", "superseded", "archived") if q.deep else ("active", "superseded")
    where, args = MemoryFilter(
        layers=q.layers or (),
        types=q.types or (),
        written_by=(q.written_by,) if q.written_by else (),
        statuses=statuses,
        since=q.since,
        until=q.until,
        viewer=q.client,
    ).sql()
    clauses = ["m.layer != 'working'", where]  # working memory never enters long-term recall
    out: dict[int, Candidate] = {}
    rows = memories.among(db, CANDIDATE_COLUMNS, list(rowids), " AND ".join(clauses), args)
    for rowid, mid, importance, pinned, status, successor, occurred_at, access_count, head in rows:
        head = head or ""
        out[rowid] = Candidate(
            rowid=rowid,
            id=mid,
            importance=float(importance),
            pinned=bool(pinned),
            status=status,
            superseded_by=successor,
            occurred_at=from_db(occurred_at),
            access_count=int(access_count),
            # Without a Han character dominant_language counts nothing: English (most candidates).
            lang=dominant_language(head) if _HAN_CHAR.search(head) else "en",
            head=head,
            says_something=_says_something(head),
        )
    return out


def _calibrate(parts: Parts, c: Candidate, asked: str, qvec: np.ndarray | None) -> None:
    """The candidate's similarity on the model's scale for this question's language."""
    c.vector = parts.calibration.relevance(c.similarity, asked) if qvec is not None else 0.0


def _fill_similarity(parts: Parts, db: apsw.Connection, cands: dict[int, Candidate], qvec: np.ndarray) -> None:
    """Every candidate's similarity, keyword-only ones too, so every result shows every signal.

    Summed row by row: a matrix product over the whole index (or any batch) rounds a row's last bits
    differently with the rows around it, so a client's similarities would move with rows it cannot see."""
    found, matrix = parts.vectors.matrix(db, list(cands))
    for rowid, similarity in zip(found, (matrix * qvec).sum(axis=1).tolist(), strict=True):
        cands[rowid].similarity = similarity


def _spread_links(
    parts: Parts,
    db: apsw.Connection,
    cands: dict[int, Candidate],
    q: Query,
    w: RecallWeights,
    qvec: np.ndarray | None,
    now: datetime,
    asked: str,
) -> None:
    """Memories linked to the strongest hits inherit a damped share of their score."""
    for c in cands.values():
        c.base = _content_score(c, w)
    top = {c.id: c.base for c in sorted(cands.values(), key=lambda c: -c.base)[: w.spread_from]}
    by_id = {c.id: c for c in cands.values()}
    spread: dict[str, float] = {}
    for source, target, strength in relations.strengths_touching(db, list(top)):
        # Both directions: a hit passes score to what it links to and to what links to it.
        for hit, other in ((source, target), (target, source)):
            if hit in top:
                spread[other] = max(spread.get(other, 0.0), top[hit] * strength)
    new_ids = [mid for mid in spread if mid not in by_id]
    if new_ids:
        added = _load(db, memories.rowids_of(db, new_ids), q)
        if qvec is not None:
            _fill_similarity(parts, db, added, qvec)
        for c in added.values():
            _calibrate(parts, c, asked, qvec)
            c.base = _content_score(c, w)
        cands.update(added)
        by_id.update({c.id: c for c in added.values()})
    for mid, value in spread.items():
        if mid in by_id:
            by_id[mid].link = value


def _nearest_in_meaning(cands: Iterable[Candidate]) -> set[int]:
    """The NEAREST_KEPT candidates closest to the centred question, of those above the off-topic median."""
    ranked = sorted((c for c in cands if c.vector > 0 and c.says_something), key=lambda c: -c.vector)
    return {c.rowid for c in ranked[:NEAREST_KEPT]}


def _has_evidence(c: Candidate, floor: float) -> bool:
    return c.keyword > 0 or c.entity > 0 or c.link > 0 or c.fact > 0 or (c.similarity >= floor and c.says_something)


_HAN_CHAR = re.compile("[\u4e00-\u9fff]")


def _says_something(text: str) -> bool:
    """More than a word or two. e5 places a bare "ok" or "嗯" near every question (cosine 0.81 to
    "Priya Toronto", above the off-topic level), so such a memory is found by its words, not its meaning."""
    return len(text.split()) >= 2 or len(_HAN_CHAR.findall(text)) >= 3


def _content_score(c: Candidate, w: RecallWeights) -> float:
    return w.vector * c.vector + w.keyword * c.keyword + w.entity * c.entity + w.fact * c.fact


def _fill_ranks(cands: Iterable[Candidate]) -> None:
    """Each candidate's place in the vector and the keyword order, as fusion.rank_signal."""
    pool = list(cands)
    for attr, value in (("vector_rank", "vector"), ("keyword_rank", "keyword")):
        placed = sorted((c for c in pool if getattr(c, value) > 0), key=lambda c: -getattr(c, value))
        for place, c in enumerate(placed):
            setattr(c, attr, fusion.rank_signal(place))


def _signals(r: Ranked) -> dict[str, float]:
    """The fusion's inputs (fusion.FEATURES) for one candidate."""
    columns = _signal_columns([r.cand], [r.recency], [r.access])
    return {name: values[0] for name, values in zip(fusion.FEATURES, columns, strict=True)}


_LN2 = math.log(2)
_LOG1P_50 = math.log1p(50)


def _score_all(
    cands: Iterable[Candidate], w: RecallWeights, mode: str, now: datetime, half_life_days: float
) -> list[Ranked]:
    """Each candidate scored, in order: by one signal in the single-signal modes, else by the fusion,
    every candidate at once (fusion.score_columns: the same sums as one at a time, to the bit)."""
    pool = list(cands)
    recency = [math.exp(-_LN2 * max(0.0, (now - c.occurred_at).total_seconds() / 86400) / half_life_days) for c in pool]
    access = [min(1.0, math.log1p(c.access_count) / _LOG1P_50) for c in pool]
    if mode == "vector":
        relevance = [c.vector for c in pool]
    elif mode == "keyword":
        relevance = [c.keyword for c in pool]
    else:
        columns = [np.array(values, dtype=np.float64) for values in _signal_columns(pool, recency, access)]
        fused = (w.fusion or fusion.HAND_SET).score_columns(columns)
        superseded = np.array([c.status == "superseded" for c in pool], dtype=bool)
        fused[superseded] *= w.superseded_factor
        relevance = fused.tolist()
    return [
        Ranked(cand=c, relevance=score, recency=near, access=used)
        for c, score, near, used in zip(pool, relevance, recency, access, strict=True)
    ]


def _signal_columns(pool: list[Candidate], recency: list[float], access: list[float]) -> list[list[float]]:
    """The fusion's inputs for every candidate, one list per feature, in fusion.FEATURES' order."""
    return [
        [c.vector for c in pool],
        [c.keyword for c in pool],
        [c.entity for c in pool],
        [c.period for c in pool],
        [c.fact for c in pool],
        [c.link for c in pool],
        recency,
        access,
        [c.importance for c in pool],
        [1.0 if c.pinned else 0.0 for c in pool],
        [c.vector_rank for c in pool],
        [c.keyword_rank for c in pool],
    ]


def _explain(r: Ranked) -> dict[str, float]:
    """Every signal's score for one result, the "why" shown to people and assistants."""
    c = r.cand
    scores = {
        "vector": round(c.vector, 4),
        "keyword": round(c.keyword, 4),
        "entity": round(c.entity, 4),
        "recency": round(r.recency, 4),
        "link": round(c.link, 4),
        "access": round(r.access, 4),
        "importance": round(c.importance, 4),
        "pinned": 1.0 if c.pinned else 0.0,
    }
    if c.fact > 0:
        scores["fact"] = c.fact
    if r.repeat > 0:
        scores["repeat"] = round(r.repeat, 4)
    if r.other > 0:
        scores["other_subject"] = round(r.other, 4)
    return scores


def _whom(
    db: apsw.Connection, window: list[Ranked], about: subjects.Subjects, heads: list[str], now: datetime
) -> tuple[subjects.Subjects, dict[int, subjects.Match]]:
    """Whom the question asks about with the names the memories tie to it (the candidates' openings and
    the window's whole texts), and whether each result of the window is about them."""
    texts = memories.contents(db, [r.cand.rowid for r in window])
    named = subjects.aliases(about, [*heads, *texts.values()], now)
    return named, {rowid: subjects.same(named, text) for rowid, text in texts.items()}


def _about(whom: dict[int, subjects.Match], rowid: int, about: subjects.Subjects, text: str) -> subjects.Match:
    """Whether a result is about whom the question asks: as `_whom` found it, or read now."""
    found = whom.get(rowid)
    return found if found is not None else subjects.same(about, text)


def _others_after(ranked: list[Ranked], whom: dict[int, subjects.Match], window: int, share: float) -> None:
    """Among the first `window` results, one about someone other than whom the question names keeps
    `share` of its relevance, and the window is ordered again. The model puts a near miss about another
    person as close as an answer ("I am allergic to penicillin" for "what is my daughter allergic to?")."""
    head = ranked[:window]
    for r in head:
        if whom.get(r.cand.rowid) == subjects.Match.OTHER:
            r.other = r.relevance * (1 - share)
            r.relevance -= r.other
    ranked[:window] = sorted(head, key=lambda r: -r.relevance)


def _demote_repeats(
    parts: Parts, db: apsw.Connection, ranked: list[Ranked], limit: int, w: RecallWeights
) -> list[Ranked]:
    """Pick results greedily, each time the best after a penalty for repeating one already picked.

    Picked in order, so the first five are the same whatever the limit; past the limit the rest keep
    their order. Five near-copies of one turn would otherwise push out the other half of an answer.
    """
    found, vectors = parts.vectors.matrix(db, [r.cand.rowid for r in ranked])
    if len(found) < 2:
        return ranked
    # Cosines on the model's scale for each pair's languages (of two scripts, the higher floor counts).
    scale = parts.calibration
    floors = np.array([scale.unrelated[scale.script(r.cand.lang)] for r in ranked])

    def closeness(cosines: np.ndarray, picked: int) -> np.ndarray:
        floor = np.maximum(floors, floors[picked])
        return np.clip((cosines - floor) / np.maximum(1e-6, 1.0 - floor), 0.0, 1.0)

    row_of = {rowid: i for i, rowid in enumerate(found)}
    matrix = np.zeros((len(ranked), vectors.shape[1]), dtype=np.float32)  # no vector: repeats nothing
    for i, r in enumerate(ranked):
        if (j := row_of.get(r.cand.rowid)) is not None:
            matrix[i] = vectors[j]
    base = np.array([r.relevance for r in ranked])
    closest = np.full(len(ranked), -1.0)  # highest cosine to anything picked so far
    left = np.ones(len(ranked), dtype=bool)
    picked: list[Ranked] = []
    for _ in range(min(limit, len(ranked))):
        excess = np.maximum(0.0, closest - w.repeat_above)
        adjusted = np.where(left, base - w.repeat * excess, -np.inf)
        i = int(np.argmax(adjusted))
        left[i] = False
        item = ranked[i]
        item.repeat, item.relevance = float(excess[i]), float(adjusted[i])
        picked.append(item)
        closest = np.maximum(closest, closeness(matrix @ matrix[i], i))
    return picked + [r for r, keep in zip(ranked, left, strict=True) if keep]


def _rank_superseded_below_successors(ranked: list[Ranked]) -> None:
    """A superseded memory never outranks the memory that replaced it: it goes right after it
    (after the end of the chain, when its successor was itself replaced)."""
    position = {r.cand.id: i for i, r in enumerate(ranked)}
    if not any(r.cand.superseded_by in position for r in ranked):
        return
    by_id = {r.cand.id: r for r in ranked}
    place: dict[str, float] = {}

    def placed(mid: str, seen: frozenset[str] = frozenset()) -> float:
        if mid not in place:
            successor = by_id[mid].cand.superseded_by
            own = float(position[mid])
            if successor in position and successor not in seen:  # `seen` guards against a cycle
                own = max(own, placed(successor, seen | {mid}) + 0.5)
            place[mid] = own
        return place[mid]

    # Stable: items that land on the same place keep their order.
    ranked.sort(key=lambda r: placed(r.cand.id))
