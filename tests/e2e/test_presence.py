"""Presence: the in-process HTTP server knows which clients are talking to it, searches and tool
listings included (the event log only sees writes), through the real server and the real SDK client."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import anyio
import httpx2
import pytest
from support.clock import FakeClock
from support.mcp import INIT_BODY, MCP_HEADERS, call, free_port, http_client, token_env

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.mcp.auth import ClientRegistry
from hindsight_desktop.mcp.http_server import HttpServer
from hindsight_desktop.mcp.presence import Presence


def eventually(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture
def served(engine: MemoryEngine) -> Iterator[tuple[HttpServer, dict[str, str]]]:
    with token_env():
        registry = ClientRegistry.open(engine.data_dir)
        tokens = {name: registry.add(name)[0] for name in ("cursor", "claude-code")}
    server = HttpServer(engine, free_port(), registry).start()
    yield server, tokens
    server.stop()
    registry.close()


def test_a_client_that_only_lists_tools_is_connected_until_it_closes(served):
    server, tokens = served
    assert server.presence.snapshot() == []

    async def scenario():
        async with http_client(server.url, tokens["cursor"]) as client:
            listed = await client.list_tools()
            return {t.name for t in listed.tools}, server.presence.connected()

    tools, during = anyio.run(scenario)
    assert "memory_search" in tools
    assert during == ["cursor"]
    seen = server.presence.snapshot()
    assert [s.name for s in seen] == ["cursor"]
    assert seen[0].requests >= 3  # initialize, initialized, tools/list (and the session's end)
    # The SDK client ends its session (DELETE) on close; the server notices its stream has gone soon after.
    assert eventually(lambda: server.presence.connected() == []), server.presence.snapshot()
    assert server.presence.snapshot()[0].open_streams == 0


def test_two_clients_each_by_their_own_token(served, engine: MemoryEngine):
    server, tokens = served

    async def scenario():
        async with (
            http_client(server.url, tokens["cursor"]) as cursor,
            http_client(server.url, tokens["claude-code"]) as claude,
        ):
            await call(claude, "memory_search", query="anything about passports?")
            await cursor.list_tools()
            return server.presence.connected()

    assert anyio.run(scenario) == ["claude-code", "cursor"]
    assert engine.events() == []  # nothing was written: the event log alone would have seen no one


def test_a_wrong_token_is_refused_and_not_recorded(served):
    server, _ = served
    refused = httpx2.post(
        server.url,
        content=json.dumps(INIT_BODY),
        timeout=30,
        headers={**MCP_HEADERS, "authorization": "Bearer hsd_not-a-real-token"},
    )
    assert refused.status_code == 401
    assert server.presence.snapshot() == [] and server.presence.total_requests == 0


def visit(presence: Presence, method: str, status: int = 200) -> None:
    """One request, answered with `status`, as the guard reports it."""
    with presence.request("cursor", method) as answered:
        answered(status)


def test_recent_requests_and_open_streams_count_as_connected():
    clock = FakeClock()
    presence = Presence(clock)
    visit(presence, "POST")
    assert presence.connected() == ["cursor"]
    clock.advance(minutes=6)
    assert presence.connected() == []  # quiet for longer than the window
    assert presence.connected(recent=timedelta(minutes=10)) == ["cursor"]
    with presence.request("cursor", "GET") as answered:  # an event stream held open
        answered(200)
        clock.advance(hours=2)
        assert presence.connected() == ["cursor"]
        assert presence.snapshot()[0].open_streams == 1
        visit(presence, "DELETE")  # the session ends while its stream is still closing
    assert presence.snapshot()[0].open_streams == 0
    assert presence.connected() == []
    visit(presence, "GET", 404)  # a late stream request for the ended session is refused
    assert presence.connected() == []
    visit(presence, "POST")  # the client comes back
    assert presence.connected() == ["cursor"]
    assert presence.total_requests == 5
