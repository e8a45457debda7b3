"""A hostile assistant against the real HTTP server: two clients with their own tokens, one of them
trying to read, link, forget, purge, reflect and search its way to the other's private memories, guessing
ids, reusing the other's MCP session and sending oversized and malformed input. Every attempt must fail
closed, and nothing of the victim's may change. The last tests check the same rules in the engine
(private memories crowding recall, forget by query, reserved client names)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import apsw
import httpx2
import pytest
from support.mcp import (
    INIT_BODY,
    MCP_HEADERS,
    ServeProcess,
    call,
    cli,
    fails,
    http_client,
    prepare_data_dir,
    token_env,
)

from hindsight_desktop.config import DB_FILE
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import InvalidInput, NotFound
from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.mcp.auth import ClientRegistry, new_token, token_hash
from hindsight_desktop.mcp.identity import (
    CLIENT_KEY,
    Identity,
    NoIdentity,
    http_client_name,
    stdio_client_name,
)
from hindsight_desktop.mcp.schemas import MaintenanceOutput

THERAPY = "My therapist Dr. Okafor (okafor.clinic@example.org) sees me every Tuesday at 5pm about my anxiety."
DOOR = "The door code for my flat is ZX-4471."
OAT = ("Remember that I drink oat milk in my coffee.", "Remember that I drink oat milk with my coffee.")
OFFSITE = "Our team offsite is in Lisbon in October."
VICTIM_SESSION = "victim-session-1"
USE_COLUMNS = frozenset({"access_count", "last_accessed_at", "stability", "reviewed_at"})
OLD_NOTES = 55  # the person's old shared memories: more than one bulk archive may take


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, embedder, model_dir: Path) -> Iterator[SimpleNamespace]:
    """A server with clients `victim` and `mallory`; the victim's private and shared memories, the
    person's old shared notes, and a `stdio` client's private memory written before the server started."""
    data_dir = prepare_data_dir(tmp_path_factory.mktemp("hostile") / "data", model_dir)
    with token_env():
        registry = ClientRegistry.open(data_dir)
        tokens = {name: registry.add(name)[0] for name in ("victim", "mallory")}
        registry.close()
    with MemoryEngine(data_dir, embedder=embedder) as engine:
        ids = {
            "oat": [
                engine.write(text, client="victim", scope="private", gate=False, session_id=VICTIM_SESSION).id
                for text in OAT
            ]
        }
        ids["stdio_private"] = engine.write(
            "My bank PIN hint is the cat's birthday.", client="stdio", scope="private", gate=False
        ).id
        ids["person"] = [
            engine.write(
                f"Old note {i}: the allotment plot {i} needs compost.", gate=False, occurred_at="2025-01-10T09:00:00Z"
            ).id
            for i in range(OLD_NOTES)
        ]
    server = ServeProcess(data_dir)

    async def victim_writes() -> None:
        async with http_client(server.url, tokens["victim"]) as victim:
            for key, text, scope in (
                ("therapy", THERAPY, "private"),
                ("door", DOOR, "private"),
                ("offsite", OFFSITE, "shared"),
            ):
                ids[key] = (
                    await call(
                        victim, "memory_write", content=text, scope=scope, importance="0.9", session_id=VICTIM_SESSION
                    )
                )["id"]

    try:
        anyio.run(victim_writes)
        yield SimpleNamespace(server=server, tokens=tokens, data_dir=data_dir, ids=ids, embedder=embedder)
    finally:
        server.stop()


def private_ids(world: SimpleNamespace) -> list[str]:
    return [world.ids["therapy"], world.ids["door"], *world.ids["oat"], world.ids["stdio_private"]]


def snapshot(world: SimpleNamespace) -> dict[str, Any]:
    """Everything about the victim's (and stdio's) memories, read straight from the file: every column
    of each private memory, the lasting columns of its shared ones, their links and events."""
    db = connect_existing(world.data_dir / DB_FILE, flags=apsw.SQLITE_OPEN_READONLY)
    try:
        # A search's use of a memory (its count and fading clock) is written by the server after the answer
        # (access_stats.py), so one an earlier test made may land during this one: those columns are left
        # out. That another client's search never counts a private memory: test_access_stats.py.
        cursor = db.execute("SELECT * FROM memories WHERE scope = 'private' ORDER BY id")
        names = [column[0] for column in cursor.description]
        private = [
            tuple(None if name in USE_COLUMNS else value for name, value in zip(names, row, strict=True))
            for row in cursor
        ]
        shared = db.execute(
            "SELECT id, content, status, scope, client, pinned, superseded_by FROM memories "
            "WHERE client IN ('victim', 'desktop') AND scope = 'shared' ORDER BY id"
        ).fetchall()
        mine = [row[1] for row in private] + [row[0] for row in shared]
        marks = ",".join("?" * len(mine))
        links = db.execute(
            f"SELECT source_id, target_id, type FROM relations WHERE source_id IN ({marks}) "
            f"OR target_id IN ({marks}) ORDER BY 1, 2, 3",
            (*mine, *mine),
        ).fetchall()
        private_ids_ = [row[1] for row in private]
        events = db.execute(
            f"SELECT id, kind, memory_id, client FROM events WHERE memory_id IN "
            f"({','.join('?' * len(private_ids_))}) ORDER BY id",
            private_ids_,
        ).fetchall()
    finally:
        db.close()
    return {"private": private, "shared": shared, "links": links, "events": events}


def private_links(world: SimpleNamespace, snap: dict[str, Any]) -> list[tuple]:
    hidden = set(private_ids(world))
    return [link for link in snap["links"] if hidden & set(link[:2])]


def leaked(world: SimpleNamespace, *payloads: Any) -> list[str]:
    """Private ids or telling words of private text found anywhere in what a hostile call got back."""
    blob = json.dumps(payloads, default=str, ensure_ascii=False)
    needles = [*private_ids(world), "Okafor", "okafor.clinic", "ZX-4471", "zx-4471", "anxiety", "oat milk", "PIN hint"]
    return [needle for needle in needles if needle in blob]


async def answer(client, tool: str, **arguments: Any) -> tuple[bool, Any, str]:
    """(is_error, structured content, text) of one call, whatever its outcome."""
    result = await client.call_tool(tool, arguments)
    return result.is_error, result.structured_content, result.content[0].text if result.content else ""


def test_hostile_searches_never_reach_private_memories(world):
    before = snapshot(world)
    queries = [
        THERAPY,
        "therapist appointment Tuesday",
        "Okafor",
        "okafor.clinic@example.org",
        DOOR,
        "ZX-4471",
        "door code flat",
        "oat milk coffee",
        "anxiety",
        "bank PIN hint",
        "*",
        '" OR 1=1 --',
        "mem_",
    ]

    async def attack() -> list[Any]:
        seen = []
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            for query in queries:
                for options in (
                    {},
                    {"deep": "true", "limit": 50, "explain": "true"},
                    {"memory_type": ["fact", "note", "event", "plan", "preference"], "deep": True},
                    {"time_range_days": 36500, "limit": "50"},
                ):
                    seen.append(await answer(mallory, "memory_search", query=query, **options))
            # The victim's shared memory is still found: the isolation hides only what is private.
            offsite = await call(mallory, "memory_search", query="team offsite Lisbon")
            assert world.ids["offsite"] in [r["id"] for r in offsite["results"]]
        return seen

    seen = anyio.run(attack)
    assert not any(error for error, _, _ in seen)
    # What came back beyond the echo of the attacker's own query: the results and their sentences.
    assert leaked(world, [(data["results"], text.split("\n")[1:]) for _, data, text in seen]) == []
    assert snapshot(world)["private"] == before["private"]  # not even an access count moved


def test_hostile_links_forgets_and_purges_fail_closed(world):
    before = snapshot(world)
    victim_private = [world.ids["therapy"], world.ids["door"], world.ids["stdio_private"]]
    guesses = [
        *victim_private,
        world.ids["therapy"].upper(),
        f" {world.ids['door']} ",
        "mem_" + "0" * 19,
        "' OR 1=1 --",
        "%",
        "*",
        "mem_%",
        world.ids["therapy"][:-1],
    ]

    async def attack() -> list[tuple[str, str]]:
        refused: list[tuple[str, str]] = []
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            own = (
                await call(
                    mallory, "memory_write", content="Mallory's own note: the printer is on floor 3.", importance=0.9
                )
            )["id"]
            for guess in guesses:
                for tool, args in (
                    ("memory_link", {"source_id": own, "target_id": guess, "relation_type": "related"}),
                    (
                        "memory_link",
                        {"source_id": guess, "target_id": world.ids["offsite"], "relation_type": "contradicts"},
                    ),
                    ("memory_forget", {"memory_id": guess}),
                    ("memory_forget", {"memory_id": guess, "purge": True}),
                    ("memory_forget", {"memory_id": [own, guess], "purge": "true"}),
                ):
                    refused.append((tool, await fails(mallory, tool, **args)))
            # Purge everything at once, or everything matching a condition: refused, nothing deleted.
            for args in (
                {"older_than_days": 0, "purge": True},
                {"below_importance": 1, "purge": "true"},
                {"query": "my", "purge": True},
                {"memory_type": "note", "purge": True},
                {"memory_id": own, "older_than_days": 0, "purge": True},
            ):
                refused.append(("bulk purge", await fails(mallory, "memory_forget", **args)))
            # Visible but not its own: the victim's shared memory and the person's notes are not mallory's to purge.
            for victim_shared in (world.ids["offsite"], world.ids["person"][0]):
                refused.append(
                    ("purge shared", await fails(mallory, "memory_forget", memory_id=victim_shared, purge=True))
                )
            # Archiving by the private text's own words reaches nothing: the private memories are not there.
            for query in ("therapist Okafor anxiety", DOOR, OAT[0]):
                swept = await call(mallory, "memory_forget", query=query)
                assert swept["forgotten"] == [] and swept["matched"] == 0, swept
            # What it wrote itself it may purge.
            purged = await call(mallory, "memory_forget", memory_id=own, purge=True)
            assert purged["forgotten"] == [own] and purged["mode"] == "purge"
        return refused

    refused = anyio.run(attack)
    for tool, message in refused:
        # A private id is refused exactly as a made-up one is: the answer never tells that it exists.
        assert leaked(world, message) == [] or "no memory with id" in message, (tool, message)
        if tool == "bulk purge":
            assert "only on explicit memory ids" in message
        elif tool == "purge shared":
            assert "may delete for good only what it wrote" in message
        else:
            assert "no memory with id" in message or "only what it wrote" in message, (tool, message)
    assert snapshot(world) == before


def test_hostile_writes_do_not_link_to_or_reinforce_private_memories(world):
    before = snapshot(world)

    async def attack() -> list[dict]:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            return [
                await call(mallory, "memory_write", content=text, session_id=session, importance=0.9)
                for text, session in (
                    (THERAPY, None),  # an exact copy: must not be treated as a repeat of the private one
                    ("Remember: send the invoice to okafor.clinic@example.org by Friday.", VICTIM_SESSION),
                    ("Remember: door ZX-4471 is the one by the lift.", VICTIM_SESSION),
                )
            ]

    written = anyio.run(attack)
    assert all(w["duplicate_of"] is None and w["stored"] for w in written)
    assert leaked(world, [w | {"id": None} for w in written]) == []
    after = snapshot(world)
    assert after["private"] == before["private"]
    assert private_links(world, after) == private_links(world, before)


def test_a_bulk_archive_is_capped_reported_and_undoable(world):
    before = snapshot(world)

    async def attack() -> dict:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            return await call(mallory, "memory_forget", older_than_days=300)

    receipt = anyio.run(attack)
    assert receipt["mode"] == "archive" and len(receipt["forgotten"]) == 50
    assert receipt["matched"] >= OLD_NOTES and receipt["left"] == receipt["matched"] - 50
    assert set(receipt["forgotten"]) <= set(world.ids["person"])  # the person's shared notes, never a private one
    during = snapshot(world)
    assert during["private"] == before["private"]
    assert sum(row[2] == "archived" for row in during["shared"]) == 50
    with MemoryEngine(world.data_dir, embedder=world.embedder) as engine:
        restored = engine.undo_forget(receipt["batch"])
    assert sorted(m.id for m in restored) == sorted(receipt["forgotten"])
    assert all(m.status == "active" for m in restored)
    assert snapshot(world)["shared"] == before["shared"]


def test_reflect_returns_counts_only(world):
    async def attack() -> tuple[bool, Any, str]:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            return await answer(mallory, "memory_reflect")

    error, counts, text = anyio.run(attack)
    assert not error
    assert counts["merged"] >= 1  # the victim's two private oat-milk notes were merged: there was something to leak
    assert set(counts) <= set(MaintenanceOutput.model_fields)
    assert all(isinstance(v, int | float) for k, v in counts.items() if k != "status")
    assert leaked(world, counts, text) == []
    assert "mem_" not in json.dumps(counts) + text


def raw_post(url: str, body: object, token: str | None = None, session: str | None = None) -> httpx2.Response:
    headers = dict(MCP_HEADERS)
    if token:
        headers["authorization"] = f"Bearer {token}"
    if session:
        headers["mcp-session-id"] = session
    content = body if isinstance(body, str | bytes) else json.dumps(body)
    return httpx2.post(url, content=content, headers=headers, timeout=30)


def test_reusing_the_victims_session_gives_nothing_of_the_victims(world):
    url = world.server.url
    opened = raw_post(url, INIT_BODY, world.tokens["victim"])
    session = opened.headers.get("mcp-session-id")
    assert opened.status_code == 200 and session
    raw_post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, world.tokens["victim"], session)
    search = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "memory_search", "arguments": {"query": "therapist Okafor", "deep": True}},
    }
    # The victim's session with mallory's token: refused, or served as mallory (never as the victim).
    as_mallory = raw_post(url, search, world.tokens["mallory"], session)
    assert as_mallory.status_code in (200, 400, 403, 404), as_mallory.text
    assert leaked(world, as_mallory.text) == []
    # The session id alone, or with a made-up token, is no credential at all.
    assert raw_post(url, search, None, session).status_code == 401
    assert raw_post(url, search, new_token(), session).status_code == 401
    # The victim's own session still serves the victim.
    mine = raw_post(url, search, world.tokens["victim"], session)
    assert mine.status_code == 200 and world.ids["therapy"] in mine.text


def test_oversized_and_malformed_input_fails_closed(world):
    before = snapshot(world)

    async def attack() -> list[str]:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            errors = [
                await fails(mallory, "memory_write", content="x" * 40_000),
                await fails(mallory, "memory_write", content="ok", metadata={"k": "v" * 20_000}),
                await fails(mallory, "memory_write", content="ok", scope="everyone"),
                await fails(mallory, "memory_write", content="ok", timestamp="nan"),
                await fails(mallory, "memory_write", content="ok", importance="inf"),
                await fails(mallory, "memory_write", content={"$gt": ""}),
                await fails(mallory, "memory_search", query="q" * 10_000),
                await fails(mallory, "memory_search", query="tea", limit=10**9),
                await fails(mallory, "memory_search", query="tea", deep="perhaps"),
                await fails(mallory, "memory_forget", memory_id=[f"mem_{i}" for i in range(5000)]),
                await fails(mallory, "memory_forget", older_than_days=-1),
                await fails(mallory, "memory_forget", below_importance="nan"),
                await fails(mallory, "memory_link", source_id="a" * 5000, target_id="b", relation_type="r"),
                await fails(mallory, "memory_reflect", scope="victim"),
            ]
            assert (await call(mallory, "memory_search", query="printer"))["query"] == "printer"
            return errors

    errors = anyio.run(attack)
    assert all(errors) and leaked(world, errors) == []
    token = world.tokens["mallory"]
    session = raw_post(world.server.url, INIT_BODY, token).headers.get("mcp-session-id")
    raw_post(world.server.url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, token, session)
    for body in (
        "{not json",
        b"\xff\xfe\x00garbage",
        "[]",
        json.dumps({"jsonrpc": "2.0", "id": 1}),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "memory_search"}),
    ):
        reply = raw_post(world.server.url, body, token, session)
        assert reply.status_code in (400, 404, 406, 415, 422) or '"error"' in reply.text, (body, reply.status_code)
        assert leaked(world, reply.text) == []
    assert snapshot(world) == before


def test_a_reserved_client_name_is_refused_everywhere(world):
    # `clients add` refuses the names the product writes under itself.
    for name in ("desktop", "stdio", "Claude-Desktop", "no-auth", "import"):
        refused = cli(world.data_dir, "clients", "add", name, check=False)
        assert refused.returncode != 0 and "reserved" in refused.stderr, refused.stderr
    # A reserved name registered anyway (by an older version, by hand) gets no answer from any tool.
    token = new_token()
    with token_env():
        registry = ClientRegistry.open(world.data_dir)
        registry.table.add("stdio", token_hash(token))
        registry.close()

    async def attack() -> list[tuple[bool, Any, str]]:
        async with http_client(world.server.url, token) as impostor:
            return [
                await answer(impostor, "memory_search", query="bank PIN hint", deep=True),
                await answer(impostor, "memory_write", content="I am the person now."),
                await answer(impostor, "memory_forget", memory_id=world.ids["stdio_private"], purge=True),
            ]

    outcomes = anyio.run(attack)
    assert all(error for error, _, _ in outcomes)
    assert all("reserved" in text for _, _, text in outcomes)
    assert leaked(world, outcomes) == []


# ---- the same rules in the engine -------------------------------------------------------------


def test_reserved_names_and_stdio_identity():
    for name in ("desktop", "DESKTOP", "cli", "stdio", "claude-desktop", "no-auth"):
        with pytest.raises(InvalidInput, match="reserved"):
            http_client_name(name)
        with pytest.raises(NoIdentity, match="reserved"):
            Identity().of(SimpleNamespace(scope={CLIENT_KEY: name}))
    assert http_client_name("claude-code") == "claude-code"
    assert Identity(local="stdio").of(None) == "stdio"  # the stdio process is the local user: trusted
    assert stdio_client_name("claude-desktop") == "claude-desktop"
    with pytest.raises(InvalidInput, match="person's own"):
        stdio_client_name("desktop")  # an assistant's words would read as the person's


def test_other_clients_private_memories_do_not_crowd_out_recall(engine):
    for i in range(120):
        engine.write(f"Quokka quokka quokka note {i}.", client="victim", scope="private", gate=False)
    mine = engine.write(
        "Yesterday at the zoo in Perth I finally photographed a quokka eating leaves.", client="mallory", gate=False
    ).id
    for mode in ("keyword", "vector", "hybrid"):
        hits = engine.search("quokka", client="mallory", mode=mode, limit=5, log=False).hits
        assert [h.memory.id for h in hits] == [mine], mode


def test_a_write_is_judged_only_against_what_its_writer_can_see(engine):
    private = engine.write(THERAPY, client="victim", scope="private", gate=False, session_id="s1").id
    mallory = engine.write(
        "Send the invoice to okafor.clinic@example.org by Friday.", client="mallory", session_id="s1", gate=False
    ).id
    linked = {(link.source_id, link.target_id) for link in engine.links(private)}
    assert (mallory, private) not in linked and (private, mallory) not in linked
    copy = engine.write(THERAPY, client="mallory")
    assert copy.duplicate_of is None and copy.id != private
    assert engine.get(private).access_count == 0


def test_forget_by_query_takes_only_strong_matches(engine):
    gone = engine.write("My ex Jordan's birthday is on 3 March.", gate=False).id
    spared = [
        engine.write(text, gate=False).id
        for text in (
            "My cousin's birthday party is in Lyon next month.",
            "Jordan from work recommended a running shoe.",
            "My former partner was born in early spring.",
            "Birthdays make me anxious.",
        )
    ]
    receipt = engine.forget(query="Jordan birthday", client="mallory", sees_all=False)
    assert receipt.forgotten == [gone]
    assert all(engine.get(mid).status == "active" for mid in spared)


def test_purge_of_what_others_wrote_needs_the_persons_setting(engine):
    theirs = engine.write("Remember: the spare key is under the blue pot.", client="victim", gate=False).id
    with pytest.raises(InvalidInput, match="only what it wrote"):
        engine.forget(ids=theirs, purge=True, client="mallory", sees_all=False)
    engine.settings.assistants_purge_any = True  # the person allows it in Settings
    assert engine.forget(ids=theirs, purge=True, client="mallory", sees_all=False).forgotten == [theirs]
    # A condition still never purges, whatever the setting.
    with pytest.raises(InvalidInput, match="only on explicit memory ids"):
        engine.forget(older_than_days=0, purge=True, client="mallory", sees_all=False)


# ---- a write cannot hide or rewrite what it does not own (issue 17 §2) --------------------------
# The rules, for every path that supersedes (writes, event facts, imports through the pipeline,
# maintenance): a private write supersedes only its own writer's private statements; a shared write
# may supersede shared ones, the person's own CLI facts included (the person's assistants report the
# person's news; the old statement stays as visible history, the event names the writer, and the
# person can restore it); a statement counts as made no later than it was written.


def read_rows(world: SimpleNamespace, sql: str, *args: Any) -> list[tuple]:
    db = connect_existing(world.data_dir / DB_FILE, flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def person_adds(world: SimpleNamespace, *args: str) -> str:
    return json.loads(cli(world.data_dir, "--json", "add", *args).stdout)["id"]


def test_a_private_write_never_supersedes_what_others_see(world):
    berlin = person_adds(world, "I live in Berlin.")
    dentist = person_adds(world, "My dentist appointment got moved to Friday at 3pm.")

    async def attack() -> tuple[list[dict], dict]:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            written = [
                await call(mallory, "memory_write", content=text, scope="private")
                for text in ("I live in Tokyo.", "My dentist appointment is on Monday at 9am.")
            ]
        async with http_client(world.server.url, world.tokens["victim"]) as victim:
            return written, await call(victim, "memory_search", query="Where do I live?", deep=True, limit=20)

    written, seen = anyio.run(attack)
    assert [w["supersedes"] for w in written] == [[], []]
    assert read_rows(
        world,
        "SELECT id, status, superseded_by FROM memories WHERE id IN (?, ?) ORDER BY id",
        *sorted((berlin, dentist)),
    ) == [(i, "active", None) for i in sorted((berlin, dentist))]
    shown = {r["id"]: r["status"] for r in seen["results"]}
    assert shown.get(berlin) == "active" and "Tokyo" not in json.dumps(seen)
    assert read_rows(
        world, "SELECT count(*) FROM events WHERE kind = 'supersede' AND memory_id IN (?, ?)", berlin, dentist
    ) == [(0,)]


def test_a_successor_that_goes_gives_back_what_it_replaced(world):
    siemens = person_adds(world, "I work at Siemens.")

    async def replace_then_forget() -> tuple[dict, dict]:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            acme = await call(mallory, "memory_write", content="I work at Acme.")
            return acme, await call(mallory, "memory_forget", memory_id=acme["id"])

    acme, receipt = anyio.run(replace_then_forget)
    assert acme["supersedes"] == [siemens]  # a shared write may supersede a shared fact (see above)

    def state(mid: str) -> tuple:
        return read_rows(world, "SELECT status, superseded_by FROM memories WHERE id = ?", mid)[0]

    assert state(siemens) == ("active", None)  # the forgotten successor hides nothing
    history = json.loads(cli(world.data_dir, "--json", "show", siemens).stdout)["history"]
    assert history[0]["kind"] == "restore" and history[0]["detail"]["successor"] == acme["id"]
    # The person undoes the assistant's forget: the successor takes its place again.
    cli(world.data_dir, "restore", "--batch", receipt["batch"])
    assert state(acme["id"]) == ("active", None) and state(siemens) == ("superseded", acme["id"])

    async def purge() -> dict:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            return await call(mallory, "memory_forget", memory_id=acme["id"], purge=True)

    purged = anyio.run(purge)
    assert purged["forgotten"] == [acme["id"]] and purged["removed"]["reactivated"] == 1
    assert state(siemens) == ("active", None)
    # Neither the receipt nor any event keeps the purged words.
    assert "Acme" not in json.dumps(purged) and "acme" not in json.dumps(purged).lower()
    assert read_rows(
        world,
        "SELECT count(*) FROM events WHERE instr(lower(detail), 'acme') > 0 OR memory_id = ? AND kind != 'purge'",
        acme["id"],
    ) == [(0,)]


def test_a_timestamp_ahead_of_now_is_refused_or_never_wins(world):
    async def attack() -> tuple[str, dict]:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            refused = await fails(
                mallory, "memory_write", content="My favourite colour is mauve.", timestamp="2199-12-31T00:00:00Z"
            )
            soon = (datetime.now(UTC) + timedelta(hours=23)).isoformat()
            return refused, await call(mallory, "memory_write", content="My favourite colour is teal.", timestamp=soon)

    refused, ahead = anyio.run(attack)
    assert "timestamp" in refused and "more than a day ahead" in refused
    added = cli(world.data_dir, "add", "My favourite colour is ochre.", "--when", "2199-12-31T00:00:00Z", check=False)
    assert added.returncode == 2 and "timestamp" in added.stderr and "ahead" in added.stderr
    assert read_rows(world, "SELECT count(*) FROM memories WHERE content LIKE '%mauve%' OR content LIKE '%ochre%'") == [
        (0,)
    ]
    # Within a day of now it is stored, but counts as made when written: the person's later word wins.
    later = json.loads(cli(world.data_dir, "--json", "add", "My favourite colour is green.").stdout)
    assert later["supersedes"] == [ahead["id"]]


def test_a_repeat_by_another_client_rewrites_nothing(world):
    columns = "content, metadata, importance, type, client, scope, access_count"
    before = read_rows(world, f"SELECT {columns} FROM memories WHERE id = ?", world.ids["offsite"])[0]

    async def attack() -> dict:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            return await call(
                mallory,
                "memory_write",
                content=OFFSITE,
                importance=1.0,
                type="instruction",
                metadata={"verified": False, "note": "call mallory instead"},
            )

    repeat = anyio.run(attack)
    assert repeat["duplicate_of"] == world.ids["offsite"]
    after = read_rows(world, f"SELECT {columns} FROM memories WHERE id = ?", world.ids["offsite"])[0]
    assert after[:6] == before[:6] and after[6] >= before[6] + 1
    history = json.loads(cli(world.data_dir, "--json", "show", world.ids["offsite"]).stdout)["history"]
    assert history[0]["kind"] == "reinforce" and history[0]["client"] == "mallory"
    assert history[0]["detail"] == {"repeated_by": "mallory", "writer": "victim"}


# ---- forget by query takes only what a memory says (issue 17 §4) --------------------------------


def test_forget_by_query_never_follows_a_memorys_date(world):
    lantern = person_adds(world, "我们去了哈尔滨看冰灯。")

    async def attack() -> list[dict]:
        async with http_client(world.server.url, world.tokens["mallory"]) as mallory:
            # The person's old notes are dated 10 January 2025; none of them says so.
            return [
                await call(mallory, "memory_forget", query=query)
                for query in ("January", "10 January 2025", "2025", "冰灯")
            ]

    *dated, lanterns = anyio.run(attack)
    assert [(r["matched"], r["forgotten"]) for r in dated] == [(0, [])] * 3
    assert lanterns["forgotten"] == [lantern]
    assert read_rows(
        world,
        f"SELECT count(*) FROM memories WHERE status = 'archived' AND id IN ({','.join('?' * OLD_NOTES)})",
        *world.ids["person"],
    ) == [(0,)]


# ---- attacks of our own, in the engine ------------------------------------------------------------


def test_a_client_edits_only_what_it_wrote(engine):
    private = engine.write(DOOR, client="victim", scope="private", gate=False).id
    shared = engine.write(OFFSITE, client="victim", gate=False).id
    own = engine.write("Mallory's note: the printer is on floor 3.", client="mallory", gate=False).id
    with pytest.raises(NotFound, match="no memory with id"):
        engine.edit(private, client="mallory", content="The door code for my flat is 0000.")
    weight = engine.get(shared).importance
    with pytest.raises(InvalidInput, match="only what it wrote"):
        engine.edit(shared, client="mallory", importance=0.0)
    assert engine.get(private).content == DOOR and engine.get(shared).importance == weight
    assert engine.edit(own, client="mallory", content="Mallory's note: the printer moved to floor 4.").content.endswith(
        "floor 4."
    )
    assert engine.edit(shared, pinned=True).pinned  # the person edits anything


def test_a_repeat_never_moves_a_memory_across_scopes(engine):
    private = engine.write(THERAPY, client="victim", scope="private", gate=False).id
    again = engine.write(THERAPY, client="victim", scope="shared")  # its own writer repeating it "shared"
    assert again.duplicate_of == private and engine.get(private).scope == "private"
    hits = engine.search("therapist Okafor", client="mallory", deep=True, log=False).hits
    assert all(h.memory.id != private for h in hits)
    shared = engine.write(OFFSITE, client="victim", gate=False).id
    copy = engine.write(OFFSITE, client="mallory", scope="private")  # a private repeat of a shared memory
    assert copy.duplicate_of == shared
    assert (engine.get(shared).scope, engine.get(shared).client) == ("shared", "victim")


def test_a_statement_dated_in_the_future_before_the_check_wins_nothing(engine, clock):
    """A row an older version stored with a far-future time: it counts as made when it was written."""
    old = engine.write("I live in Lima.", client="mallory").id
    engine.store.db.execute("UPDATE memories SET occurred_at = '2199-12-31T00:00:00.000Z' WHERE id = ?", (old,))
    clock.advance(days=100)
    new = engine.write("I live in Paris.")
    assert new.supersedes == [old]
    assert old in engine.forget(older_than_days=50, client="mallory", sees_all=False).forgotten


def test_maintenance_gives_back_a_fact_an_older_version_let_a_private_write_supersede(engine, clock):
    shared = engine.write("I live in Berlin.").id
    clock.advance(days=1)
    private = engine.write("I live in Tokyo.", client="mallory", scope="private").id
    db = engine.store.db  # as an older version left it
    db.execute("UPDATE memories SET status = 'superseded', superseded_by = ? WHERE id = ?", (private, shared))
    db.execute(
        "INSERT OR IGNORE INTO relations (source_id, target_id, type, strength, created_at) VALUES "
        "(?, ?, 'supersedes', 1.0, '2026-11-26T12:00:00.000Z')",
        (private, shared),
    )
    engine.run_maintenance()
    assert engine.get(shared).status == "active" and engine.get(shared).superseded_by is None
    assert engine.get(private).status == "active"
    assert engine.events(shared)[0].detail["why"] == "its successor should not have replaced it"


def test_maintenance_gives_back_a_fact_an_older_version_let_a_future_date_supersede(engine, clock):
    ahead = engine.write("I live in Lima.", client="mallory").id
    db = engine.store.db  # as an older version left it: the far-future statement won over a later one
    db.execute("UPDATE memories SET occurred_at = '2199-12-31T00:00:00.000Z' WHERE id = ?", (ahead,))
    clock.advance(days=1)
    later = engine.write("I live in Paris.").id
    db.execute("UPDATE memories SET status = 'active', superseded_by = NULL WHERE id = ?", (ahead,))
    db.execute("UPDATE memories SET status = 'superseded', superseded_by = ? WHERE id = ?", (ahead, later))
    db.execute(
        "INSERT OR REPLACE INTO relations (source_id, target_id, type, strength, created_at) VALUES "
        "(?, ?, 'supersedes', 1.0, '2026-11-26T12:00:00.000Z')",
        (ahead, later),
    )
    engine.run_maintenance()
    assert engine.get(later).status == "active"
    assert (engine.get(ahead).status, engine.get(ahead).superseded_by) == ("superseded", later)


def test_an_imported_record_dated_ahead_of_now_is_refused(engine, tmp_path):
    engine.write("I live in Quito.", client="mallory")
    bundle_file = tmp_path / "bundle.json"
    engine.export("json", bundle_file)
    bundle = json.loads(bundle_file.read_text())
    bundle["memories"][0].update(id="mem_from_the_future", occurred_at="2199-12-31T00:00:00Z")
    bundle_file.write_text(json.dumps(bundle))
    with pytest.raises(InvalidInput, match=r"mem_from_the_future.*occurred_at 2199-12-31.*more than a day ahead"):
        engine.import_file(bundle_file)
    assert engine.count() == 1
