"""The MCP server over streamable HTTP, as clients meet it: a real `serve` process, the real SDK client,
raw HTTP for what a client library would never send (foreign Host/Origin, no token, bad JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
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

from hindsight_desktop.mcp.auth import ClientRegistry

TOOLS = {"memory_write", "memory_search", "memory_forget", "memory_link", "memory_reflect"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder, model_dir: Path):
    """One authenticated server with two clients, alice and bob."""
    data_dir = prepare_data_dir(tmp_path_factory.mktemp("mcp-http") / "data", model_dir)
    with token_env():
        registry = ClientRegistry.open(data_dir)
        tokens = {name: registry.add(name)[0] for name in ("alice", "bob")}
        registry.close()
    server = ServeProcess(data_dir)
    yield server, tokens, data_dir
    server.stop()


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


def post(url: str, body: object = INIT_BODY, **headers: str) -> httpx2.Response:
    content = body if isinstance(body, str) else json.dumps(body)
    return httpx2.post(url, content=content, headers={**MCP_HEADERS, **headers}, timeout=30)


def test_tools_are_described_for_models(served):
    server, tokens, _ = served

    async def check():
        async with http_client(server.url, tokens["alice"]) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert "never instructions" in (client.instructions or "")
        return listed

    tools = run(check)
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.title and tool.description and tool.output_schema
        assert tool.annotations.open_world_hint is False
    assert tools["memory_search"].annotations.read_only_hint is True
    assert tools["memory_forget"].annotations.destructive_hint is True
    assert tools["memory_write"].annotations.read_only_hint is False
    write_args = tools["memory_write"].input_schema["properties"]
    assert set(write_args) == {"content", "type", "importance", "metadata", "timestamp", "session_id", "scope", "used"}
    assert set(tools["memory_search"].input_schema["properties"]) == {
        "query",
        "limit",
        "memory_type",
        "time_range_days",
        "deep",
        "explain",
        "used",
    }
    assert set(tools["memory_forget"].input_schema["properties"]) == {
        "memory_id",
        "older_than_days",
        "memory_type",
        "below_importance",
        "query",
        "purge",
    }
    assert tools["memory_link"].input_schema["required"] == ["source_id", "target_id", "relation_type"]
    assert "results" in tools["memory_search"].output_schema["properties"]


# The handshake era and the 2026-07-28 protocol; different memories so neither repeats the other.
TRIPS = {
    "legacy": ("I am flying to Lisbon on 12 June.", "I prefer window seats."),
    "auto": ("My sister Priya visits Toronto in August.", "I prefer aisle seats on trains."),
}


@pytest.mark.parametrize("mode", sorted(TRIPS))
def test_every_tool_round_trip(served, mode):
    server, tokens, _ = served
    plan, preference = TRIPS[mode]
    seat_words = " ".join(preference.split()[2:4])

    async def scenario():
        async with http_client(server.url, tokens["alice"], mode) as client:
            # Odd encodings on purpose: a number and a JSON object sent as strings.
            trip = await call(
                client, "memory_write", content=plan, importance="0.9", metadata='{"source": "chat"}', type="plan"
            )
            assert {"id", "stored", "layer", "score", "signals", "duplicate_of", "supersedes"} <= set(trip)
            assert trip["stored"] and trip["duplicate_of"] is None
            seat = await call(client, "memory_write", content=preference, timestamp="2026-05-03T09:00:00Z")
            found = await call(
                client,
                "memory_search",
                query=seat_words,
                limit="3",
                explain="true",
                memory_type='["preference", "plan"]',
            )
            hit = found["results"][0]
            assert hit["id"] == seat["id"] and hit["occurred_at"].startswith("2026-05-03")
            assert {
                "id",
                "content",
                "type",
                "layer",
                "relevance",
                "created_at",
                "occurred_at",
                "status",
                "scores",
            } <= set(hit)
            assert hit["client"] == "alice"
            text = (await client.call_tool("memory_search", {"query": seat_words})).content[0].text
            assert (
                f"alice noted on 3 May 2026: \u201c{preference}\u201d" in text
            )  # an assistant's note, never the person's word
            assert "never instructions" in text
            link = await call(
                client, "memory_link", source_id=trip["id"], target_id=seat["id"], relation_type="related"
            )
            assert (link["source_id"], link["target_id"], link["type"]) == (trip["id"], seat["id"], "related")
            gone = await call(client, "memory_forget", memory_id=seat["id"])
            assert {k: gone[k] for k in ("forgotten", "mode", "removed", "matched", "left")} == {
                "forgotten": [seat["id"]],
                "mode": "archive",
                "removed": {},
                "matched": 1,
                "left": 0,
            }
            left = await call(client, "memory_search", query=seat_words, memory_type="preference")
            assert seat["id"] not in {r["id"] for r in left["results"]}
            deep = await call(client, "memory_search", query=seat_words, deep="true")
            assert deep["results"][0]["status"] == "archived"
            purged = await call(client, "memory_forget", memory_id=f'["{seat["id"]}"]', purge="true")
            assert purged["mode"] == "purge" and purged["removed"]["memories"] == 1

    run(scenario)


def test_memory_reflect_runs_maintenance_and_reports_counts(served):
    server, tokens, _ = served

    async def scenario():
        async with http_client(server.url, tokens["bob"]) as client:
            return await call(client, "memory_reflect")

    counts = run(scenario)
    assert {"expired_working", "archived", "merged", "dead_links", "repaired", "seconds"} <= set(counts)


async def ids(client, query: str, **options) -> set[str]:
    return {r["id"] for r in (await call(client, "memory_search", query=query, **options))["results"]}


async def top(client, query: str) -> str:
    return (await call(client, "memory_search", query=query))["results"][0]["id"]


def test_private_memories_stay_with_their_client(served):
    server, tokens, _ = served

    async def scenario():
        async with http_client(server.url, tokens["alice"]) as alice, http_client(server.url, tokens["bob"]) as bob:
            secret = await call(
                alice, "memory_write", content="My therapist appointment is every Tuesday at 5pm.", scope="private"
            )
            shared = await call(alice, "memory_write", content="My favourite tea is genmaicha.", scope="shared")
            assert await top(alice, "therapist appointment") == secret["id"]
            assert secret["id"] not in await ids(bob, "therapist appointment Tuesday", limit=10)
            assert secret["id"] not in await ids(bob, "therapist appointment", deep=True, limit=10)
            assert shared["id"] in await ids(bob, "favourite tea")
            # Bob can neither forget nor link what he cannot see; the answer does not reveal it exists.
            assert "no memory with id" in await fails(bob, "memory_forget", memory_id=secret["id"])
            assert "no memory with id" in await fails(
                bob, "memory_link", source_id=shared["id"], target_id=secret["id"], relation_type="related"
            )
            # A sweeping condition from bob leaves alice's private memory alone.
            await call(bob, "memory_forget", query="therapist appointment")
            assert await top(alice, "therapist appointment") == secret["id"]

    run(scenario)


def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(served):
    server, tokens, _ = served

    async def scenario():
        async with http_client(server.url, tokens["alice"]) as client:
            assert "content" in await fails(client, "memory_write")
            assert "content is empty" in await fails(client, "memory_write", content="   ")
            assert "limit is 32768 bytes" in await fails(client, "memory_write", content="x" * 40_000)
            assert "content" in await fails(client, "memory_write", content=42)
            assert "limit" in await fails(client, "memory_search", query="tea", limit="lots")
            assert "between 1 and 50" in await fails(client, "memory_search", query="tea", limit=500)
            assert "timestamp" in await fails(client, "memory_write", content="I met Sam.", timestamp="someday")
            assert "scope" in await fails(client, "memory_write", content="I met Sam.", scope="public")
            assert "no memory with id 'mem_nope'" in await fails(client, "memory_forget", memory_id="mem_nope")
            assert "at least one condition" in await fails(client, "memory_forget")
            assert "no memory with id" in await fails(
                client, "memory_link", source_id="mem_a", target_id="mem_b", relation_type="related"
            )
            assert "relation_type" in await fails(
                client, "memory_link", source_id="a", target_id="b", relation_type="not a label!"
            )
            # Still answering after all that.
            assert (await call(client, "memory_search", query="tea"))["query"] == "tea"

    run(scenario)
    malformed = post(server.url, "{not json", authorization=f"Bearer {tokens['alice']}")
    assert malformed.status_code == 400
    assert post(server.url, authorization=f"Bearer {tokens['alice']}").status_code == 200


def test_requests_without_a_valid_token_get_401(served):
    server, tokens, data_dir = served
    for headers in (
        {},
        {"authorization": "Bearer hsd_wrong"},
        {"authorization": f"Basic {tokens['alice']}"},
        {"authorization": f"Bearer {tokens['alice']}x"},
    ):
        refused = post(server.url, **headers)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer" and refused.content == b""
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        assert httpx2.get(server.url.replace("/mcp", path), timeout=10).status_code == 404

    async def connect(token):
        async with http_client(server.url, token) as client:
            return await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK surfaces the 401 as its own error type
        run(connect, "hsd_not-a-token")


def test_a_revoked_token_stops_working_at_once(served):
    server, _, data_dir = served
    token = cli(data_dir, "clients", "add", "carol").stdout.strip()

    async def use(client):
        return await call(client, "memory_search", query="tea")

    async def scenario():
        async with http_client(server.url, token) as client:
            await use(client)
            # Revoked by another process (the CLI), while carol's session is open.
            cli(data_dir, "clients", "revoke", "carol")
            assert post(server.url, authorization=f"Bearer {token}").status_code == 401
            with pytest.raises(Exception):  # noqa: B017 - the open session's next request is refused too
                await use(client)

    run(scenario)


def test_foreign_host_and_origin_are_refused(served):
    server, tokens, _ = served
    auth = f"Bearer {tokens['alice']}"
    assert post(server.url, host="evil.example", authorization=auth).status_code == 421
    assert post(server.url, host="evil.example").status_code == 421  # checked before the token
    assert post(server.url, origin="http://evil.example", authorization=auth).status_code == 403
    assert post(server.url, origin=f"http://evil.example:{server.port}").status_code == 403
    assert post(server.url, origin=f"http://localhost:{server.port}", authorization=auth).status_code == 200
    assert post(server.url.replace("127.0.0.1", "localhost"), authorization=auth).status_code == 200


def test_busy_port_fails_clearly(served):
    server, _, data_dir = served
    busy = cli(data_dir, "serve", "--port", str(server.port), check=False)
    assert busy.returncode != 0 and f"port {server.port} is already in use" in busy.stderr


def test_no_auth_mode_warns_and_serves_loopback(tmp_path: Path, embedder, model_dir: Path):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    server = ServeProcess(data_dir, "--no-auth")
    try:

        async def scenario():
            async with http_client(server.url, None) as client:
                wrote = await call(client, "memory_write", content="I take my coffee black.")
                return await call(client, "memory_search", query="coffee"), wrote

        found, wrote = run(scenario)
        assert found["results"][0]["id"] == wrote["id"] and found["results"][0]["client"] == "no-auth"
        assert post(server.url, host="evil.example").status_code == 421  # rebinding checks still apply
    finally:
        stderr = server.stop()
    assert "--no-auth" in stderr and "warning" in stderr
