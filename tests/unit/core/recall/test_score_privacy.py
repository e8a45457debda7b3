"""What a client sees of a search, scores included, does not depend on memories it cannot see: another
client's private memories that share its question's words leave every result, score, confidence and
order as they were (keyword BM25, the full-match score, entity and date rarity, near-repeats, the use
count a private repeat would raise), and
the two ways keyword scores are computed (FTS5's own, the viewer's statistics) agree to the last bit."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import numpy as np
from support.store import insert_indexed

from hindsight_desktop.core.index import keyword, keyword_stats
from hindsight_desktop.core.recall.candidates import visible_hits
from hindsight_desktop.core.store.database import Store

SHARED = [
    "Priya's flight KX4821 to Lisbon leaves on Friday at 7am.",
    "Priya recommended a ramen place in Lisbon near the river.",
    "The dentist in Lisbon charges 80 euros for a cleaning.",
    "My sister moved to Toronto for a job at a jazz label.",
    "I prefer green tea over coffee in the morning.",
    "I prefer green tea over coffee in the mornings.",  # a near-repeat of the one above
    "朵朵的钢琴老师姓吴，每周三晚上上课。",
    "我们五月去杭州玩了三天，住在西湖边。",
    "女儿朵朵对花生过敏。",
]
MINE_PRIVATE = ["My own note: the Lisbon apartment key is under the blue pot."]
QUESTIONS = [
    "When does Priya's flight to Lisbon leave?",
    "flight KX4821",
    "What did the dentist in Lisbon charge?",
    "Where did my sister move for the jazz job?",
    "green tea or coffee?",
    "What did I do in May 2026?",
    "apartment key",
    "朵朵的钢琴老师姓什么？",
    "我们去杭州玩了几天？",
    "女儿对什么过敏？",
    "孩子现在多大了？",  # shares only stray pieces with the memories
]
# Another client's private words: every question's, in rows of every length, with the same names,
# codes and dates, so each count a score could lean on moves.
OTHERS_PRIVATE = [
    *[f"Lisbon flight KX4821 Priya dentist charge note {i}." for i in range(12)],
    "Priya " * 30 + "flight to Lisbon, sister, jazz job, green tea, coffee, apartment key, dentist.",
    "Met Priya in Lisbon on 12 May 2026; she flew KX4821 with her sister to Toronto for jazz.",
    *[f"朵朵的钢琴老师和女儿花生过敏的事，杭州西湖三天，孩子现在多大了，第{i}条。" for i in range(8)],
    "钢琴老师 " * 25 + "杭州 过敏 女儿 孩子",
    SHARED[0],  # a private repeat of a shared memory: not one more use of it
]


def _seen_by(engine, client: str) -> list:
    """Every result of every question in every mode, unrounded, as the client sees it."""
    out = []
    for question in QUESTIONS:
        for mode in ("hybrid", "keyword", "vector"):
            hits = engine.search(question, client=client, mode=mode, limit=10, log=False).hits
            out.append(
                (
                    question,
                    mode,
                    [
                        (h.memory.id, h.rank, h.relevance, h.confidence, h.evidenced, h.to_dict(explain=True))
                        for h in hits
                    ],
                )
            )
    return out


def _statistics_seen_by(engine, client: str) -> list:
    with engine.store.read() as db:
        seen = keyword_stats.view(db, client)
        return [
            (
                visible_hits(db, lambda k, q=q: keyword.search(db, q, k, seen), 20, client),
                keyword.full_match_score(db, keyword.query_terms(q), seen),
                seen.words.rows,
            )
            for q in QUESTIONS
            if keyword.query_terms(q)
        ]


def test_another_clients_private_words_change_nothing_a_client_sees(engine) -> None:
    for i, text in enumerate(SHARED):
        writer = {"client": "bravo"} if i % 2 else {}  # the person's and bravo's shared memories
        engine.write(text, gate=False, occurred_at=datetime(2026, 5, 10 + i, 9, 0, tzinfo=UTC), **writer)
    for text in MINE_PRIVATE:
        engine.write(text, client="bravo", scope="private", gate=False)
    before, numbers_before = _seen_by(engine, "bravo"), _statistics_seen_by(engine, "bravo")
    assert any(hits for _, mode, hits in before if mode == "keyword")

    for text in OTHERS_PRIVATE:
        engine.write(
            text, client="alpha", scope="private", gate=False, occurred_at=datetime(2026, 5, 12, 9, 0, tzinfo=UTC)
        )
    after, numbers_after = _seen_by(engine, "bravo"), _statistics_seen_by(engine, "bravo")

    assert numbers_after == numbers_before
    for was, now in zip(before, after, strict=True):
        assert now == was, was[:2]
    # Each counts what it may see: the person all, each client the shared memories and its own.
    with engine.store.read() as db:
        everything = keyword_stats.view(db, None).words.rows
        assert keyword_stats.view(db, "alpha").words.rows == everything - len(MINE_PRIVATE)
        assert keyword_stats.view(db, "bravo").words.rows == everything - len(OTHERS_PRIVATE) + 1  # the repeat


def test_the_viewers_statistics_score_exactly_as_fts5_does(tmp_path) -> None:
    """With the same statistics, the Python scoring (used when something is hidden) gives FTS5's numbers,
    so which way a search went never shows."""
    store = Store(tmp_path / "m.db")
    when = datetime(2026, 5, 1, tzinfo=UTC)
    texts = list(dict.fromkeys([*SHARED, *OTHERS_PRIVATE, *MINE_PRIVATE, "Lisbon " * 40, "flight", "朵朵"]))
    with store.write() as db:
        for text in texts:
            insert_indexed(db, text, when)
    with store.read() as db:
        own = keyword_stats.view(db, None)
        assert own.words.own and own.words.rows == len(texts)
        # A hidden rowid that is in no index: the same statistics, the other way of scoring.
        no_such_row = np.array([0], dtype=np.int64)
        forced = keyword_stats.View(
            dataclasses.replace(own.words, hidden_rows=no_such_row),
            dataclasses.replace(own.trigram, hidden_rows=no_such_row),
            own.hidden,
        )
        assert not forced.words.own
        for question in QUESTIONS + ["钢琴老师", "Lisbon flight KX4821 Priya"]:
            fts5 = keyword.search(db, question, 50, own)
            assert fts5 == keyword.search(db, question, 50, forced), question
            assert keyword.full_match_score(db, keyword.query_terms(question), own) == keyword.full_match_score(
                db, keyword.query_terms(question), forced
            )
        assert keyword.search(db, "钢琴老师", 50, own)  # the trigram index took part
    store.close()


def test_what_only_others_hold_weighs_nothing(tmp_path) -> None:
    """Kestrels are common only in what bravo cannot see: by every row a memory of ospreys outranks one of
    kestrels, by bravo's the two weigh the same; and bravo is never handed a row it cannot see."""
    store = Store(tmp_path / "m.db")
    when = datetime(2026, 5, 1, tzinfo=UTC)
    hidden = [f"kestrel note {i}" for i in range(30)]
    with store.write() as db:
        rows = [
            insert_indexed(db, text, when)
            for text in [
                *hidden,
                *SHARED,
                *(f"kestrel sighting {i}" for i in range(10)),
                *(f"osprey sighting {i}" for i in range(10)),
            ]
        ]
        for rowid in rows[: len(hidden)]:
            db.execute("UPDATE memories SET scope = 'private', client = 'alpha' WHERE rowid = ?", (rowid,))
    kestrels, ospreys = rows[-20:-10], rows[-10:]
    with store.read() as db:
        for viewer, alike in (("bravo", True), (None, False)):
            hits = dict(keyword.search(db, "kestrel osprey", 100, keyword_stats.view(db, viewer)))
            assert (hits[kestrels[0]] == hits[ospreys[0]]) is alike
            if viewer:
                assert set(hits) == {*kestrels, *ospreys}
            else:
                assert hits[ospreys[0]] > hits[kestrels[0]] and set(rows[: len(hidden)]) <= set(hits)
    store.close()


def test_a_viewers_statistics_follow_every_write(tmp_path) -> None:
    """Kept per connection, they are read again once anything changed, by this connection or another."""
    store = Store(tmp_path / "m.db")
    when = datetime(2026, 5, 1, tzinfo=UTC)
    with store.write() as db:
        insert_indexed(db, SHARED[0], when)
    for count, text in enumerate(SHARED[1:4], 2):
        with store.read() as db:
            before = keyword_stats.view(db, "bravo").words.rows
        with store.write() as db:
            insert_indexed(db, text, when)
            assert keyword_stats.view(db, "bravo").words.rows == count  # inside the writing transaction
        with store.read() as db:
            assert keyword_stats.view(db, "bravo").words.rows == count == before + 1
    store.close()
