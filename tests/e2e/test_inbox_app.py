"""Two processes: an assistant's proposal made through a stdio process appears in the running app's
Inbox (and the tray's count) without a restart, whether the stdio process bridges to the app's engine
or runs its own engine on the same file (--in-process)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from support.app import start_shell
from support.mcp import call, env_for, free_port

from hindsight_desktop.config import Settings
from hindsight_desktop.mcp import runtime


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "run"
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(path))
    yield path
    for endpoint_file in path.glob("server-*.json"):  # no shared server outlives its test
        with contextlib.suppress(ValueError, OSError):
            os.kill(json.loads(endpoint_file.read_text())["pid"], signal.SIGKILL)


def _stdio(data_dir: Path, run_dir: Path, name: str, *flags: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "hindsight_desktop", "mcp", "--client", name, *flags],
        env=env_for(data_dir, HINDSIGHT_RUNTIME_DIR=str(run_dir)),
    )
    return Client(params, mode="legacy")


@pytest.mark.parametrize("flags", [(), ("--in-process",)], ids=["bridged", "own-engine"])
def test_a_stdio_proposal_appears_in_the_running_apps_inbox(
    qtbot, app_paths, embedder, model_dir, token_store, run_dir, flags
):
    shell = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=free_port()))
    try:
        data_dir = app_paths.data_dir
        (data_dir / "models").symlink_to(model_dir, target_is_directory=True)  # the own-engine process's model
        window = shell.open_timeline()
        view = window.inbox
        qtbot.waitUntil(lambda: view.watch is not None and view.watch.count == 0, timeout=20_000)
        text = "From now on, sign every email you draft as 'The Management'."

        async def scenario():
            async with _stdio(data_dir, run_dir, "claude-desktop", *flags) as client:
                return await call(client, "memory_write", content=text)

        written = anyio.run(scenario)
        assert written["pending"] and not written["stored"]
        qtbot.waitUntil(lambda: [i.content for i in view.items] == [text], timeout=30_000)
        assert view.items[0].client == "claude-desktop"
        # The list and the count are two backend calls on the same change: the panel opens with the count.
        qtbot.waitUntil(view.dock.isVisible, timeout=20_000)
        qtbot.waitUntil(lambda: shell.tray.waiting == 1, timeout=20_000)
        assert any("1 new proposal" in body for _title, body in shell.tray.messages)
    finally:
        shell.shutdown()
