"""Each embedding model's score scale, measured once when it is loaded.

Models place sentences on very different scales: for all-MiniLM two unrelated English sentences land
near cosine 0.1, for multilingual-e5 near 0.8, and an English-only model puts unrelated Chinese
sentences close together. A novelty of "1 - highest cosine", a duplicate bar of 0.95 or a recall
floor of 0.3 therefore mean something else for every model and every script. Rather than hand-set
constants per model, the engine embeds a small probe set when it loads a model and reads off:

- how close unrelated sentences land, per script (the floor of "nothing in common");
- whether a paraphrase is found as its partner's nearest neighbour
  (per script: where the model is weak, the write gate leans on lexical overlap instead);
- the average question of each language (`question_centre`), which recall subtracts from every
  question before comparing it with memories (below);
- how close a question so centred lands to the memory that answers it, and to memories that do not,
  and from those pairs two logistic curves: against every memory that does not answer (where recall
  stops keeping a memory for its meaning alone, `candidate_floor`), and against the ones nearest the
  question among those (the chance that a memory answers, `answer_probability`).

Why two curves. A person's memories are alike in kind ("my car's plate is...", "I prefer green tea"),
so the nearest memory to a question on another topic lands well above the typical non-answer: judged
against typical non-answers, the best of twenty unrelated memories looked like an answer. The chance
that a result answers is therefore fitted against each probe question's nearest non-answers, the
competition a real answer has; a memory stays a candidate (for ranking) from the looser level.

Why centre questions. Some memories sit near every question of a language ("hubs"): e5 puts any
Chinese question nearer to any Chinese memory than to the English memory that answers it, and a
few English memories near every Chinese question. A memory's closeness to the average question is
exactly that pull, so recall scores `memory . (question - average question)`: the question's cosine
less the memory's pull (the hubness correction of cross-lingual retrieval, as in CSLS). It is one
vector subtraction per search, and the vector index needs no change. Measured on bench/zh_recall.py's
memories and questions, vector-only recall@1/5/10: raw cosines 0.60/0.78/0.84; raw cosines put on
one scale per language pair (what recall did before) 0.31/0.57/0.74; centred 0.73/0.94/0.98. The
cost is in English alone: on LoCoMo dev (all English) vector-only recall@5/@10 went from 0.464/0.542
to 0.448/0.546, and with half the probe questions the centre moved that by ±0.02: there the
correction is small and the centre's own noise about as large.

The result is cached per model id: in the process, in the memory file's `meta` table and in this
computer's cache folder, so a model is measured once per computer, not once per process or data
folder. (The probes' vectors are kept per model too, model/handle.py, so even a first measurement
for a new probe version needs the model only once.)
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_desktop.config import default_cache_dir
from hindsight_desktop.core.store.private_files import private_dir, private_writer

# Version of the probe set and of what is measured: bump it to re-measure every model.
PROBE_VERSION = 5
META_PREFIX = "calibration:"
CACHE_SUBDIR = "calibration"  # under the cache folder: one file per model id and probe version
# Where a typical answer lands on the recall scale. Recall's weights were set on all-MiniLM's raw
# cosines, where answers land near 0.5 and off-topic text near 0; e5's centred similarities put answers
# near 0.08 and off-topic text near 0. Mapping both points gives every model the scale the weights expect.
ANSWER_LEVEL = 0.5

UNRELATED = {
    "en": [
        "The printer on the third floor is out of toner.",
        "My grandmother grew tomatoes every summer.",
        "The flight to Denver was delayed by two hours.",
        "I started learning the cello last year.",
        "Our team switched the build system to Bazel.",
        "The dentist said I should floss more often.",
        "We watched a documentary about octopuses.",
        "The rent goes up by five percent in March.",
        "Tom borrowed my bike and returned it with a flat tyre.",
        "I prefer green tea over coffee in the afternoon.",
        "The museum is closed on Mondays.",
        "She is allergic to shellfish.",
        "Our new puppy chewed through the charger cable.",
        "The quarterly report is due next Friday.",
        "I ran my first half marathon in October.",
        "The kitchen tap has been dripping all week.",
    ],
    "zh": [
        "三楼的打印机没有墨粉了。",
        "奶奶每年夏天都种西红柿。",
        "去成都的航班晚点了两个小时。",
        "我去年开始学大提琴。",
        "我们团队把构建工具换成了 Bazel。",
        "牙医说我应该多用牙线。",
        "我们看了一部关于章鱼的纪录片。",
        "房租三月份要涨百分之五。",
        "小王借了我的自行车，还回来的时候轮胎瘪了。",
        "下午我更喜欢喝绿茶而不是咖啡。",
        "博物馆周一闭馆。",
        "她对海鲜过敏。",
        "新来的小狗把充电线咬断了。",
        "季度报告下周五要交。",
        "我十月份跑了第一个半程马拉松。",
        "厨房的水龙头滴了一整个星期。",
    ],
}
PARAPHRASES = {
    "en": [
        ("I live in a small flat near the river.", "My apartment is a little place by the river."),
        ("My son's birthday is on the fourth of July.", "Our boy was born on July 4th."),
        ("I can't eat peanuts; they make me sick.", "Peanuts give me a bad reaction, so I avoid them."),
        ("The weekly sync with design is on Tuesdays at ten.", "Every Tuesday at 10 we meet with the design team."),
        ("I drive a grey Honda Civic.", "My car is a grey Civic made by Honda."),
        ("My manager is called Laura.", "Laura is the person I report to at work."),
        ("We are going to Lisbon for our anniversary.", "For our anniversary trip we picked Lisbon."),
        ("I take vitamin D every morning.", "Each morning I have a vitamin D tablet."),
    ],
    "zh": [
        ("我住在河边的一套小公寓里。", "我家是河旁边的一个小房子。"),
        ("我儿子的生日是七月四号。", "我们家孩子是7月4日出生的。"),
        ("我不能吃花生，吃了会过敏。", "花生会让我过敏，所以我不碰。"),
        ("每周二上午十点和设计组开会。", "设计团队的例会定在每个星期二早上10点。"),
        ("我开一辆灰色的本田思域。", "我的车是本田的思域，灰色的。"),
        ("我的领导叫刘洁。", "我在公司向刘洁汇报工作。"),
        ("我们打算去里斯本过结婚纪念日。", "结婚纪念日的旅行我们选了里斯本。"),
        ("我每天早上吃一片维生素D。", "每天早晨我都会补一粒维生素D。"),
    ],
}
# Questions about UNRELATED[script][i]. The two UNRELATED lists say the same things in the two
# languages, so question i of one language is answered by sentence i of either list.
QUESTIONS = {
    "en": [
        "Is the printer working?",
        "What did grandma grow in her garden?",
        "Why was my trip to Denver late?",
        "Which instrument am I learning?",
        "What build tool does the team use now?",
        "What advice did the dentist give me?",
        "What was the film we saw about?",
        "How much more will I pay for the flat?",
        "Who gave my bike back with a flat?",
        "What do I like to drink after lunch?",
        "Which day can't we visit the museum?",
        "Which food makes her ill?",
        "What did the puppy ruin?",
        "When do the quarterly numbers have to be in?",
        "When did I first run a half marathon?",
        "What's wrong in the kitchen?",
    ],
    "zh": [
        "打印机还能用吗？",
        "奶奶在园子里种什么？",
        "去成都为什么迟到了？",
        "我在学什么乐器？",
        "团队现在用什么构建工具？",
        "牙医给了我什么建议？",
        "我们看的那部片子讲什么？",
        "住的地方要多交多少钱？",
        "谁还车的时候车胎没气了？",
        "午饭后我爱喝点什么？",
        "哪天去不了博物馆？",
        "她不能吃什么？",
        "小狗弄坏了什么东西？",
        "季度的报告最晚什么时候给？",
        "我第一次跑半马是哪个月？",
        "厨房里什么东西坏了？",
    ],
}
SCRIPTS = ("en", "zh")
# How many of each probe question's closest non-answers (of both languages' sentences) the answer curve
# is fitted against.
NEAREST_MISSES = 2


@dataclass(frozen=True)
class Calibration:
    """Where one model puts unrelated and answering texts (cosines), and how well it finds paraphrases."""

    model_id: str
    unrelated: dict[str, float]  # median cosine between unrelated memories
    separation: dict[str, float]  # share of paraphrases found as their partner's nearest neighbour
    # The mean of the probe questions' unit vectors, per language, as base64 of little-endian float32:
    # written out as decimals, its thousands of digits would hold any short number by chance (a PIN
    # the redaction kept out of the file would seem to be in it).
    question_centre: dict[str, str]
    # Similarities of a centred question (question - `centre`) to memories, per question language:
    answer: dict[str, float]  # median when the memory answers the question
    off_topic: dict[str, float]  # median when it does not
    # P(answers | similarity) = 1 / (1 + exp(-(slope * similarity + bias))), fitted to the probe
    # pairs with both outcomes weighted alike (Platt scaling; `_logistic`): the answers against each
    # question's NEAREST_MISSES closest non-answers.
    answer_slope: dict[str, float]
    answer_bias: dict[str, float]
    # The same curve fitted against every non-answer: where a memory is as close as a typical
    # non-answer is far, recall's floor for keeping a candidate on its meaning alone.
    candidate_slope: dict[str, float]
    candidate_bias: dict[str, float]

    def script(self, lang: str) -> str:
        return lang if lang in self.unrelated else "en"

    def novelty(self, cosine: float, lang: str) -> float:
        """1 when a text is no closer to its nearest memory than unrelated texts are; 0 when identical."""
        floor = self.unrelated[self.script(lang)]
        return float(min(1.0, max(0.0, (1.0 - cosine) / max(1e-6, 1.0 - floor))))

    def closeness(self, cosine: float, lang: str) -> float:
        """Memory-to-memory cosine on a common scale: 0 at the unrelated level, 1 when identical."""
        return 1.0 - self.novelty(cosine, lang)

    def centre(self, asked: str) -> np.ndarray:
        """The average question of the question's language, which recall subtracts from the question
        (Parts.centred_question; module docstring)."""
        return np.frombuffer(base64.b64decode(self.question_centre[self.script(asked)]), dtype="<f4")

    def relevance(self, similarity: float, asked: str = "en") -> float:
        """A centred question's similarity to a memory on a common scale: 0 at the off-topic level,
        ANSWER_LEVEL where a typical answer lands, capped at 1."""
        lang = self.script(asked)
        floor, answer = self.off_topic[lang], self.answer[lang]
        return float(min(1.0, max(0.0, (similarity - floor) / max(1e-3, answer - floor) * ANSWER_LEVEL)))

    def evidence_floor(self, asked: str = "en") -> float:
        """The similarity at which a memory is as likely to answer as not (`answer_probability` 0.5)."""
        lang = self.script(asked)
        return -self.answer_bias[lang] / self.answer_slope[lang]

    def candidate_floor(self, asked: str = "en") -> float:
        """The similarity from which recall keeps a memory with no other evidence as a candidate: as likely
        an answer as a typical non-answer (below `evidence_floor`: ranking sees more than is claimed)."""
        lang = self.script(asked)
        return -self.candidate_bias[lang] / self.candidate_slope[lang]

    def answer_probability(self, similarity: float, asked: str = "en") -> float:
        """How likely a memory this close to the centred question answers it, judged on the probe set.

        Judged against the non-answers nearest each probe question, so a memory merely of the same kind
        as the question (another of the person's facts) stays below 0.5. The probe's questions share
        words with their answers, so this tells "nothing on this topic" from "something on it"; a near
        miss (the memory names another person, not the asked one) lands as close as an answer does
        (subjects.py tells those apart)."""
        lang = self.script(asked)
        z = self.answer_slope[lang] * similarity + self.answer_bias[lang]
        return 1.0 / (1.0 + math.exp(-min(60.0, max(-60.0, z))))

    def languages(self, multilingual: bool) -> dict[str, Any]:
        """What the model status says of languages: measured when the model loaded, the share of probe
        paraphrases found per script, and whether Chinese is covered."""
        return {
            "multilingual": multilingual,
            "paraphrases_found": dict(self.separation),
            "covers_chinese": multilingual and self.separation["zh"] >= 0.9,
        }

    def to_json(self) -> str:
        return json.dumps({"version": PROBE_VERSION, **asdict(self)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Calibration | None:
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict) or data.pop("version", None) != PROBE_VERSION:
            return None
        try:
            return cls(**data)
        except TypeError:
            return None


def measure(model_id: str, embed: Callable[..., np.ndarray]) -> Calibration:
    """Embed the probe set with `embed(texts, kind)` and read off the model's scale."""
    unrelated, separation = {}, {}
    passages: dict[str, np.ndarray] = {}  # the unrelated sentences, also the answers to QUESTIONS
    for script in SCRIPTS:
        plain = passages[script] = _unit(embed(UNRELATED[script], "passage"))
        pairs = PARAPHRASES[script]
        left = _unit(embed([a for a, _ in pairs], "passage"))
        right = _unit(embed([b for _, b in pairs], "passage"))
        off = _off_diagonal(plain @ plain.T)
        unrelated[script] = float(np.median(off))
        pool = np.vstack([right, plain])  # each left sentence must find its own right one first
        separation[script] = float(np.mean(np.argmax(left @ pool.T, axis=1) == np.arange(len(pairs))))
    centre: dict[str, str] = {}
    answer, off_topic, slope, bias, loose_slope, loose_bias = {}, {}, {}, {}, {}, {}
    for asked in SCRIPTS:
        questions = _unit(embed(QUESTIONS[asked], "query"))
        n = len(questions)
        centre[asked] = base64.b64encode(questions.mean(axis=0).astype("<f4").tobytes()).decode("ascii")
        # Each probe question is centred on the mean of the others, as a real question is never
        # one of the probes.
        centred = questions - (questions.sum(axis=0) - questions) / (n - 1)
        hits: list[np.ndarray] = []
        misses: list[np.ndarray] = []  # per stored script, (questions, non-answers)
        for stored in SCRIPTS:
            sims = centred @ passages[stored][:n].T
            hits.append(sims[np.arange(n), np.arange(n)])
            misses.append(np.array([np.delete(sims[i], i) for i in range(n)]))
        every_miss = np.hstack(misses)
        nearest = np.sort(every_miss, axis=1)[:, -NEAREST_MISSES:]
        answer[asked] = float(np.median(np.concatenate(hits)))
        off_topic[asked] = float(np.median(every_miss))
        slope[asked], bias[asked] = _logistic(np.concatenate(hits), nearest.ravel())
        loose_slope[asked], loose_bias[asked] = _logistic(np.concatenate(hits), every_miss.ravel())
    return Calibration(model_id, unrelated, separation, centre, answer, off_topic, slope, bias, loose_slope, loose_bias)


def _logistic(hits: np.ndarray, misses: np.ndarray) -> tuple[float, float]:
    """(slope, bias) of P(hit | x) = 1 / (1 + exp(-(slope * x + bias))): logistic regression by Newton's
    method, each class weighing half (equal priors), with a slight pull of the slope towards zero so
    probes that separate perfectly still give a finite curve."""
    x = np.concatenate([hits, misses]).astype(np.float64)
    y = np.concatenate([np.ones(len(hits)), np.zeros(len(misses))])
    weight = np.where(y == 1, 0.5 / len(hits), 0.5 / len(misses))
    scale = max(float(x.std()), 1e-6)  # fitted on standardised x, so the pull means the same for every model
    xs = (x - x.mean()) / scale
    params = np.zeros(2)  # slope, bias on xs
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(params[0] * xs + params[1])))
        design = np.stack([xs, np.ones_like(xs)], axis=1)
        gradient = design.T @ (weight * (p - y)) + np.array([1e-3 * params[0], 0.0])
        hessian = (design * (weight * p * (1 - p))[:, None]).T @ design + np.diag([1e-3, 1e-9])
        step = np.linalg.solve(hessian, gradient)
        params -= step
        if np.abs(step).max() < 1e-9:
            break
    slope = params[0] / scale
    return float(slope), float(params[1] - slope * x.mean())


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def _off_diagonal(matrix: np.ndarray) -> np.ndarray:
    return matrix[~np.eye(len(matrix), dtype=bool)]


def probe_texts() -> frozenset[str]:
    """Every sentence `measure` embeds: fixed text, never a person's."""
    texts = [t for lists in (UNRELATED, QUESTIONS) for group in lists.values() for t in group]
    texts += [t for pairs in PARAPHRASES.values() for pair in pairs for t in pair]
    return frozenset(texts)


def machine_file(model_id: str) -> Path:
    """Where this computer keeps the model's calibration (public numbers about the model only)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_id)
    return default_cache_dir() / CACHE_SUBDIR / f"{safe}-v{PROBE_VERSION}.json"


def _from_machine(model_id: str) -> Calibration | None:
    try:
        found = Calibration.from_json(machine_file(model_id).read_text(encoding="utf-8"))
    except OSError:
        return None
    return found if found is not None and found.model_id == model_id else None


def _to_machine(calibration: Calibration) -> None:
    target = machine_file(calibration.model_id)
    with contextlib.suppress(OSError):  # a cache: a read-only cache folder costs a measurement, no more
        private_dir(target.parent)
        with private_writer(target) as handle:
            handle.write(calibration.to_json())


_measured: dict[str, Calibration] = {}
_measured_lock = threading.Lock()


def cached(model_id: str, stored: str | None, embed: Callable[..., np.ndarray]) -> tuple[Calibration, bool]:
    """The calibration for `model_id`: from this process, from the memory file (`stored`), from this
    computer's cache folder, or measured (and then kept there). Returns it and whether it is new to
    the memory file (the caller then saves it)."""
    saved = Calibration.from_json(stored) if stored is not None else None
    if saved is not None and saved.model_id != model_id:
        saved = None
    with _measured_lock:
        known = _measured.get(model_id) or saved
    if known is None:
        known = _from_machine(model_id)
    if known is None:
        known = measure(model_id, embed)
        _to_machine(known)
    with _measured_lock:
        _measured.setdefault(model_id, known)
    return known, saved != known
