"""The stdio transport, as Claude Desktop starts it: `hindsight-desktop mcp` subprocesses on one data dir."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest
from support.mcp import INIT_BODY, call, env_for, fails, prepare_data_dir, stdio_client

from hindsight_desktop.core.engine import MemoryEngine


@pytest.fixture
def data_dir(tmp_path: Path, embedder, model_dir: Path) -> Path:
    return prepare_data_dir(tmp_path / "data", model_dir)


def test_every_tool_over_stdio(data_dir: Path):
    async def scenario():
        async with stdio_client(data_dir, HINDSIGHT_CLIENT="claude-desktop") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert tools == {"memory_write", "memory_search", "memory_forget", "memory_link", "memory_reflect"}
            met = await call(client, "memory_write", content="I met my new manager Dana on Monday.", type="event")
            pref = await call(client, "memory_write", content="I prefer tea over coffee.", importance="0.7")
            found = await call(client, "memory_search", query="who is my manager?", limit="2")
            assert found["results"][0]["id"] == met["id"] and found["results"][0]["client"] == "claude-desktop"
            await call(client, "memory_link", source_id=met["id"], target_id=pref["id"], relation_type="related")
            assert "merged" in await call(client, "memory_reflect", scope="all")
            assert "content is empty" in await fails(client, "memory_write", content="")
            assert "limit" in await fails(client, "memory_search", query="tea", limit="many")
            forgot = await call(client, "memory_forget", memory_id=pref["id"], purge=True)
            assert forgot["forgotten"] == [pref["id"]]
            left = await call(client, "memory_search", query="tea or coffee", deep=True)
            assert pref["id"] not in {r["id"] for r in left["results"]}

    anyio.run(scenario)


def test_several_stdio_processes_share_one_store(data_dir: Path):
    """Two processes at once, different client names: shared memories cross over, private ones do not."""

    async def scenario():
        async with stdio_client(data_dir, "--client", "desk-a") as a, stdio_client(data_dir, "--client", "desk-b") as b:
            ids = []

            async def write_some(client, who):
                for i in range(5):
                    ids.append(
                        (
                            await call(
                                client,
                                "memory_write",
                                content=f"{who} noted that invoice {i}07 is due on the {i + 10}th.",
                                importance=0.8,
                            )
                        )["id"]
                    )

            async with anyio.create_task_group() as tg:
                tg.start_soon(write_some, a, "Alex")
                tg.start_soon(write_some, b, "Blake")
            private = await call(a, "memory_write", content="My bank PIN hint is the cat's birthday.", scope="private")
            seen_by_b = await call(b, "memory_search", query="bank PIN hint", limit=10)
            assert private["id"] not in {r["id"] for r in seen_by_b["results"]}
            seen_by_a = await call(a, "memory_search", query="bank PIN hint", limit=10)
            assert seen_by_a["results"][0]["id"] == private["id"]
            shared = await call(b, "memory_search", query="invoice due", limit=10)
            assert {r["client"] for r in shared["results"]} == {"desk-a", "desk-b"}
            return ids

    ids = anyio.run(scenario)
    assert len(set(ids)) == 10
    with MemoryEngine(data_dir) as engine:  # every acknowledged write is there
        for memory_id in ids:
            assert engine.get(memory_id).id == memory_id


def test_stdout_carries_only_protocol(data_dir: Path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "hindsight_desktop", "mcp"],
        env=env_for(data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    try:
        send(INIT_BODY)
        first = json.loads(lines.get(timeout=120))  # every stdout line must be JSON-RPC
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        second = json.loads(lines.get(timeout=60))
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "hindsight-desktop"
    assert second["id"] == 2 and len(second["result"]["tools"]) == 5
    assert lines.empty()  # nothing else was printed
