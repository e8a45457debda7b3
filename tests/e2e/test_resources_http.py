"""Memory resources over streamable HTTP as over stdio, through the SDK's HTTP client against a real
`serve`: list, read, subscribe, and a notification when another process writes (none for another
client's private memory)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from support.mcp import ServeProcess, call, prepare_data_dir, token_env
from test_resources import Heard, elsewhere, text_of  # the stdio test's helpers

from hindsight_desktop.mcp import runtime
from hindsight_desktop.mcp.auth import ClientRegistry


@pytest.fixture
def served(tmp_path: Path, embedder, model_dir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(tmp_path / "run"))
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    with token_env():
        registry = ClientRegistry.open(data_dir)
        tokens = {name: registry.add(name)[0] for name in ("watcher", "other")}
        registry.close()
    server = ServeProcess(data_dir)
    yield server, tokens, data_dir
    server.stop()


@contextlib.asynccontextmanager
async def http(url: str, token: str, heard: Heard | None = None) -> AsyncIterator[Client]:
    """An SDK client over streamable HTTP that hears the server's notifications."""
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as session,
        Client(streamable_http_client(url, http_client=session), mode="legacy", message_handler=heard) as client,
    ):
        yield client


def test_resources_over_http_follow_writes_from_other_processes(served):
    server, tokens, data_dir = served

    async def scenario():
        heard = Heard()
        async with http(server.url, tokens["watcher"], heard) as watcher, http(server.url, tokens["other"]) as other:
            listed = {str(r.uri) for r in (await watcher.list_resources()).resources}
            assert listed == {"memory://recent", "memory://pinned"}
            mine = await call(watcher, "memory_write", content="I renew my library card every January.")
            one = f"memory://memories/{mine['id']}"
            assert mine["id"] in await text_of(watcher, one)
            for uri in ("memory://recent", "memory://pinned", one):
                await watcher.subscribe_resource(uri)

            await call(other, "memory_write", content="Other's own note: the locker code is 4417.", scope="private")
            await anyio.sleep(2.5)  # several checks of the event log pass
            assert heard.uris == []  # another client's private write announces nothing

            elsewhere(data_dir, "write", "The building's recycling day moved to Thursday.")
            await heard.wait_for("memory://recent")
            assert "recycling day moved to Thursday" in await text_of(watcher, "memory://recent")
            assert "4417" not in await text_of(watcher, "memory://recent")

            elsewhere(data_dir, "pin", mine["id"])
            await heard.wait_for(one)
            await heard.wait_for("memory://pinned")
            assert "library card" in await text_of(watcher, "memory://pinned")

    anyio.run(scenario)
