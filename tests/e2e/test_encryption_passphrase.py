"""Passphrase mode end to end, with a real KDF (the test cost), real subprocesses and the real SDK client:
the CLI's `key init --passphrase` and `key unlock`, a command and a stdio `mcp` process that cannot ask
(told to unlock Hindsight Desktop first), and the app that asks, after which stdio clients bridge to it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from support.app import FakeIdle
from support.mcp import call, env_for, fails, free_port, prepare_data_dir, stdio_client

from hindsight_desktop.app.shell import Shell
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.config import DB_FILE, Settings
from hindsight_desktop.core.keys import files, passphrase

PASSPHRASE = "a boat moored at pier nine"


@pytest.fixture
def locked(tmp_path, model_dir, monkeypatch, token_store):
    """A data folder made by `key init --passphrase`, and the environment its processes run in."""
    monkeypatch.setenv(passphrase.TEST_KDF_ENV, "fast")
    monkeypatch.setenv("HINDSIGHT_RUNTIME_DIR", str(tmp_path / "run"))  # this test's servers only
    passphrase._unlocked.clear()
    data = prepare_data_dir(tmp_path / "data", model_dir)
    env = {passphrase.TEST_KDF_ENV: "fast", "HINDSIGHT_RUNTIME_DIR": str(tmp_path / "run")}
    made = _cli(data, env, "--json", "key", "init", "--passphrase", stdin=PASSPHRASE + "\n")
    assert made.returncode == 0, made.stderr
    assert '"key_mode": "passphrase"' in made.stdout and "recovery key" in made.stderr
    yield data, env
    passphrase._unlocked.clear()


def _cli(data: Path, env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", *args],
        env=env_for(data, **env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_unlock_checks_the_passphrase_and_a_command_without_a_terminal_is_told_what_to_do(locked):
    data, env = locked
    wrong = _cli(data, env, "key", "unlock", stdin="not it at all\n")
    assert wrong.returncode == 6 and "that passphrase is wrong" in wrong.stderr
    right = _cli(data, env, "--json", "key", "unlock", stdin=PASSPHRASE + "\n")
    assert right.returncode == 0 and '"unlocked": true' in right.stdout, right.stderr
    refused = _cli(data, env, "stats")
    assert refused.returncode == 6 and "unlock Hindsight Desktop first" in refused.stderr, refused.stderr
    assert files.state(data / DB_FILE) is files.State.ENCRYPTED


def test_a_stdio_client_is_told_to_unlock_then_bridges_to_the_unlocked_app(qtbot, locked, embedder):
    data, env = locked
    before = (data / DB_FILE).read_bytes()

    async def refused() -> str:
        with anyio.fail_after(120):
            async with stdio_client(data, **env, HINDSIGHT_IDLE_EXIT="2") as client:
                return await fails(client, "memory_search", query="where is the boat?")

    text = anyio.run(refused)
    assert "locked with a passphrase" in text and "unlock Hindsight Desktop first" in text, text
    assert (data / DB_FILE).read_bytes() == before  # nothing made anew

    paths = AppPaths(data.parent / "config", data)
    shell = Shell(
        paths,
        Settings(http_port=free_port()),
        embedder=embedder,
        serve=True,
        tray=True,
        idle_source=FakeIdle(),
        scheduler_interval_ms=3_600_000,
        activity_interval_ms=3_600_000,
    )
    shell.start()
    try:
        qtbot.waitUntil(lambda: shell.key_dialog is not None, timeout=60_000)
        dialog = shell.key_dialog
        assert dialog.asks_passphrase and "passphrase" in dialog.problem.text()
        dialog.field.setText("not it at all")
        dialog.unlock_button.click()
        assert "that passphrase is wrong" in dialog.error.text() and dialog.isVisible()
        dialog.field.setText(PASSPHRASE)
        dialog.unlock_button.click()
        qtbot.waitUntil(lambda: shell.backend.is_ready, timeout=60_000)
        assert shell.backend.bridges is not None  # stdio clients now reach this engine

        async def bridged() -> list[str]:
            with anyio.fail_after(120):
                async with stdio_client(data, **env) as client:
                    await call(client, "memory_write", content="Remember: the boat is moored at pier nine.")
                    found = await call(client, "memory_search", query="where is the boat moored?", limit="3")
                    return [r["content"] for r in found["results"]]

        contents = await_in_qt(qtbot, bridged)
        assert any("pier nine" in c for c in contents), contents
        hits = shell.backend.engine.search("where is the boat moored?", limit=3).hits
        assert hits and "pier nine" in hits[0].memory.content
    finally:
        shell.shutdown()


def await_in_qt(qtbot, scenario):
    """Run an async client scenario on a thread while the Qt loop serves the app's signals."""
    import threading

    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = anyio.run(scenario)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=150_000)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]


def test_a_command_on_a_terminal_asks_for_the_passphrase_unseen(locked):
    import os
    import pty
    import select
    import time

    data, env = locked
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hindsight_desktop", "--json", "stats"],
        env=env_for(data, **env),
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    seen, answered, deadline = b"", 0, time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
            if seen.count(b"Passphrase of the memory file:") > answered:
                os.write(master, (("wrong guess here" if answered == 0 else PASSPHRASE) + "\n").encode())
                answered += 1
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(master)
    assert proc.returncode == 0, seen.decode(errors="replace")
    assert answered == 2 and b"That passphrase is wrong; try again." in seen
    assert PASSPHRASE.encode() not in seen  # typed unseen (no echo)
    assert b'"memories": 0' in out
