"""Questions are centred on their language's average question before they are compared with memories
(calibration.py): a memory's pull towards every question of a language no longer outranks the one
memory that answers, and each result's confidence comes from a curve fitted to the probe set."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hindsight_desktop.core.model import calibration
from hindsight_desktop.core.text.language import dominant_language

MEMORIES = [
    "我太太在一所中学教英语，带初二。",
    "我们家的狗是一只三岁的柯基，叫年糕。",
    "我对猫毛过敏，去朋友家前要先吃药。",
    "明年暑假打算带孩子去北海道玩一周。",
    "公司新来的领导叫周敏，负责数据平台。",
    "我每周二晚上去游泳，一次一个小时。",
    "上个月把车卖了，现在骑电动车上班。",
    "My new work email starts on August 18.",
    "I cancelled the gym membership near the office.",
    "Our home NAS backs up the family photos every night.",
    "I'm a big Arsenal fan and never miss a derby.",
    "My sister lives in Vancouver with her two kids.",
    "I always pick a window seat on long flights.",
]
# Chinese questions about English memories: by the raw cosine each answer ranked 3rd to 8th, behind
# Chinese memories about other things; English questions about Chinese memories.
ANSWERS = {
    "我支持哪支足球队？": 10,
    "我姐姐住在哪个城市？": 11,
    "坐飞机我喜欢什么座位？": 12,
    "我家的照片怎么备份？": 9,
    "What breed is our dog?": 1,
    "Where are we going next summer?": 3,
    "What am I allergic to?": 2,
}


@pytest.fixture(scope="module")
def scale(embedder) -> calibration.Calibration:
    return calibration.cached(embedder.model_id, None, embedder.embed)[0]


def test_the_answer_ranks_first_once_the_question_is_centred(engine, embedder) -> None:
    parts = engine.current_parts()  # the centres as the loader lays them out for recall
    memories = embedder.embed(MEMORIES, "passage")
    for question, answer in ANSWERS.items():
        vector = parts.centred_question(embedder.embed([question], "query")[0], dominant_language(question))
        similarity = memories @ vector
        assert int(np.argmax(similarity)) == answer, (question, MEMORIES[int(np.argmax(similarity))])


def test_centring_subtracts_each_memorys_pull(engine, embedder, scale) -> None:
    memories = embedder.embed(MEMORIES, "passage")
    question = embedder.embed(["我支持哪支足球队？"], "query")[0]
    pull = memories @ scale.centre("zh")
    centred = engine.current_parts().centred_question(question, "zh")
    assert np.allclose(memories @ centred, memories @ question - pull, atol=1e-5)
    assert scale.centre("fr").shape == scale.centre("en").shape  # other scripts use the English centre


def test_confidence_rises_with_similarity_and_is_even_at_the_floor(scale) -> None:
    for lang in ("en", "zh"):
        floor = scale.evidence_floor(lang)
        assert scale.off_topic[lang] < floor < scale.answer[lang]
        assert scale.answer_probability(floor, lang) == pytest.approx(0.5, abs=1e-6)
        levels = [scale.answer_probability(x, lang) for x in np.linspace(-0.2, 0.3, 11)]
        assert levels == sorted(levels) and levels[0] < 0.05 and levels[-1] > 0.95


def test_the_logistic_fit_finds_the_midpoint_of_two_even_classes() -> None:
    rng = np.random.default_rng(7)
    slope, bias = calibration._logistic(rng.normal(1.0, 1.0, 400), rng.normal(-1.0, 1.0, 4000))
    assert -bias / slope == pytest.approx(0.0, abs=0.15)  # equal priors, whatever the class sizes
    assert slope == pytest.approx(2.0, rel=0.2)  # log-odds of two unit normals one apart each way
    slope, bias = calibration._logistic(np.array([0.9, 1.0]), np.array([0.0, 0.1]))  # separable
    assert np.isfinite(slope) and 0.1 < -bias / slope < 0.9


def test_a_calibration_of_the_previous_probe_version_is_measured_again(scale) -> None:
    data = json.loads(scale.to_json())
    assert calibration.Calibration.from_json(json.dumps(data)) == scale
    data["version"] = calibration.PROBE_VERSION - 1
    assert calibration.Calibration.from_json(json.dumps(data)) is None


def test_recall_keeps_candidates_from_below_the_level_it_claims_answers(scale) -> None:
    # The answer curve is fitted against each probe question's nearest non-answers, the candidate floor
    # against all of them: a memory may be ranked for its meaning before it is called an answer.
    for lang in ("en", "zh"):
        assert scale.off_topic[lang] < scale.candidate_floor(lang) < scale.evidence_floor(lang) < scale.answer[lang]
        assert scale.answer_probability(scale.candidate_floor(lang), lang) < 0.5
