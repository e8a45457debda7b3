"""memories.hidden_from: other clients' private memories among some rowids, found by index seeks."""

from __future__ import annotations

from hindsight_desktop.core.store import memories

CLIENTS = ["alpha", "beta", "cursor", "zed"]  # the asker sorts first, between and last among the owners


def _write_all(engine) -> dict[str, tuple[str, str]]:
    written = {}
    for n, client in enumerate(CLIENTS):
        for scope in ("private", "shared"):
            m = engine.write(
                f"Note {n} of {client}: the {scope} shelf holds box {n * 7 + len(scope)}",
                client=client,
                scope=scope,
                explicit=True,
            )
            written[m.id] = (client, scope)
    return written


def test_hidden_from_is_every_other_clients_private_memory_and_nothing_else(engine) -> None:
    written = _write_all(engine)
    with engine.store.read() as db:
        rowid_of = {
            mid: int(r)
            for mid, r in db.execute(
                f"SELECT id, rowid FROM memories WHERE id IN ({','.join('?' * len(written))})", list(written)
            )
        }
        asked = sorted(rowid_of.values()) + [10**9]  # a rowid with no memory is never hidden
        for viewer in [*CLIENTS, "nobody", ""]:
            expected = {
                rowid_of[mid] for mid, (client, scope) in written.items() if scope == "private" and client != viewer
            }
            assert memories.hidden_from(db, asked, viewer) == expected
        assert memories.hidden_from(db, [], "alpha") == set()


def test_hidden_from_seeks_each_rowid_rather_than_walking_the_private_index(engine) -> None:
    _write_all(engine)
    with engine.store.read() as db:
        rows = db.execute(
            f"EXPLAIN QUERY PLAN {memories.hidden_sql(3, ['beta', 'cursor'])}", ("beta", "cursor", 1, 2, 3)
        )
        plan = " | ".join(str(row[3]) for row in rows)
        assert "(client=? AND rowid=?)" in plan


def test_with_many_clients_keeping_private_memories_hidden_from_walks_and_finds_the_same(engine, monkeypatch) -> None:
    written = _write_all(engine)
    with engine.store.read() as db:
        rowids = sorted(int(r) for (r,) in db.execute("SELECT rowid FROM memories"))
        seeking = {viewer: memories.hidden_from(db, rowids, viewer) for viewer in CLIENTS}
        monkeypatch.setattr(memories, "SEEK_OWNERS", 1)  # three other owners: more than it seeks for
        assert {viewer: memories.hidden_from(db, rowids, viewer) for viewer in CLIENTS} == seeking
        assert all(len(hidden) == len(CLIENTS) - 1 for hidden in seeking.values()) and len(written) == 8
