"""The fusion's weights file: it parses, names only known signals, and a bad file is refused clearly."""

from __future__ import annotations

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
