"""Does `confidence` (and the MCP `nothing_relevant` flag read from it) hold from a new store to a large one?

    python bench/confidence_sizes.py [--sizes 10,100,1000,100000] [--langs en,zh] [--store DIR] [--json]

Per language, one store per size: a person's own memories (CORE: themselves and their family, each
with a few facts) and, above the first ten, filler memories of everyday events (generated from a few
templates whose words and names the questions avoid). Three kinds of question, written for this bench:

- answerable: the answer is in the store;
- near miss: the store holds the asked attribute, but for a different person ("what is my son allergic
  to?" when only the person's and the daughter's allergies are there);
- off topic: nothing in the store is about it.

For each question the search is the MCP tool's (limit 5); `nothing_relevant` is its rule (no result at
HIT_CONFIDENCE or above). Reported per size and language: the share of off-topic questions flagged, the
share of near misses where the other person's memory is not claimed (not returned at HIT_CONFIDENCE or
above), the share of near misses flagged, and the share of answerable questions wrongly flagged (and,
beside it, how often the answer is returned at HIT_CONFIDENCE or above).

The fillers are written through the storage layer with reused vectors (a pool of distinct sentences is
embedded once and kept in the store folder, each filler is one of them with a little noise on its
vector), so a 100k store takes minutes, not hours. At 10 memories the store holds the first ten CORE
memories only, and a question counts only when the memory it names is among them.

The code measured is whichever `hindsight_desktop` Python imports: for a baseline, put an older checkout
first (`PYTHONPATH=/tmp/base python bench/confidence_sizes.py`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_desktop.core.engine import HIT_CONFIDENCE, MemoryEngine
from hindsight_desktop.core.index import keyword
from hindsight_desktop.core.model.default_model import ensure_default_model
from hindsight_desktop.core.model.embedder import load_embedder
from hindsight_desktop.core.records import Entity
from hindsight_desktop.core.store import entities as entity_index
from hindsight_desktop.core.store import upkeep
from hindsight_desktop.core.store.ids import content_hash
from hindsight_desktop.core.store.memories import stored_fact
from hindsight_desktop.core.text.extract import extract_entities, fact_key
from hindsight_desktop.core.timeutil import from_db

# The person's own memories. The first ten make the 10-memory store.
CORE = {
    "en": [
        "I am allergic to penicillin.",  # 0
        "My daughter Mia is allergic to peanuts.",  # 1
        "I live in Beijing, near the Olympic park.",  # 2
        "My sister Anna lives in Berlin with her husband.",  # 3
        "My car's number plate is KX19 ABC.",  # 4
        "I work as a nurse at St Mary's hospital.",  # 5
        "My wife Sarah teaches maths at a secondary school.",  # 6
        "My son Leo plays the violin every Saturday morning.",  # 7
        "Our cat is called Biscuit and she is nine years old.",  # 8
        "My brother Tom drives a red Toyota Corolla.",  # 9
        "My manager Laura prefers updates by email rather than chat.",  # 10
        "I have a dentist appointment on Thursday at 3pm with Dr. Lee.",  # 11
        "My blood type is O negative.",  # 12
        "Mia goes to Greenfield Primary School.",  # 13
        "I go swimming on Tuesday evenings.",  # 14
        "Sarah's birthday is on 12 March.",  # 15
        "My friend Omar has been a vegetarian for ten years.",  # 16
        "I drink my coffee black with no sugar.",  # 17
        "Leo is afraid of big dogs.",  # 18
        "My passport expires in October 2027.",  # 19
        "I'm learning Spanish with an app on my phone.",  # 20
        "Tom works as a pilot for a cargo airline.",  # 21
    ],
    "zh": [
        "我对青霉素过敏。",  # 0
        "我女儿朵朵对芒果过敏。",  # 1
        "我住在杭州西湖区，离断桥不远。",  # 2
        "我姐姐在成都开了一家火锅店。",  # 3
        "我的车牌号是浙A8K392。",  # 4
        "我在一家银行做会计。",  # 5
        "我老公叫王磊，在中学教物理。",  # 6
        "儿子小宇每周六上午学钢琴。",  # 7
        "家里养了一只橘猫，叫团子，五岁了。",  # 8
        "我哥哥开一辆白色的比亚迪汉。",  # 9
        "我们领导刘洁喜欢用邮件汇报工作。",  # 10
        "周四下午三点约了牙医洗牙。",  # 11
        "我的血型是AB型。",  # 12
        "朵朵在实验小学上二年级。",  # 13
        "我每周二晚上去游泳。",  # 14
        "王磊的生日是三月十二号。",  # 15
        "我朋友李娜吃素已经十年了。",  # 16
        "我喝咖啡不加糖也不加奶。",  # 17
        "小宇很怕大狗。",  # 18
        "我的护照2027年10月到期。",  # 19
        "最近在用手机软件学日语。",  # 20
        "我哥哥是货运航空公司的飞行员。",  # 21
    ],
}

# (question, index in CORE): for an answerable question the memory that answers it; for a near miss
# the memory that holds the attribute for someone else.
QUESTIONS: dict[str, dict[str, list[tuple[str, int | None]]]] = {
    "en": {
        "answerable": [
            ("What am I allergic to?", 0),
            ("What is my daughter allergic to?", 1),
            ("Where do I live?", 2),
            ("Which city does my sister live in?", 3),
            ("What's my licence plate?", 4),
            ("What do I do for a living?", 5),
            ("What subject does Sarah teach?", 6),
            ("Which instrument does Leo play?", 7),
            ("What's our cat's name?", 8),
            ("What car does Tom drive?", 9),
            ("How does my manager like to get updates?", 10),
            ("When am I seeing the dentist?", 11),
            ("What's my blood type?", 12),
            ("Which school does Mia go to?", 13),
            ("When do I go swimming?", 14),
            ("When is my wife's birthday?", 15),
            ("Does Omar eat meat?", 16),
            ("How do I take my coffee?", 17),
            ("What is Leo scared of?", 18),
            ("When does my passport run out?", 19),
            ("Which language am I learning?", 20),
            ("What does my brother do for work?", 21),
        ],
        "near_miss": [
            ("What is my son allergic to?", 1),
            ("Is Sarah allergic to anything?", 0),
            ("Where does Priya live?", 2),
            ("Where does my brother live?", 3),
            ("What's Anna's number plate?", 4),
            ("What does my sister do for work?", 5),
            ("What does Anna teach?", 6),
            ("Which instrument does Mia play?", 7),
            ("What is Omar's cat called?", 8),
            ("What car does my sister drive?", 9),
            ("How does Tom prefer to be updated?", 10),
            ("When is Leo's dentist appointment?", 11),
            ("What is Sarah's blood type?", 12),
            ("Which school does my nephew go to?", 13),
            ("When does Mia go swimming?", 14),
            ("When is Tom's birthday?", 15),
            ("Is Laura a vegetarian?", 16),
            ("How does Sarah take her coffee?", 17),
            ("What is Mia afraid of?", 18),
            ("When does Sarah's passport expire?", 19),
            ("What language is Tom learning?", 20),
            ("What is Omar's job?", 21),
        ],
        "off_topic": [
            ("What is my favourite football team?", None),
            ("What's my shoe size?", None),
            ("Which bank do I use?", None),
            ("What's the name of my landlord?", None),
            ("How tall am I?", None),
            ("What's my wifi password?", None),
            ("What is my favourite colour?", None),
            ("Where did I go to university?", None),
            ("What's my mother's maiden name?", None),
            ("Do I have any tattoos?", None),
            ("What's my star sign?", None),
            ("Which party do I vote for?", None),
            ("What kind of laptop do I use?", None),
            ("What's my salary?", None),
            ("Who insures my house?", None),
            ("What time do I usually wake up?", None),
            ("What's my favourite board game?", None),
            ("Have I ever broken a bone?", None),
            ("Which podcast do I listen to?", None),
            ("What is my neighbour's name?", None),
            ("Do I own a motorbike?", None),
            ("What did I get for Christmas last year?", None),
        ],
    },
    "zh": {
        "answerable": [
            ("我对什么过敏？", 0),
            ("我女儿对什么过敏？", 1),
            ("我住在哪儿？", 2),
            ("我姐姐是做什么的？", 3),
            ("我的车牌是多少？", 4),
            ("我是做什么工作的？", 5),
            ("我老公教什么科目？", 6),
            ("小宇在学什么乐器？", 7),
            ("我们家的猫叫什么名字？", 8),
            ("我哥开的是什么车？", 9),
            ("领导喜欢怎么收汇报？", 10),
            ("我什么时候去看牙？", 11),
            ("我是什么血型？", 12),
            ("朵朵在哪个学校读书？", 13),
            ("我一般什么时候游泳？", 14),
            ("王磊哪天过生日？", 15),
            ("李娜吃肉吗？", 16),
            ("我喝咖啡有什么习惯？", 17),
            ("小宇害怕什么？", 18),
            ("我的护照什么时候过期？", 19),
            ("我最近在学哪门外语？", 20),
            ("我哥哥的职业是什么？", 21),
        ],
        "near_miss": [
            ("我儿子对什么过敏？", 1),
            ("王磊对什么过敏吗？", 0),
            ("张伟住在哪里？", 2),
            ("我表姐开了什么店？", 3),
            ("我姐姐的车牌号是多少？", 4),
            ("我老公在哪家银行上班？", 5),
            ("我姐姐教什么课？", 6),
            ("朵朵学什么乐器？", 7),
            ("李娜家的猫叫什么？", 8),
            ("我姐姐开什么车？", 9),
            ("我哥哥喜欢怎么沟通？", 10),
            ("小宇什么时候看牙医？", 11),
            ("王磊是什么血型？", 12),
            ("我外甥在哪个学校上学？", 13),
            ("朵朵什么时候去游泳？", 14),
            ("我哥哥的生日是哪天？", 15),
            ("刘洁吃素吗？", 16),
            ("王磊喝咖啡加糖吗？", 17),
            ("朵朵怕什么？", 18),
            ("我老公的护照什么时候到期？", 19),
            ("我哥哥在学什么外语？", 20),
            ("李娜是做什么工作的？", 21),
        ],
        "off_topic": [
            ("我最喜欢哪个足球队？", None),
            ("我穿多大码的鞋？", None),
            ("我的工资卡是哪个银行的？", None),
            ("房东叫什么名字？", None),
            ("我有多高？", None),
            ("家里的无线网密码是多少？", None),
            ("我最喜欢什么颜色？", None),
            ("我是在哪所大学毕业的？", None),
            ("我妈妈娘家姓什么？", None),
            ("我身上有纹身吗？", None),
            ("我是什么星座？", None),
            ("我用的是什么牌子的笔记本电脑？", None),
            ("我一个月挣多少钱？", None),
            ("房子的保险是哪家公司的？", None),
            ("我平时几点起床？", None),
            ("我最喜欢玩什么桌游？", None),
            ("我骨折过吗？", None),
            ("我常听哪个播客？", None),
            ("邻居叫什么？", None),
            ("我有摩托车吗？", None),
            ("去年过年收到了什么礼物？", None),
            ("我有没有考过驾照以外的证书？", None),
        ],
    },
}

# Everyday events; no template, place or name here answers a question above.
FILLER = {
    "en": {
        "templates": [
            "Had lunch with {name} at a {food} place near {place}.",
            "{name} sent the {doc} for review on {day}.",
            "The train to {place} was {n} minutes late this morning.",
            "Picked up {item} from the supermarket on the way home.",
            "The meeting with {name} about the {project} project moved to {day}.",
            "It rained all day in {place}, so we stayed in and {indoor}.",
            "Watered the {plant} on the balcony before work.",
            "{name} recommended a book about {topic}.",
            "Paid the {bill} bill, {n} pounds this month.",
            "Walked {n} thousand steps around {place} after dinner.",
            "{name} is away in {place} until {day}.",
            "Cooked {dish} for dinner and there is some left for tomorrow.",
            "Ordered {item} online; it should arrive on {day}.",
            "Cleaned the {room} and took out the recycling.",
        ],
        "name": ["Ben", "Chloe", "Raj", "Elena", "Marcus", "Yuki", "Hannah", "Diego", "Ingrid", "Kwame"],
        "place": ["the station", "the old market", "the river", "the office", "the harbour", "the museum"],
        "food": ["Thai", "ramen", "pizza", "dumpling", "curry", "salad"],
        "doc": ["budget sheet", "draft report", "slide deck", "contract", "survey results", "schedule"],
        "day": ["Monday", "Wednesday", "Friday", "next week", "the weekend"],
        "item": ["oat milk", "a bag of rice", "batteries", "bin bags", "tomatoes", "a lamp", "a doormat"],
        "project": ["archive", "billing", "website", "onboarding", "inventory", "migration"],
        "indoor": ["baked bread", "did a jigsaw", "sorted old photos", "tidied the shelves"],
        "plant": ["basil", "tomato plants", "lavender", "succulents", "mint"],
        "topic": ["ancient Rome", "bees", "the deep sea", "architecture", "mushrooms", "trains"],
        "bill": ["water", "gas", "internet", "council tax"],
        "dish": ["lentil soup", "fried rice", "a stew", "pasta", "roast vegetables", "noodles"],
        "room": ["kitchen", "bathroom", "hallway", "garage", "study"],
    },
    "zh": {
        "templates": [
            "中午和{name}在{place}附近吃了{food}。",
            "{name}{day}把{doc}发过来让我看。",
            "今天早上去{place}的地铁晚了{n}分钟。",
            "下班路上在超市买了{item}。",
            "和{name}讨论{project}项目的会改到{day}了。",
            "{place}下了一整天雨，我们在家{indoor}。",
            "上班前给阳台上的{plant}浇了水。",
            "{name}推荐了一本讲{topic}的书。",
            "交了这个月的{bill}费，{n}块钱。",
            "晚饭后在{place}走了{n}千步。",
            "{name}去{place}出差了，{day}回来。",
            "晚饭做了{dish}，还剩一些明天吃。",
            "网上买了{item}，{day}到货。",
            "打扫了{room}，把垃圾分类拿下去了。",
        ],
        "name": ["小陈", "老赵", "周敏", "孙浩", "高飞", "林晓", "何静", "马超", "许诺", "郑一"],
        "place": ["公司", "老街", "江边", "火车站", "体育馆", "图书馆"],
        "food": ["兰州拉面", "麻辣烫", "饺子", "盖浇饭", "寿司", "沙拉"],
        "doc": ["预算表", "报告初稿", "幻灯片", "合同", "调查结果", "排班表"],
        "day": ["周一", "周三", "周五", "下周", "周末"],
        "item": ["燕麦奶", "一袋大米", "电池", "垃圾袋", "西红柿", "一盏台灯", "地垫"],
        "project": ["档案", "计费", "官网", "入职", "库存", "迁移"],
        "indoor": ["烤面包", "拼拼图", "整理旧照片", "收拾书架"],
        "plant": ["罗勒", "番茄苗", "薰衣草", "多肉", "薄荷"],
        "topic": ["古罗马", "蜜蜂", "深海", "建筑", "蘑菇", "火车"],
        "bill": ["水", "燃气", "宽带", "物业"],
        "dish": ["番茄炒蛋", "蛋炒饭", "炖排骨", "意面", "烤蔬菜", "汤面"],
        "room": ["厨房", "卫生间", "走廊", "车库", "书房"],
    },
}
POOL = 1500  # distinct filler sentences per language, embedded once
NOISE = 0.01  # per dimension on a reused vector: cosine ~0.96 to its sentence's own
LIMIT = 5  # what memory_search returns by default


def filler_sentence(lang: str, rng: random.Random) -> str:
    words = FILLER[lang]
    template = rng.choice(words["templates"])
    slots = {k: rng.choice(v) for k, v in words.items() if k != "templates"}
    return template.format(n=rng.randint(2, 40), **slots)


def filler_pool(lang: str, embedder: Any, cache: Path) -> tuple[list[str], np.ndarray]:
    """POOL distinct filler sentences and their vectors (kept in `cache` for the next run)."""
    rng = random.Random(f"filler-{lang}")
    texts: list[str] = []
    seen: set[str] = set()
    while len(texts) < POOL:
        text = filler_sentence(lang, rng)
        if text not in seen:
            seen.add(text)
            texts.append(text)
    path = cache / f"pool-{lang}-{embedder.model_id[:16]}.npy"
    if path.exists():
        return texts, np.load(path)
    vectors = np.vstack([embedder.embed(texts[i : i + 16], "passage") for i in range(0, len(texts), 16)])
    vectors = vectors.astype(np.float32)
    np.save(path, vectors)
    return texts, vectors


def _row(i: int, text: str, found: list[Entity], stamp: str) -> dict[str, Any]:
    key, value = stored_fact(fact_key(text))
    return {
        "id": f"mem_fill{i:08d}",
        "content": text,
        "layer": "episodic",
        "type": "event",
        "importance": 0.3,
        "pinned": 0,
        "client": "desktop",
        "scope": "shared",
        "session_id": f"fill{i // 20}",
        "status": "active",
        "created_at": stamp,
        "occurred_at": stamp,
        "updated_at": stamp,
        "last_accessed_at": None,
        "access_count": 0,
        "entities": json.dumps([{"kind": e.kind, "text": e.text, "value": e.value} for e in found]),
        "metadata": "{}",
        "content_hash": content_hash(text),
        "fact_key": key,
        "fact_value": value,
    }


def fill(engine: MemoryEngine, lang: str, count: int, pool: tuple[list[str], np.ndarray], seed: int = 7) -> None:
    """`count` filler memories through the storage layer, each a pool sentence with noise on its vector."""
    texts, vectors = pool
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    today = datetime.now(UTC)
    found = [extract_entities(t, today) for t in texts]
    now = time.time()
    parts = engine.parts
    for start in range(0, count, 5000):
        with parts.store.write() as db:
            for i in range(start, min(count, start + 5000)):
                base = i if i < len(texts) else rng.randrange(len(texts))
                vector = vectors[base] if i < len(texts) else vectors[base] + nprng.normal(0, NOISE, vectors.shape[1])
                vector = (vector / np.linalg.norm(vector)).astype(np.float32)
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now - rng.uniform(1, 365) * 86400))
                rowid = upkeep.insert_row(db, _row(i, texts[base], found[base], stamp))
                occurred = from_db(stamp)
                keyword.add(db, rowid, texts[base], [(e.kind, e.value) for e in found[base]], occurred)
                parts.vectors.add(db, rowid, vector)
                entity_index.index(db, rowid, found[base], occurred)


def build(data: Path, lang: str, size: int, embedder: Any, pool: tuple[list[str], np.ndarray]) -> int:
    """A store of `size` memories: CORE (all of it, or its first `size`) and fillers. How many CORE went in."""
    core = CORE[lang][: min(size, len(CORE[lang]))]
    with MemoryEngine(data, embedder=embedder) as engine:
        fill(engine, lang, size - len(core), pool)
        for text in core:
            result = engine.write(text, explicit=True, gate=False, type="fact")
            if not result.stored:
                raise RuntimeError(f"the bench's memory was not stored: {text} ({result.reason})")
    return len(core)


def ask(engine: MemoryEngine, lang: str, held: int) -> dict[str, Any]:
    """Every question whose memory is in the store: what the search said."""
    core = CORE[lang]
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, questions in QUESTIONS[lang].items():
        rows = out.setdefault(kind, [])
        for question, index in questions:
            if index is not None and index >= held:
                continue
            hits = engine.search(question, limit=LIMIT, log=False).hits
            target = None if index is None else core[index]
            named = [h for h in hits if h.memory.content == target]
            rows.append(
                {
                    "question": question,
                    "nothing_relevant": not any(h.confidence >= HIT_CONFIDENCE for h in hits),
                    "top": [(round(h.confidence, 2), h.memory.content[:50]) for h in hits[:3]],
                    "target_confidence": round(named[0].confidence, 3) if named else None,
                }
            )
    return out


def summary(answers: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    def share(rows: list[dict[str, Any]], test: Any) -> float | None:
        return round(sum(1 for r in rows if test(r)) / len(rows), 3) if rows else None

    def claimed(r: dict[str, Any]) -> bool:
        return r["target_confidence"] is not None and r["target_confidence"] >= HIT_CONFIDENCE

    off, near, ans = answers["off_topic"], answers["near_miss"], answers["answerable"]
    return {
        "off_topic_flagged": share(off, lambda r: r["nothing_relevant"]),
        "near_miss_not_claimed": share(near, lambda r: not claimed(r)),
        "near_miss_flagged": share(near, lambda r: r["nothing_relevant"]),
        "answerable_wrongly_flagged": share(ans, lambda r: r["nothing_relevant"]),
        "answer_claimed": share(ans, claimed),
        "n": {"off_topic": len(off), "near_miss": len(near), "answerable": len(ans)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,100000")
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--store", type=Path, help="keep the pool vectors (and nothing else) here between runs")
    parser.add_argument("--models", type=Path, default=Path(tempfile.gettempdir()) / "hindsight-bench-models")
    parser.add_argument("--json", action="store_true", help="every question's results too")
    parser.add_argument("--show", action="store_true", help="print each question's top results")
    args = parser.parse_args(argv)
    embedder = load_embedder(ensure_default_model(args.models))
    keep = args.store or Path(tempfile.gettempdir()) / "hindsight-bench-confidence"
    keep.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {}
    for lang in args.langs.split(","):
        pool = filler_pool(lang, embedder, keep)
        for size in (int(s) for s in args.sizes.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                started = time.perf_counter()
                held = build(Path(tmp) / "data", lang, size, embedder, pool)
                built = time.perf_counter() - started
                with MemoryEngine(Path(tmp) / "data", embedder=embedder) as engine:
                    answers = ask(engine, lang, held)
            row = summary(answers) | {"build_seconds": round(built, 1)}
            report[f"{lang} {size}"] = row | ({"questions": answers} if args.json else {})
            if args.show:
                for kind, rows in answers.items():
                    for r in rows:
                        print(f"  {lang} {size} {kind:10} nr={r['nothing_relevant']!s:5} {r['question']} -> {r['top']}")
            print(f"{lang} {size}: {json.dumps(row)}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return 0
    head = (
        "store",
        "off-topic flagged",
        "near miss not claimed",
        "near miss flagged",
        "answerable flagged",
        "answer ≥0.5",
    )
    print(" | ".join(head))
    for name, row in report.items():
        cells = [
            row["off_topic_flagged"],
            row["near_miss_not_claimed"],
            row["near_miss_flagged"],
            row["answerable_wrongly_flagged"],
            row["answer_claimed"],
        ]
        print(" | ".join([name] + ["-" if c is None else f"{c:.2f}" for c in cells]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
