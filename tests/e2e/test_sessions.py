"""HTTP sessions stay bounded and belong to the client that opened them: a real server on a thread,
raw HTTP for what a well-behaved client library never does (abandon hundreds of sessions, reuse
another client's session id, hold every session open)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx2
import pytest
from support.mcp import INIT_BODY, MCP_HEADERS, free_port, token_env

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.mcp.auth import ClientRegistry
from hindsight_desktop.mcp.http_server import HttpServer
from hindsight_desktop.mcp.sessions import SessionLimits

PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
PER_CLIENT = 4


@pytest.fixture
def served(engine: MemoryEngine) -> Iterator[tuple[HttpServer, dict[str, str]]]:
    with token_env():
        registry = ClientRegistry.open(engine.data_dir)
        tokens = {name: registry.add(name)[0] for name in ("alice", "bob")}
    server = HttpServer(
        engine, free_port(), registry, SessionLimits(idle_timeout=600, per_client=PER_CLIENT, total=64)
    ).start()
    yield server, tokens
    server.stop()
    registry.close()


def headers(token: str, session: str | None = None) -> dict[str, str]:
    out = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    if session:
        out["mcp-session-id"] = session
    return out


def open_session(http: httpx2.Client, url: str, token: str) -> str:
    answer = http.post(url, content=json.dumps(INIT_BODY), headers=headers(token))
    assert answer.status_code == 200, answer.text
    return answer.headers["mcp-session-id"]


def ping(http: httpx2.Client, url: str, token: str, session: str) -> httpx2.Response:
    return http.post(url, content=json.dumps(PING), headers=headers(token, session))


def test_abandoned_sessions_stay_bounded_and_the_oldest_are_closed(served):
    server, tokens = served
    with httpx2.Client(timeout=30) as http:
        opened = [open_session(http, server.url, tokens["alice"]) for _ in range(300)]
        assert server.sessions == PER_CLIENT
        # The evicted sessions are gone in the SDK too, not only from our table: their ids answer 404.
        assert ping(http, server.url, tokens["alice"], opened[0]).status_code == 404
        assert ping(http, server.url, tokens["alice"], opened[-PER_CLIENT - 1]).status_code == 404
        assert ping(http, server.url, tokens["alice"], opened[-1]).status_code == 200
        # One client filling its allowance leaves another client's room untouched.
        bobs = open_session(http, server.url, tokens["bob"])
        assert server.sessions == PER_CLIENT + 1
        assert ping(http, server.url, tokens["bob"], bobs).status_code == 200


def test_another_clients_token_cannot_use_a_session(served):
    server, tokens = served
    with httpx2.Client(timeout=30) as http:
        alices = open_session(http, server.url, tokens["alice"])
        stolen = ping(http, server.url, tokens["bob"], alices)
        unknown = ping(http, server.url, tokens["bob"], "0" * 32)
        assert stolen.status_code == unknown.status_code == 404
        assert stolen.text == unknown.text  # nothing tells bob the id exists
        deleted = http.delete(server.url, headers=headers(tokens["bob"], alices))
        assert deleted.status_code == 404
        assert ping(http, server.url, tokens["alice"], alices).status_code == 200  # still alice's, still open


def test_a_client_with_every_session_busy_gets_a_clear_refusal(served):
    server, tokens = served
    with httpx2.Client(timeout=30) as http:
        sessions = [open_session(http, server.url, tokens["alice"]) for _ in range(PER_CLIENT)]
        streams = [
            http.stream("GET", server.url, headers={**headers(tokens["alice"], s), "accept": "text/event-stream"})
            for s in sessions
        ]
        opened = [stream.__enter__() for stream in streams]
        try:
            assert all(r.status_code == 200 for r in opened)
            refused = http.post(server.url, content=json.dumps(INIT_BODY), headers=headers(tokens["alice"]))
            assert refused.status_code == 429
            assert "already has 4 open sessions, all in use" in refused.json()["error"]["message"]
            assert open_session(http, server.url, tokens["bob"])  # bob is not affected
        finally:
            for stream in streams:
                stream.__exit__(None, None, None)


def test_idle_sessions_expire(engine: MemoryEngine):
    with token_env():
        registry = ClientRegistry.open(engine.data_dir)
        token, _ = registry.add("alice")
    server = HttpServer(engine, free_port(), registry, SessionLimits(idle_timeout=0.5, per_client=8)).start()
    try:
        with httpx2.Client(timeout=30) as http:
            first = open_session(http, server.url, token)
            for _ in range(4):
                open_session(http, server.url, token)
            assert server.sessions == 5
            for _ in range(100):  # bounded wait: the timeout is half a second
                if server.sessions == 0:
                    break
                time.sleep(0.1)
            assert server.sessions == 0
            assert ping(http, server.url, token, first).status_code == 404
    finally:
        server.stop()
        registry.close()
