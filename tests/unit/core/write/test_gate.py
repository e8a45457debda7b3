"""The write gate: signals, explicit requests, classification, validation, and one real-model check."""

from __future__ import annotations

import json

import numpy as np
import pytest
from support.paths import DATA

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.write import gate_language
from hindsight_desktop.core.write.gate import DEFAULT_THRESHOLD, DEFAULT_WEIGHTS, WriteScore, WriteScorer
from hindsight_desktop.core.write.gate_rules import LAYER_OF_TYPE, TYPES

LABELLED = DATA / "gate_labelled.jsonl"
SIGNALS = {"density", "novelty", "relevance", "emotion", "explicit"}


@pytest.fixture(scope="module")
def rules() -> WriteScorer:
    return WriteScorer()


def _labelled() -> list[dict]:
    with open(LABELLED, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


class FakeEmbed:
    """A stand-in model that counts its calls; vectors come from a hash so they are stable."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = []
        for text in texts:
            rng = np.random.default_rng(abs(hash(text)) % (2**32))
            row = rng.standard_normal(16).astype(np.float32)
            rows.append(row / np.linalg.norm(row))
        return np.stack(rows)


# --- defaults and the shape of a score ------------------------------------------------------


def test_defaults() -> None:
    assert DEFAULT_WEIGHTS == {
        "density": 0.25,
        "novelty": 0.20,
        "relevance": 0.30,
        "emotion": 0.10,
        "explicit": 0.15,
    }
    assert DEFAULT_THRESHOLD == 0.6
    assert set(LAYER_OF_TYPE) == set(TYPES)
    assert set(LAYER_OF_TYPE.values()) <= {"semantic", "episodic", "procedural"}


@pytest.mark.parametrize(
    "text",
    ["ok", "I'm allergic to peanuts", "我下周三要去上海出差", "What a DAY!!! 🎉🎉", "x" * 5000, "。。。"],
)
def test_every_signal_is_in_the_unit_interval(rules: WriteScorer, text: str) -> None:
    result = rules.score(text)
    assert isinstance(result, WriteScore)
    assert set(result.signals) == SIGNALS
    assert all(0.0 <= v <= 1.0 for v in result.signals.values())
    assert 0.0 <= result.score <= 1.0
    assert result.type in TYPES and result.layer == LAYER_OF_TYPE[result.type]
    assert result.reason and result.reason.endswith(".")


def test_score_is_the_weighted_sum(rules: WriteScorer) -> None:
    result = rules.score("I prefer dark mode in every editor I use")
    expected = sum(DEFAULT_WEIGHTS[k] * v for k, v in result.signals.items())
    assert result.score == pytest.approx(expected, abs=1e-3)
    assert result.passed == (result.score >= DEFAULT_THRESHOLD)


# --- the five signals -----------------------------------------------------------------------


def test_clear_cases_from_rules_alone(rules: WriteScorer) -> None:
    for text in ("My son is allergic to eggs", "I prefer window seats on long flights", "以后回答都加上出处"):
        assert rules.score(text).passed, text
    for text in ("thanks!", "好的", "hello there", "what's the boiling point of mercury?", "哈哈哈"):
        assert not rules.score(text).passed, text


def test_density_rises_with_content_and_entities(rules: WriteScorer) -> None:
    empty = rules.score("ok").signals["density"]
    thin = rules.score("that is so").signals["density"]
    rich = rules.score("Flight BA117 to Boston leaves Heathrow at 08:40").signals["density"]
    assert empty == 0.0
    assert thin < rich
    plain = rules.score("i think my aunt is living somewhere near there").signals["density"]
    hinted = rules.score("i think my aunt is living somewhere near there", entity_count=2).signals["density"]
    assert hinted > plain


def test_novelty_is_passed_through_and_clamped(rules: WriteScorer) -> None:
    text = "I moved to Valencia in 2021"
    fresh, seen = rules.score(text, novelty=1.0), rules.score(text, novelty=0.1)
    assert seen.signals["novelty"] == pytest.approx(0.1)
    assert seen.score < fresh.score
    # 1 - cosine exceeds 1 when the nearest memory points the other way; still a unit signal.
    assert rules.score(text, novelty=1.3).signals["novelty"] == 1.0
    assert rules.score(text, novelty=-0.2).signals["novelty"] == 0.0


def test_relevance_separates_keepers_from_chatter(rules: WriteScorer) -> None:
    keeper = rules.score("My landlady is called Mrs Patel and rent is due on the 5th")
    chatter = rules.score("lol nice")
    assert keeper.signals["relevance"] > 0.8 > 0.2 > chatter.signals["relevance"]


def test_emotion_reads_words_emoji_and_exclamations(rules: WriteScorer) -> None:
    calm = rules.score("I got a new job at the library").signals["emotion"]
    excited = rules.score("I got a new job at the library!!! so excited 🎉").signals["emotion"]
    sad = rules.score("我奶奶去世了，很难过").signals["emotion"]
    assert calm < excited
    assert sad > 0.3


# --- explicit requests ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "remember that the spare key is in the blue pot",
        "Please remember my locker number is 118",
        "don't forget: the plumber comes Thursday",
        "Keep in mind that I drive an electric car",
        "note that the wifi password changed",
        "can you remember that my cousin is called Ravi?",
        "记住我的工号是 A1093",
        "别忘了周五要交房租",
        "记一下，孩子的疫苗本在抽屉里",
    ],
)
def test_explicit_requests_always_pass(text: str) -> None:
    strict = WriteScorer(threshold=1.0)  # no weighted sum can reach this
    result = strict.score(text, novelty=0.0)
    assert result.explicit and result.passed
    assert result.signals["explicit"] == 1.0


@pytest.mark.parametrize(
    "text",
    [
        "do you remember what I said yesterday?",
        "I remember that song from school",
        "remember when we talked about Rust?",
        "你还记得我上次说的那本书吗？",
        "我记得他以前住在这里",
    ],
)
def test_questions_about_memory_are_not_requests(rules: WriteScorer, text: str) -> None:
    assert not rules.score(text).explicit


# --- importance -------------------------------------------------------------------------------


def test_importance_raises_never_lowers(rules: WriteScorer) -> None:
    text = "I'm diabetic and carry insulin"
    base = rules.score(text)
    assert rules.score(text, importance=0.0).score == base.score
    lifted = rules.score("ok", importance=0.95)
    assert lifted.score == pytest.approx(0.95) and lifted.passed
    assert "importance" in lifted.reason


# --- classification ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "layer"),
    [
        ("remember that my wife's birthday is 3 May", "fact", "semantic"),
        ("My brother-in-law is a firefighter in Cork", "fact", "semantic"),
        ("我有两个孩子", "fact", "semantic"),
        ("User is allergic to latex", "fact", "semantic"),
        ("I can't stand reggaeton", "preference", "semantic"),
        ("我更喜欢靠窗的座位", "preference", "semantic"),
        ("always answer in French", "instruction", "procedural"),
        ("never use semicolons in my code", "instruction", "procedural"),
        ("以后回答都用中文", "instruction", "procedural"),
        ("To rebuild the index: run make reindex, then restart the worker", "skill", "procedural"),
        ("洗衣机漏水的话，先关掉进水阀再清理过滤网", "skill", "procedural"),
        ("Physio appointment next Monday at 4pm", "plan", "episodic"),
        ("下周五飞成都", "plan", "episodic"),
        ("my grandfather passed away in March", "event", "episodic"),
        ("thanks so much!", "chatter", "episodic"),
        ("哈哈", "chatter", "episodic"),
        ("what's the capital of Peru?", "question", "episodic"),
        ("Python 怎么合并两个字典？", "question", "episodic"),
    ],
)
def test_classify(rules: WriteScorer, text: str, kind: str, layer: str) -> None:
    assert rules.classify(text) == (kind, layer)
    assert rules.score(text).type == kind


def test_question_clause_does_not_hide_a_fact(rules: WriteScorer) -> None:
    # The fact sits in its own clause; the question after it must not swallow it.
    result = rules.score("I'm allergic to cashews. Any snack ideas?")
    assert result.passed and result.type == "fact"
    # Inside a question, a first-person phrase is not a statement about the person.
    assert not rules.score("is it going to rain tomorrow in my town?").passed


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "weights",
    [
        {"density": 1.0},
        {**DEFAULT_WEIGHTS, "extra": 0.1},
        {**DEFAULT_WEIGHTS, "emotion": -0.1},
        dict.fromkeys(DEFAULT_WEIGHTS, 0.0),
        {**DEFAULT_WEIGHTS, "novelty": "high"},
        {**DEFAULT_WEIGHTS, "novelty": float("nan")},
    ],
)
def test_bad_weights_are_refused(weights: dict) -> None:
    with pytest.raises(InvalidInput, match="weights"):
        WriteScorer(weights=weights)


def test_weights_are_normalised(rules: WriteScorer) -> None:
    doubled = WriteScorer(weights={k: 2 * v for k, v in DEFAULT_WEIGHTS.items()})
    text = "we're adopting a rescue greyhound in June"
    assert doubled.score(text).score == pytest.approx(rules.score(text).score, abs=1e-3)
    assert sum(doubled.weights.values()) == pytest.approx(1.0)


def test_custom_weights_and_threshold_change_the_verdict() -> None:
    text = "the weather is lovely today"
    assert not WriteScorer().score(text).passed
    assert WriteScorer(threshold=0.0).score(text).passed
    only_novelty = WriteScorer(weights={**dict.fromkeys(DEFAULT_WEIGHTS, 0.0), "novelty": 1.0})
    assert only_novelty.score(text, novelty=0.8).score == pytest.approx(0.8)


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan"), "0.5", True])
def test_bad_threshold_is_refused(threshold: object) -> None:
    with pytest.raises(InvalidInput, match="threshold"):
        WriteScorer(threshold=threshold)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"importance": 1.2}, "importance"),
        ({"importance": -0.5}, "importance"),
        ({"importance": "high"}, "importance"),
        ({"novelty": float("nan")}, "novelty"),
        ({"novelty": None}, "novelty"),
        ({"entity_count": -1}, "entity_count"),
        ({"entity_count": 1.5}, "entity_count"),
    ],
)
def test_bad_score_arguments_are_refused(rules: WriteScorer, kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidInput, match=field):
        rules.score("I live in Oslo", **kwargs)


@pytest.mark.parametrize("text", ["", "   ", None, 42])
def test_bad_text_is_refused(rules: WriteScorer, text: object) -> None:
    with pytest.raises(InvalidInput, match="text"):
        rules.score(text)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="text"):
        rules.classify(text)  # type: ignore[arg-type]


# --- the model: when it is asked, and how often -------------------------------------------------


def test_model_is_asked_only_about_borderline_texts_once_each() -> None:
    fake = FakeEmbed()
    scorer = WriteScorer(embed=fake)
    scorer.score("thanks!")  # the rules are sure: no model call at all
    scorer.score("I'm allergic to peanuts")
    assert fake.calls == []
    scorer.score("the sunset looked orange over the harbour")  # the rules cannot tell
    scorer.score("a tram line runs past the old mill")
    prototypes = len(gate_language.KEEP_PROTOTYPES) + len(gate_language.CHATTER_PROTOTYPES)
    # Prototypes once per scorer, then one call with one text per borderline score.
    assert [len(call) for call in fake.calls] == [prototypes, 1, 1]


def test_prototypes_are_not_the_evaluation_sentences() -> None:
    held_out = {row["text"].strip().lower() for row in _labelled()}
    prototypes = gate_language.KEEP_PROTOTYPES + gate_language.CHATTER_PROTOTYPES
    assert not held_out & {p.strip().lower() for p in prototypes}


# --- the labelled set ---------------------------------------------------------------------------


def test_labelled_set_is_well_formed() -> None:
    rows = _labelled()
    assert len(rows) >= 180
    assert all(set(r) == {"text", "keep", "lang", "kind"} for r in rows)
    assert all(isinstance(r["keep"], bool) and r["lang"] in ("en", "zh") and r["text"].strip() for r in rows)
    assert len({r["text"] for r in rows}) == len(rows)
    english = sum(r["lang"] == "en" for r in rows)
    assert 0.4 <= english / len(rows) <= 0.6
    for language in ("en", "zh"):
        kept = [r["keep"] for r in rows if r["lang"] == language]
        assert any(kept) and not all(kept)


def test_gate_with_the_real_model_on_the_labelled_set(embedder) -> None:
    """Precision and recall of keep=true over the held-out labelled messages, fresh store."""
    rows = _labelled()
    scorer = WriteScorer(embed=embedder.embed)
    predicted = [scorer.score(r["text"], novelty=1.0).passed for r in rows]
    tp = sum(p and r["keep"] for r, p in zip(rows, predicted, strict=True))
    fp = sum(p and not r["keep"] for r, p in zip(rows, predicted, strict=True))
    fn = sum(not p and r["keep"] for r, p in zip(rows, predicted, strict=True))
    precision, recall = tp / max(1, tp + fp), tp / max(1, tp + fn)
    misses = [r["text"] for r, p in zip(rows, predicted, strict=True) if p != r["keep"]]
    assert precision >= 0.85, (precision, misses)
    assert recall >= 0.85, (recall, misses)


def test_module_examples_run() -> None:
    import doctest

    from hindsight_desktop.core.write import gate

    assert doctest.testmod(gate).failed == 0


@pytest.mark.parametrize(
    "text",
    [
        "外公退休以后不怎么出门了，天天在家养兰花。",  # hardly
        "我们家狗什么都吃，就是不吃胡萝卜。",  # anything
        "国庆假期哪儿也没去，在家把书房刷了一遍。",  # nowhere
        "新来的实习生谁都不认识，午饭一个人吃。",  # nobody
        "那家私房菜多少有点贵，一般过生日才去。",  # somewhat
        "舅妈养了好几只鹦鹉，最会说话的叫豆包。",  # several
        "我女儿没什么朋友，转学以后才慢慢好起来。",  # not much
    ],
)
def test_a_question_word_used_as_any_or_hardly_asks_nothing(rules: WriteScorer, text: str) -> None:
    assert rules.classify(text)[0] != "question", text


@pytest.mark.parametrize(
    "text",
    ["你平时都吃什么？", "外公现在还出门吗", "你们最后去哪儿了", "这事谁也说不清吗？", "那家私房菜人均多少钱"],
)
def test_chinese_questions_stay_questions(rules: WriteScorer, text: str) -> None:
    assert rules.classify(text)[0] == "question", text


@pytest.mark.parametrize(
    "text",
    [
        "Grandpa never drives after dark.",
        "表舅每次出差都带一包家乡的茶叶。",
        "Our neighbours always mow the lawn on Sundays.",
    ],
)
def test_a_habit_with_a_standing_word_is_no_instruction(rules: WriteScorer, text: str) -> None:
    kind, _ = rules.classify(text)
    assert kind != "instruction", text
    assert rules.score(text).passed, text  # a habit is still a fact worth keeping


@pytest.mark.parametrize(
    "text", ["never put emoji in your replies", "替我订机票的时候一律选靠过道的座位", "以后别给我推荐恐怖片"]
)
def test_an_order_to_the_assistant_stays_an_instruction(rules: WriteScorer, text: str) -> None:
    assert rules.classify(text) == ("instruction", "procedural"), text


@pytest.mark.parametrize(
    "text",
    [
        "Write to Aunt Mei at mei.chen@example.org; her old Hotmail is dead.",
        "Write to the caretaker on 0161 496 0732 if the boiler acts up.",
    ],
)
def test_where_someone_is_written_to_is_no_one_off_task(rules: WriteScorer, text: str) -> None:
    assert rules.classify(text)[0] != "question", text
    assert rules.score(text, related=0.5).passed, text  # restating a stored address differently: kept


@pytest.mark.parametrize(
    "text", ["Write a short toast for my sister's wedding.", "Write to my landlord asking him to fix the boiler."]
)
def test_writing_something_for_the_person_is_still_a_one_off_task(rules: WriteScorer, text: str) -> None:
    assert rules.classify(text)[0] == "question", text
