"""The why panel's shares: a penalty takes relevance away, weighed by its RecallWeights field, or counted as
the amount itself when it has none (the relevance a result about someone else lost)."""

from __future__ import annotations

from types import SimpleNamespace

from hindsight_desktop.app import why_panel
from hindsight_desktop.core.recall.hybrid import RecallWeights


def test_penalties_take_relevance_away() -> None:
    hit = SimpleNamespace(scores={"vector": 0.5, "repeat": 0.2, "other_subject": 0.08}, confidence=0.3)
    shares = why_panel.contributions(hit, RecallWeights())
    assert shares["vector"] == 0.5 * RecallWeights().vector
    assert shares["repeat"] == -0.2 * RecallWeights().repeat
    assert shares["other_subject"] == -0.08  # the amount lost, not a weight times a score
    assert "someone else" not in why_panel.summary(hit, RecallWeights())  # a penalty carries nothing
