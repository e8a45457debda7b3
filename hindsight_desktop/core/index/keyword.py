"""The keyword indexes (FTS5): words with stemming, plus trigrams for substrings in CJK text.

unicode61 keeps a run of Chinese or Japanese characters as one token, so "我住在北京" would only
match itself. A Chinese run is therefore indexed as its words (rjieba, every dictionary word in it, so
whatever way a question cuts the same phrase its words are there), its single characters, and
overlapping character pairs; a question is cut into words (search mode) and pairs. On 25 Chinese
paraphrase questions, keyword-only: pairs alone found 18 in the top 10 (17 first), words + pairs 22
(18 first), words + characters + pairs 23 (20 first). The trigram table answers longer substrings.
Changing what goes into the words index needs a migration that re-indexes, as
`segment_chinese_keywords` in store/schema.py does.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

import apsw

from hindsight_desktop.core.index import keyword_stats, row_lengths
from hindsight_desktop.core.index.keyword_stats import View
from hindsight_desktop.core.store.entities import KEYWORD_VALUE
from hindsight_desktop.core.text import segment
from hindsight_desktop.core.timeutil import from_db

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

# Words that carry no search intent in a question. Kept short on purpose: names and nouns must stay.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "ll",
        "ve",
        "re",
        "d",
        "m",
        "o",
        "y",
        "also",
        "ever",
        "kind",
        "sort",
        "thing",
        "things",
        "anything",
        "something",
        "tell",
        "know",
        "remember",
        "think",
        "did",
        "does",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "yes",
        "yeah",
        "oh",
        "hey",
        "hi",
        "的",
        "了",
        "吗",
        "呢",
        "吧",
        "啊",
        "是",
        "在",
        "我",
        "你",
        "他",
        "她",
        "它",
        "们",
        "和",
        "与",
        "也",
        "都",
        "就",
        "还",
        "这",
        "那",
        "什么",
        "怎么",
        "哪",
        "谁",
        "几",
        "多少",
        "有",
        "没有",
        "一个",
        # Chinese question and function words as the segmenter cuts them.
        "时候",
        "什么时候",
        "哪里",
        "哪儿",
        "哪个",
        "哪些",
        "哪天",
        "哪家",
        "哪所",
        "哪位",
        "为什么",
        "如何",
        "怎样",
        "怎么样",
        "是不是",
        "有没有",
        "我们",
        "你们",
        "他们",
        "她们",
        "自己",
        "一下",
        "一些",
        "这个",
        "那个",
        "这些",
        "那些",
        "的话",
        "还是",
        "或者",
        "就是",
        "可以",
        "什么样",
        "多久",
        "几点",
        "是否",
        "请问",
        "告诉",
        "记得",
        "知道",
        "么",
        "过",
        "得",
        "地",
        "着",
        "把",
        "被",
        "给",
        "让",
        "从",
        "到",
        "对",
        "会",
        "能",
        "要",
        "去",
        "个",
        "吗",
        "呢",
    ]
)


def cjk_pairs(text: str) -> list[str]:
    """Overlapping two-character pieces of every CJK run (a lone character stays as it is)."""
    pieces: list[str] = []
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            pieces.append(run)
        pieces.extend(run[i : i + 2] for i in range(len(run) - 1))
    return pieces


def han_terms(content: str) -> list[str]:
    """Index terms of the Chinese runs: every dictionary word in them (jieba's full mode), then
    each Han character on its own."""
    runs = segment.HAN_RUN.findall(content)
    if not runs:
        return []
    tok = segment.tokenizer()
    words = [w for run in runs for w in tok.cut(run, cut_all=True) if len(w) > 1]
    return words + [ch for run in runs for ch in run]


def index_body(content: str, extra_terms: list[str]) -> str:
    """What the words index sees: the text outside CJK runs, the Chinese words and characters, the
    CJK pairs, and normalised entity values (ISO dates, codes)."""
    parts = [_CJK_RUN.sub(" ", content)]
    for terms in (han_terms(content), cjk_pairs(content)):
        if terms:
            parts.append(" ".join(terms))
    if extra_terms:
        parts.append(" ".join(extra_terms))
    return "\n".join(parts)


def query_terms(query: str) -> list[str]:
    """The search terms of a free-text query: words minus stop words, Chinese words, CJK pairs."""
    terms: list[str] = []
    seen: set[str] = set()
    latin = _CJK_RUN.sub(" ", query)
    candidates = [w.lower().replace("’", "'") for w in _WORD.findall(latin)] + segment.words(query) + cjk_pairs(query)
    for word in candidates:
        for piece in word.split("'") if "'" in word else [word]:
            if piece and piece not in STOP_WORDS and piece not in seen:
                seen.add(piece)
                terms.append(piece)
    return terms


def quote(term: str) -> str:
    """One term as an FTS5 string, so syntax characters in user text (quotes, *, AND, NEAR) are literal."""
    return '"' + term.replace('"', '""') + '"'


def match_expression(terms: list[str], joiner: str = "OR") -> str:
    """An FTS5 query for any (OR) or every (AND) of the terms."""
    return f" {joiner} ".join(quote(t) for t in terms)


def extra_terms(entities: list[tuple[str, str]], occurred: datetime) -> list[str]:
    """Normalised entity values plus the memory's own event date in words ("8 May 2023"), so
    "what did I do in May 2023?" finds it even when the text never names the date."""
    terms = [value for kind, value in entities if kind in KEYWORD_VALUE]
    terms.append(f"{occurred.day} {occurred.strftime('%B')} {occurred.year}")
    return terms


def add(db: apsw.Connection, rowid: int, content: str, entities: list[tuple[str, str]], occurred: datetime) -> None:
    body = index_body(content, extra_terms(entities, occurred))
    for table, text in (("fts_words", body), ("fts_trigram", content)):
        db.execute(f"INSERT INTO {table} (rowid, body) VALUES (?, ?)", (rowid, text))
        row_lengths.note_text(db, table, rowid, text)  # what searches bring their kept postings up to date with


def delete(db: apsw.Connection, rowid: int) -> int:
    removed = 0
    for table in ("fts_words", "fts_trigram"):
        db.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
        removed += db.changes()
        row_lengths.note_text(db, table, rowid, None)
    return removed


def search(db: apsw.Connection, query: str, k: int, seen: View | None = None) -> list[tuple[int, float]]:
    """BM25 hits (rowid, positive score, higher is better), plus trigram substring hits for CJK text,
    scored over what the viewer of `seen` may see (None: every row, as the person sees them)."""
    seen = seen or keyword_stats.view(db, None)
    hits = dict(seen.words.ranked(db, [quote(t) for t in query_terms(query)], k))
    for run in _CJK_RUN.findall(query):
        if len(run) < 3:
            continue
        for rowid, score in seen.trigram.ranked(db, [quote(run)], k):
            hits[rowid] = max(hits.get(rowid, 0.0), score)
    return sorted(hits.items(), key=lambda item: (-item[1], item[0]))[:k]


def search_words(db: apsw.Connection, words: list[str], k: int, seen: View | None = None) -> list[tuple[int, float]]:
    """BM25 hits for words that are already cut (a translation's): each word, and a Chinese word's
    character pairs as a question's would give. No segmenter: a translated English question must not
    load it (33 MB) in a process whose memories are all English."""
    terms = [t for w in words for t in ([w, *cjk_pairs(w)] if _CJK_RUN.search(w) else [w.lower()])]
    seen = seen or keyword_stats.view(db, None)
    return seen.words.ranked(db, [quote(t) for t in dict.fromkeys(terms) if t not in STOP_WORDS], k)


def full_match_score(db: apsw.Connection, terms: list[str], seen: View | None = None) -> float:
    """The BM25 score a memory of average length would get for holding each of the terms once (a query's,
    from `query_terms`): the sum of the terms' IDF, as bm25 computes it over the memories the viewer of
    `seen` may see (None: all).

    A search's best keyword score says how well the best memory matched, not whether that was much:
    when a question's only hits share a common word or a stray character pair with it, the best of
    them is still the best. Against this score a match can be told to be partial. Counting a term's
    memories costs little beside the search itself (bench/NOTES.md).
    """
    words = (seen or keyword_stats.view(db, None)).words
    return sum(words.idf(words.documents(db, quote(term))) for term in terms)


def optimize(db: apsw.Connection) -> None:
    """Merge the FTS segments so deleted entries are physically gone (used after a purge)."""
    for table in ("fts_words", "fts_trigram"):
        db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


def reindex_cjk(db: apsw.Connection) -> int:
    """Index again every indexed memory whose text has CJK characters (after the tokenization of
    CJK text changed); returns how many. Runs inside the caller's write transaction."""
    rows = list(
        db.execute(  # read whole before the loop re-indexes
            "SELECT rowid, content, entities, occurred_at FROM memories WHERE rowid IN (SELECT rowid FROM fts_words)"
        )
    )
    count = 0
    for rowid, content, entities, occurred in rows:
        if not _CJK_RUN.search(content):
            continue
        delete(db, rowid)
        pairs = [(e["kind"], e["value"]) for e in json.loads(entities)]
        add(db, rowid, content, pairs, from_db(occurred))
        count += 1
    return count


def holds_chinese(db: apsw.Connection) -> bool:
    """Whether any memory's words entry holds a Chinese term: a range of the index's vocabulary (through
    the connection's instance table, postings.create_instance_tables), not a scan of the memories."""
    found = db.execute(
        "SELECT 1 FROM temp.fts_words_instances WHERE term >= ? AND term < ? LIMIT 1", ("\u4e00", "\ua000")
    ).fetchone()
    return found is not None


def indexed(db: apsw.Connection, rowid: int) -> bool:
    """Whether the memory is in the words index."""
    return db.execute("SELECT 1 FROM fts_words WHERE rowid = ?", (rowid,)).fetchone() is not None


def matches(db: apsw.Connection, expression: str, rowid: int) -> bool:
    """Whether the memory's words entry matches an FTS expression (match_expression's form)."""
    return (
        db.execute("SELECT 1 FROM fts_words WHERE fts_words MATCH ? AND rowid = ?", (expression, rowid)).fetchone()
        is not None
    )


def matching(db: apsw.Connection, expression: str) -> list[int]:
    """Every rowid whose words entry matches an FTS expression, unranked and unlimited."""
    return [int(r) for (r,) in db.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (expression,))]
