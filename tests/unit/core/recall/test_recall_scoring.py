"""recall scores its candidates in one pass (hybrid._score_all): each relevance must be what the fusion's own
`score` gives for the candidate's signals, to the last bit, for every fusion recall may use."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest

from hindsight_desktop.core.recall import fusion, hybrid

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def _candidates(n: int) -> list[hybrid.Candidate]:
    rng = random.Random(3)
    out = []
    for i in range(n):
        c = hybrid.Candidate(
            rowid=i,
            id=f"m{i}",
            importance=rng.random(),
            pinned=rng.random() < 0.2,
            status=rng.choice(["active", "active", "superseded"]),
            superseded_by=None,
            occurred_at=NOW - timedelta(days=rng.uniform(0, 900), seconds=rng.randrange(86400)),
            access_count=rng.randrange(80),
        )
        for name in ("vector", "keyword", "entity", "period", "fact", "link", "vector_rank", "keyword_rank"):
            setattr(c, name, rng.choice([0.0, rng.random(), 1.0, 1 / 3]))
        out.append(c)
    return out


FUSIONS = [
    fusion.HAND_SET,
    *fusion.shipped().values(),
    fusion.Fusion({"vector": 0.7}),
    fusion.Fusion({"keyword": 0.3, "not_a_feature": 0.9, "vector": 0.5}),
]


@pytest.mark.parametrize("f", FUSIONS, ids=lambda f: f.source + ":" + ",".join(f.weights))
def test_each_relevance_is_the_fusions_own_score(f):
    w = hybrid.RecallWeights(fusion=f)
    cands = _candidates(300)
    ranked = hybrid._score_all(cands, w, "hybrid", NOW, 30.0)
    assert [r.cand for r in ranked] == cands
    for r in ranked:
        c = r.cand
        age = max(0.0, (NOW - c.occurred_at).total_seconds() / 86400)
        assert r.recency == math.exp(-math.log(2) * age / 30.0)
        assert r.access == min(1.0, math.log1p(c.access_count) / math.log1p(50))
        expected = f.score(hybrid._signals(r)) * (w.superseded_factor if c.status == "superseded" else 1.0)
        assert r.relevance == expected  # exactly, not approximately


def test_signals_name_every_feature_in_order():
    r = hybrid._score_all(_candidates(1), hybrid.RecallWeights(), "hybrid", NOW, 30.0)[0]
    assert list(hybrid._signals(r)) == list(fusion.FEATURES)
    assert hybrid._signals(r)["vector"] == r.cand.vector and hybrid._signals(r)["recency"] == r.recency


def test_single_signal_modes_rank_by_that_signal():
    cands = _candidates(20)
    assert [r.relevance for r in hybrid._score_all(cands, hybrid.RecallWeights(), "vector", NOW, 30.0)] == [
        c.vector for c in cands
    ]
    assert [r.relevance for r in hybrid._score_all(cands, hybrid.RecallWeights(), "keyword", NOW, 30.0)] == [
        c.keyword for c in cands
    ]
