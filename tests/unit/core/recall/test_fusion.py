"""The fusion's weights file: it parses, names only known signals, and a bad file is refused clearly."""

from __future__ import annotations

import dataclasses
import json

import pytest

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.recall import fusion


def test_the_shipped_weights_parse_and_fall_back_to_the_hand_set():
    data = json.loads(fusion.WEIGHTS_FILE.read_text(encoding="utf-8"))
    models = fusion.parse(data, "shipped")
    assert set(models) <= {"en", "zh"}
    for model in models.values():
        assert set(model.weights) <= set(fusion.FEATURES)
        assert all(w >= 0 for w in model.weights.values())  # more evidence never lowers a score
    assert fusion.for_language("xx") is fusion.HAND_SET


def test_hand_set_fusion_is_the_old_weighted_sum():
    signals = {"vector": 0.8, "keyword": 0.5, "entity": 1.0, "fact": 1.0, "link": 0.2, "recency": 0.5}
    expected = 0.5 * 0.8 + 0.3 * 0.5 + 0.1 * 1.0 + 0.15 * 1.0 + 0.3 * 0.2 + 0.04 * 0.5
    assert fusion.HAND_SET.score(signals) == pytest.approx(expected)


def test_rank_signal_halves_at_rank_half():
    assert fusion.rank_signal(0) == 1.0
    assert fusion.rank_signal(fusion.RANK_HALF) == 0.5


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "expected an object"),
        ({"languages": {"en": {}}}, "has no 'weights'"),
        ({"languages": {"en": {"weights": {"colour": 1.0}}}}, "unknown features"),
        ({"languages": {"en": {"weights": {"vector": "high"}}}}, "not a number"),
    ],
)
def test_a_bad_weights_file_is_refused(data, message):
    with pytest.raises(InvalidInput, match=message):
        fusion.parse(data, "w.json")


def test_confidence_is_the_same_whatever_the_fusion(engine):
    """The fusion only orders results: each memory's confidence (and so the 0.5 at the evidence floor)
    is read from evidence of a known scale, never from the fused relevance, so a refit cannot move it."""
    for text in (
        "Caroline went to the LGBTQ support group on 7 May.",
        "Melanie painted a sunrise over the lake last year.",
        "My flight to Lisbon is TP1351 on Friday.",
        "I moved to Bristol in March for the new job.",
    ):
        engine.write(text, explicit=True, gate=False)
    fitted = dataclasses.replace(engine.recall_weights, fusion=fusion.Fusion({"vector_rank": 1.0, "recency": 0.5}))
    for question in ("When did Caroline go to the support group?", "What is my flight number?", "Where do I live?"):
        by_fusion = []
        for weights in (dataclasses.replace(engine.recall_weights, fusion=fusion.HAND_SET), fitted):
            engine.recall_weights = weights
            by_fusion.append({h.memory.id: h.confidence for h in engine.search(question, log=False).hits})
        assert by_fusion[0] and by_fusion[0] == by_fusion[1]
