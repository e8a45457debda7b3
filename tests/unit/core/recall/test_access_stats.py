"""A search, a read-only tool, never takes the memory file's write lock: its access statistics are
queued and written after the answer, and none is lost on a clean close. Model work stays outside
write transactions too."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import apsw

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.core.write import gate, gate_language

WAIT = 60  # seconds: only a guard against hanging when something is broken; never a measured time


def _fill(engine: MemoryEngine) -> list[str]:
    texts = [
        "Remember: the spare bike key hangs behind the pantry door.",
        "Remember: Amara's flight to Lisbon leaves on 3 May at 07:40.",
        "Remember: the boiler service code is 4471.",
    ]
    return [engine.write(text, gate=False).id for text in texts]


def _counts(db: apsw.Connection) -> tuple[int, int]:
    searches = db.execute("SELECT count(*) FROM searches").fetchone()[0]
    uses = db.execute("SELECT coalesce(sum(access_count), 0) FROM memories").fetchone()[0]
    return searches, uses


def test_a_search_does_not_wait_while_another_process_holds_the_write_lock(engine):
    key = _fill(engine)[0]
    other = connect_existing(engine.store.path)  # as another process would: its own connection
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta (key, value) VALUES ('other', 'process')")
    found: list[list[str]] = []

    def search() -> None:
        found.append([h.memory.id for h in engine.search("where is the bike key?", limit=1).hits])

    thread = threading.Thread(target=search)
    thread.start()
    # Taking the write lock here would wait out the 30 s busy timeout and then fail: the search must
    # come back while the other connection still holds the lock.
    thread.join(WAIT)
    finished_while_locked = not thread.is_alive()
    other.execute("COMMIT")
    thread.join(WAIT)
    other.close()
    assert finished_while_locked and found == [[key]]
    assert engine.get(key).access_count == 1  # written once the lock came free
    assert engine.stats()["searches"] == 1


def test_access_counts_are_written_on_close(tmp_path, embedder, clock):
    data = tmp_path / "data"
    engine = MemoryEngine(data, embedder=embedder, clock=clock)
    key = _fill(engine)[0]
    for _ in range(3):
        engine.search("where is the bike key?", limit=1)
    engine.close()
    db = connect_existing(engine.store.path)
    assert _counts(db) == (3, 3)
    assert db.execute(
        "SELECT access_count, last_accessed_at IS NOT NULL FROM memories WHERE id = ?", (key,)
    ).fetchone() == (3, 1)
    db.close()


def test_searches_on_many_threads_are_each_counted_once(engine):
    _fill(engine)
    queries = ["bike key", "flight to Lisbon", "boiler code"] * 8
    start = threading.Barrier(len(queries), timeout=WAIT)

    def search(query: str) -> int:
        start.wait()
        # A memory listed only as one of the nearest in meaning is not a use (SearchHit.evidenced).
        return sum(hit.evidenced for hit in engine.search(query, limit=2).hits)

    with ThreadPoolExecutor(len(queries)) as pool:
        hits = list(pool.map(search, queries))
    stats = engine.stats()
    assert stats["searches"] == len(queries)
    with engine.store.read() as db:
        assert _counts(db) == (len(queries), sum(hits))


def test_the_next_write_lands_after_the_searches_before_it(engine):
    key = _fill(engine)[0]
    engine.search("where is the bike key?", limit=1)
    engine.set_paused(False)  # any write transaction of this process writes the queued uses first
    with engine.store.read() as db:
        assert db.execute("SELECT access_count FROM memories WHERE id = ?", (key,)).fetchone()[0] == 1


def test_another_clients_search_never_counts_a_private_memory(engine):
    private = engine.write(
        "Remember: my therapist sees me every Tuesday at 5pm.", client="victim", scope="private", gate=False
    ).id
    shared = engine.write(
        "Remember: the team therapist visits the office every Tuesday.", client="victim", gate=False
    ).id
    for who in ("mallory", "victim"):
        engine.search("who sees me on Tuesday?", client=who, limit=5)
    engine.close()  # every queued record written
    db = connect_existing(engine.store.path)
    counts = dict(db.execute("SELECT id, access_count FROM memories").fetchall())
    db.close()
    assert counts == {private: 1, shared: 2}  # the victim's search only


def test_a_use_is_dated_when_the_search_ran(engine, clock):
    key = _fill(engine)[0]
    ran = clock.now
    engine.search("where is the bike key?", limit=1)
    clock.advance(days=3)  # whenever the statistics are written, the use is the search's
    assert engine.get(key).last_accessed_at == ran


def test_the_gate_embeds_its_prototypes_when_the_model_loads_never_inside_a_write(
    tmp_path, embedder, clock, monkeypatch
):
    monkeypatch.setattr(gate, "_prototype_cache", {})  # as in a fresh process
    calls: list[tuple[int, bool]] = []
    engines: list[MemoryEngine] = []
    real = embedder.embed

    def watched(texts, *args, **kwargs):
        in_write = bool(engines) and engines[0].store.db.in_transaction
        calls.append((len(texts), in_write))
        return real(texts, *args, **kwargs)

    monkeypatch.setattr(embedder, "embed", watched)
    engine = MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock)
    engines.append(engine)
    prototypes = len(gate_language.KEEP_PROTOTYPES) + len(gate_language.CHATTER_PROTOTYPES)
    assert (prototypes, False) in calls  # embedded as the engine opened
    calls.clear()
    # Neither a sure keep nor sure chatter for the rules: the model's vote is asked for.
    engine.write("the sunset looked orange over the harbour")
    engine.write("a tram line runs past the old mill")
    assert calls and not any(in_write for _, in_write in calls)
    engine.close()
