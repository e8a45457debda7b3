"""Helpers for the MCP tests (no tests here): real server processes, real SDK clients, raw HTTP.

Servers run as `python -m hindsight_desktop serve|mcp` subprocesses on a data dir whose `models` folder
links to the session's converted model, so no process converts it again.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

# Tokens go to the documented 0600 fallback file, never into the keyring of whoever runs the tests.
# A shared server that `mcp` starts exits soon after its test's last client (no process outlives a run).
TEST_ENV = {
    "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    "HINDSIGHT_TOKEN_STORE": "file",
    "HINDSIGHT_IDLE_EXIT": "10",
}

INIT_BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1"}},
}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def prepare_data_dir(path: Path, model_dir: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    models = path / "models"
    if not models.exists():
        models.symlink_to(model_dir, target_is_directory=True)
    return path


def env_for(data_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, **TEST_ENV, "HINDSIGHT_DATA_DIR": str(data_dir), **extra}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cli(data_dir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", *args],
        env=env_for(data_dir),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


class ServeProcess:
    """`hindsight-desktop serve` in a subprocess, stopped on exit."""

    def __init__(self, data_dir: Path, *flags: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hindsight_desktop", "serve", "--port", str(self.port), *flags],
            env=env_for(data_dir),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._wait()

    def _wait(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited early: {self.proc.stderr.read()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("serve did not start listening in time")

    def stop(self) -> str:
        """Stop the server; returns what it wrote on stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.stderr.read() if self.proc.stderr else ""


@contextlib.asynccontextmanager
async def http_client(url: str, token: str | None, mode: str = "legacy") -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def stdio_client(data_dir: Path, *args: str, **env: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "hindsight_desktop", "mcp", *args], env=env_for(data_dir, **env)
    )
    return Client(params, mode="legacy")


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """Call a tool that must succeed; returns its structured content."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    assert result.content and result.content[0].text  # the natural-sentence rendering is always there
    return result.structured_content


async def fails(client: Client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail as a tool error; returns the error text."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text


@contextlib.contextmanager
def token_env() -> Iterator[None]:
    """The test process itself uses the token file too (for registries opened in-process)."""
    saved = {k: os.environ.get(k) for k in TEST_ENV}
    os.environ.update(TEST_ENV)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
