"""Each embedding model's score scale, measured once when it is loaded.

Models place sentences on very different scales: for all-MiniLM two unrelated English sentences land
near cosine 0.1, for multilingual-e5 near 0.8, and an English-only model puts unrelated Chinese
sentences close together. A novelty of "1 - highest cosine", a duplicate bar of 0.95 or a recall
floor of 0.3 therefore mean something else for every model and every script. Rather than hand-set
constants per model, the engine embeds a small probe set when it loads a model and reads off:

- how close unrelated sentences land, per script (the floor of "nothing in common");
- whether a paraphrase is found as its partner's nearest neighbour
  (per script: where the model is weak, the write gate leans on lexical overlap instead);
- how close a question lands to the memory that answers it, and to memories that do not, for each
  pair of question and memory language: e5 puts a Chinese question nearer to any Chinese memory
  than to the English memory that answers it, so each pair is put on its own scale.

The result is cached per model id, in the process and in the memory file's `meta` table, so only the
first process that opens a memory with a new model pays for it (about a second).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

# Version of the probe set and of what is measured: bump it to re-measure every model.
PROBE_VERSION = 3
META_PREFIX = "calibration:"
# Where a typical answer lands on the recall scale. Recall's weights were set on all-MiniLM's raw
# cosines, where answers land near 0.5 and off-topic text near 0; e5's raw answers land at 0.82 and
# off-topic at 0.73. Mapping both points gives every model the scale the weights expect.
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
    "en": ["Is the printer working?", "What did grandma grow in her garden?", "Why was my trip to Denver late?",
           "Which instrument am I learning?", "What build tool does the team use now?",
           "What advice did the dentist give me?", "What was the film we saw about?",
           "How much more will I pay for the flat?"],
    "zh": ["打印机还能用吗？", "奶奶在园子里种什么？", "去成都为什么迟到了？", "我在学什么乐器？",
           "团队现在用什么构建工具？", "牙医给了我什么建议？", "我们看的那部片子讲什么？", "住的地方要多交多少钱？"],
}
SCRIPTS = ("en", "zh")


@dataclass(frozen=True)
class Calibration:
    """Where one model puts unrelated and answering texts (cosines), and how well it finds paraphrases."""

    model_id: str
    unrelated: dict[str, float]       # median cosine between unrelated memories
    separation: dict[str, float]      # share of paraphrases found as their partner's nearest neighbour
    # Query->memory cosines per language pair, keyed "zh>en" (a Chinese question, an English memory):
    answer: dict[str, float]          # median when the memory answers the question
    off_topic: dict[str, float]       # median when it does not
    off_topic_high: dict[str, float]  # the 95th percentile of those

    def script(self, lang: str) -> str:
        return lang if lang in self.unrelated else "en"

    def pair(self, asked: str, stored: str) -> str:
        return f"{self.script(asked)}>{self.script(stored)}"

    def novelty(self, cosine: float, lang: str) -> float:
        """1 when a text is no closer to its nearest memory than unrelated texts are; 0 when identical."""
        floor = self.unrelated[self.script(lang)]
        return float(min(1.0, max(0.0, (1.0 - cosine) / max(1e-6, 1.0 - floor))))

    def closeness(self, cosine: float, lang: str) -> float:
        """Memory-to-memory cosine on a common scale: 0 at the unrelated level, 1 when identical."""
        return 1.0 - self.novelty(cosine, lang)

    def relevance(self, cosine: float, asked: str = "en", stored: str = "en") -> float:
        """Query-to-memory cosine on a common scale for the language pair: 0 at the off-topic level,
        ANSWER_LEVEL where a typical answer lands, capped at 1."""
        pair = self.pair(asked, stored)
        floor, answer = self.off_topic[pair], self.answer[pair]
        return float(min(1.0, max(0.0, (cosine - floor) / max(1e-3, answer - floor) * ANSWER_LEVEL)))

    def evidence_floor(self, asked: str = "en", stored: str = "en") -> float:
        """The cosine at which a memory is as likely to answer as not (confidence 0.5): halfway between
        the off-topic 95th percentile and the typical answer of the language pair."""
        pair = self.pair(asked, stored)
        return (self.off_topic_high[pair] + self.answer[pair]) / 2.0

    def languages(self, multilingual: bool) -> dict[str, Any]:
        """What the model status says of languages: measured when the model loaded, the share of probe
        paraphrases found per script, and whether Chinese is covered."""
        return {"multilingual": multilingual, "paraphrases_found": dict(self.separation),
                "covers_chinese": multilingual and self.separation["zh"] >= 0.9}

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
    for script in SCRIPTS:
        plain = _unit(embed(UNRELATED[script], "passage"))
        pairs = PARAPHRASES[script]
        left = _unit(embed([a for a, _ in pairs], "passage"))
        right = _unit(embed([b for _, b in pairs], "passage"))
        off = _off_diagonal(plain @ plain.T)
        unrelated[script] = float(np.median(off))
        pool = np.vstack([right, plain])  # each left sentence must find its own right one first
        separation[script] = float(np.mean(np.argmax(left @ pool.T, axis=1) == np.arange(len(pairs))))
    answer, off_topic, off_high = {}, {}, {}
    passages = {s: _unit(embed(UNRELATED[s], "passage")) for s in SCRIPTS}
    for asked in SCRIPTS:
        questions = _unit(embed(QUESTIONS[asked], "query"))
        for stored in SCRIPTS:
            sims = questions @ passages[stored].T
            n = len(questions)
            hits = sims[np.arange(n), np.arange(n)]
            misses = np.concatenate([np.delete(sims[i], i) for i in range(n)])
            key = f"{asked}>{stored}"
            answer[key] = float(np.median(hits))
            off_topic[key] = float(np.median(misses))
            off_high[key] = float(np.quantile(misses, 0.95))
    return Calibration(model_id, unrelated, separation, answer, off_topic, off_high)


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def _off_diagonal(matrix: np.ndarray) -> np.ndarray:
    return matrix[~np.eye(len(matrix), dtype=bool)]


_measured: dict[str, Calibration] = {}
_measured_lock = threading.Lock()


def cached(model_id: str, stored: str | None, embed: Callable[..., np.ndarray]) -> tuple[Calibration, bool]:
    """The calibration for `model_id`: from this process, from the memory file (`stored`), or measured.
    Returns it and whether it is new to the memory file (the caller then saves it)."""
    saved = Calibration.from_json(stored) if stored is not None else None
    if saved is not None and saved.model_id != model_id:
        saved = None
    with _measured_lock:
        known = _measured.get(model_id) or saved
    if known is None:
        known = measure(model_id, embed)
    with _measured_lock:
        _measured.setdefault(model_id, known)
    return known, saved != known
