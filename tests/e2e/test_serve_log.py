"""The log file as a person meets it: `serve` says its address at once on a pipe, writes its log, and the
log holds events, never what was remembered or searched for."""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import anyio
import pytest
from support.mcp import ServeProcess, call, cli, http_client, prepare_data_dir, stdio_client

# Words that appear nowhere but in what is written and searched for: none may reach a log file.
SECRET_WORDS = ("quokkaberry", "zanzibarite")


def _first_line(stream, timeout: float) -> str:
    """The first line a pipe delivers within `timeout` seconds ('' when none came)."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        return ""


def _all_logs(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.log*")))


def test_serve_prints_its_address_on_a_pipe_and_logs_events_without_content(
    tmp_path: Path, embedder, model_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    logs = tmp_path / "logs"
    monkeypatch.setenv("HINDSIGHT_LOG_DIR", str(logs))
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    server = ServeProcess(data_dir, "--no-auth", "--verbose")
    try:
        # Read while the server still runs: a block-buffered stdout would deliver this only at exit.
        line = _first_line(server.proc.stdout, timeout=90)
        assert line.strip() == f"Hindsight Desktop MCP server: {server.url}"

        async def scenario():
            async with http_client(server.url, None) as client:
                await call(client, "memory_write", content=f"My cat is called {SECRET_WORDS[0]} and likes tuna.")
                return await call(client, "memory_search", query=f"what is {SECRET_WORDS[1]}?")

        anyio.run(scenario)
    finally:
        server.stop()
    text = (logs / "serve.log").read_text(encoding="utf-8")
    assert "serve started" in text and f"serving MCP over HTTP on {server.url}" in text
    assert "tool memory_write answered" in text and "tool memory_search answered" in text  # --verbose
    for word in SECRET_WORDS:
        assert word not in _all_logs(logs)
    assert (logs / "serve.log").stat().st_mode & 0o077 == 0  # the person's own file


def test_cli_commands_log_events_and_errors_not_content(tmp_path: Path, model_dir: Path, monkeypatch):
    logs = tmp_path / "logs"
    monkeypatch.setenv("HINDSIGHT_LOG_DIR", str(logs))
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    cli(data_dir, "--verbose", "add", f"The spare key is under the {SECRET_WORDS[0]} pot.")
    cli(data_dir, "search", SECRET_WORDS[1], "--verbose")
    bad = cli(data_dir, "show", "no-such-id", check=False)
    assert bad.returncode != 0
    text = (logs / "cli.log").read_text(encoding="utf-8")
    assert "add started" in text and "search started" in text and "show failed" in text
    for word in SECRET_WORDS:
        assert word not in _all_logs(logs)


def test_the_stdio_bridge_and_the_shared_server_log_apart_without_content(
    tmp_path: Path, embedder, model_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    logs = tmp_path / "logs"
    monkeypatch.setenv("HINDSIGHT_LOG_DIR", str(logs))
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)

    async def scenario():
        async with stdio_client(data_dir, "--client", "claude-code") as client:
            await call(client, "memory_write", content=f"The wifi password hint is {SECRET_WORDS[0]}.")
            await call(client, "memory_search", query=SECRET_WORDS[1])

    anyio.run(scenario)
    assert "mcp started" in (logs / "mcp.log").read_text(encoding="utf-8")
    assert "mcp started" in (logs / "mcp-server.log").read_text(encoding="utf-8")  # the background server's own
    for word in SECRET_WORDS:
        assert word not in _all_logs(logs)
