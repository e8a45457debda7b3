"""Memory as MCP resources through real SDK stdio clients: reads filtered by the caller's visibility, and
change notifications for subscribers when another process writes (never for what they may not see)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from support.mcp import call, env_for, prepare_data_dir

from hindsight_desktop.mcp import runtime

ENGINE_WRITE = textwrap.dedent("""
    import sys
    from hindsight_desktop.core.engine import MemoryEngine
    with MemoryEngine(sys.argv[1]) as engine:
        if sys.argv[2] == "pin":
            engine.edit(sys.argv[3], pinned=True)
        else:
            engine.write(sys.argv[3], client="another-process", explicit=True)
""")


@pytest.fixture
def data_dir(tmp_path: Path, embedder, model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(tmp_path / "run"))
    return prepare_data_dir(tmp_path / "data", model_dir)


def elsewhere(data_dir: Path, *args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", ENGINE_WRITE, str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env_for(data_dir),
    )
    assert proc.returncode == 0, proc.stderr


class Heard:
    """The URIs of the resource-updated notifications a client received."""

    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message) -> None:
        inner = getattr(message, "root", message)
        if getattr(inner, "method", None) == "notifications/resources/updated":
            self.uris.append(str(inner.params.uri))

    async def wait_for(self, uri: str, timeout: float = 30.0) -> None:
        with anyio.fail_after(timeout):
            while uri not in self.uris:
                await anyio.sleep(0.05)


def client(data_dir: Path, name: str, heard: Heard | None = None) -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "hindsight_desktop", "mcp", "--client", name], env=env_for(data_dir)
    )
    return Client(params, mode="legacy", message_handler=heard)


async def text_of(c: Client, uri: str) -> str:
    return (await c.read_resource(uri)).contents[0].text


def test_resources_follow_writes_from_other_processes_within_visibility(data_dir: Path):
    async def scenario():
        heard = Heard()
        async with client(data_dir, "watcher", heard) as watcher, client(data_dir, "other") as other:
            listed = {str(r.uri) for r in (await watcher.list_resources()).resources}
            assert listed == {"memory://recent", "memory://pinned"}
            mine = await call(watcher, "memory_write", content="I renew my library card every January.")
            one = f"memory://memories/{mine['id']}"
            assert mine["id"] in await text_of(watcher, one)
            secret = await call(
                other, "memory_write", content="Other's own note: the locker code is 4417.", scope="private"
            )
            with pytest.raises(Exception, match="no memory"):  # another client's private memory is not there
                await text_of(watcher, f"memory://memories/{secret['id']}")
            assert "4417" not in await text_of(watcher, "memory://recent")

            for uri in ("memory://recent", "memory://pinned", one, f"memory://memories/{secret['id']}"):
                await watcher.subscribe_resource(uri)
            await call(other, "memory_write", content="Other's second note: the gym locker is 12.", scope="private")
            await anyio.sleep(2.5)  # several checks of the event log pass
            assert heard.uris == []  # private writes of another client announce nothing

            elsewhere(data_dir, "write", "The building's recycling day moved to Thursday.")
            await heard.wait_for("memory://recent")
            assert "recycling day moved to Thursday" in await text_of(watcher, "memory://recent")
            assert one not in heard.uris and "memory://pinned" not in heard.uris

            elsewhere(data_dir, "pin", mine["id"])
            await heard.wait_for(one)
            await heard.wait_for("memory://pinned")
            assert "library card" in await text_of(watcher, "memory://pinned")
            assert f"memory://memories/{secret['id']}" not in heard.uris

    anyio.run(scenario)
