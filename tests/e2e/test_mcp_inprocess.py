"""The server inside this process, as the tray app runs it: HttpServer on a thread, and engine states
(paused memory) that map to tool errors while reads keep working."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client
from support.mcp import call, fails, free_port, http_client, token_env

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.mcp.auth import ClientRegistry
from hindsight_desktop.mcp.http_server import HttpServer
from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.server import build_server


def test_http_server_on_a_thread(engine: MemoryEngine):
    with token_env():
        registry = ClientRegistry.open(engine.data_dir)
        token, _ = registry.add("tray-test")
    server = HttpServer(engine, free_port(), registry).start()
    try:

        async def scenario():
            async with http_client(server.url, token) as client:
                wrote = await call(client, "memory_write", content="My passport expires in March 2031.")
                return wrote, await call(client, "memory_search", query="when does my passport expire?")

        wrote, found = anyio.run(scenario)
        assert found["results"][0]["id"] == wrote["id"]
        assert engine.get(wrote["id"]).client == "tray-test"
    finally:
        server.stop()
        registry.close()


def test_paused_memory_refuses_writes_but_still_recalls(tmp_path: Path, embedder):
    with MemoryEngine(tmp_path / "data", embedder=embedder) as engine:
        engine.write("I am allergic to penicillin.", explicit=True)
        engine.set_paused(True)  # pause lives in the memory file: the next opening finds it
    with MemoryEngine(tmp_path / "data", embedder=embedder) as engine:

        async def scenario():
            async with Client(build_server(engine, Identity(local="in-process"))) as client:
                refused = await fails(client, "memory_write", content="I moved to Porto.")
                found = await call(client, "memory_search", query="allergies")
                return refused, found

        refused, found = anyio.run(scenario)
    assert "memory is paused" in refused
    assert found["results"][0]["content"] == "I am allergic to penicillin."


def test_memory_forget_tells_assistants_its_limits(engine: MemoryEngine):
    from hindsight_desktop.core.maintenance.forget import BULK_ARCHIVE_CAP

    async def scenario():
        async with Client(build_server(engine, Identity(local="in-process"))) as client:
            return {t.name: t for t in (await client.list_tools()).tools}["memory_forget"]

    tool = anyio.run(scenario)
    said = " ".join(tool.description.split())
    assert "works only by memory_id and only on memories you wrote" in said
    assert f"at most {BULK_ARCHIVE_CAP} per call" in said and "call again to continue" in said
    assert "undo a whole forget" in said
    assert tool.annotations.destructive_hint and not tool.annotations.idempotent_hint
