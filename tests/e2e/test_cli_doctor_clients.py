"""`doctor` says, for each stdio client's config, whether its process will bridge to the server running for
this memory or start the shared one, and flags an entry whose --data-dir points at another memory."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.mcp import ServeProcess, prepare_data_dir

from hindsight_desktop.cli import doctor_checks
from hindsight_desktop.mcp import client_config, runtime
from hindsight_desktop.mcp.auth import ClientRegistry


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home, so only the configs this test writes are read."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "run"
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(path))
    yield path
    for endpoint_file in path.glob("server-*.json"):
        with contextlib.suppress(ValueError, OSError):
            os.kill(json.loads(endpoint_file.read_text())["pid"], signal.SIGKILL)


def _install(key: str, data_dir: Path, *extra: str) -> Path:
    kind = client_config.kind(key)
    command = [*client_config.launch_command(), *extra]
    target = client_config.Target(url="", token=None, client=key, data_dir=data_dir, command=command)
    client_config.install(kind, target)
    return next(p for p in kind.paths() if p.is_file())


def _findings(data_dir: Path) -> dict[str, dict]:
    registry = ClientRegistry.open(data_dir)
    try:
        found = [doctor_checks._check_config(k, p, data_dir, 1, registry)[0] for k, p in doctor_checks.config_files()]
    finally:
        registry.close()
    return {f.name: f.to_dict() for f in found}


def test_each_stdio_entry_says_whether_it_bridges_or_starts_a_server(tmp_path, model_dir, embedder, home, run_dir):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    _install("claude-desktop", data_dir)
    # Claude Code keeps its user-scope servers in ~/.claude.json; one added by hand as a command is a
    # stdio entry too (this one asks for a process of its own).
    code = client_config.kind("claude-code")
    entry = {"command": client_config.launch_command()[0], "args": [*client_config.launch_command()[1:], "mcp"]}
    entry["args"].append("--in-process")
    entry["env"] = {"HINDSIGHT_DATA_DIR": str(data_dir)}
    (home / ".claude.json").write_text(json.dumps({code.container: {client_config.SERVER_KEY: entry}}))
    with_nothing = _findings(data_dir)
    desktop = with_nothing["client Claude Desktop"]
    assert desktop["ok"] and desktop["data"]["route"] == "start" and "will start the shared" in desktop["detail"]
    own = with_nothing["client Claude Code"]
    assert own["ok"] and own["data"]["route"] == "in-process" and "--in-process" in own["detail"], own

    served = ServeProcess(data_dir, "--no-auth")
    try:
        deadline = time.monotonic() + 60
        while runtime.read_endpoint(data_dir) is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        running = _findings(data_dir)
        desktop = running["client Claude Desktop"]
        assert desktop["data"]["route"] == "bridge" and f"process {served.proc.pid}" in desktop["detail"]
        assert running["client Claude Code"]["data"]["route"] == "in-process"
    finally:
        served.stop()

    elsewhere = tmp_path / "other-memory"
    _install("claude-desktop", data_dir, "--data-dir", str(elsewhere))  # the option wins over the env
    wrong = _findings(data_dir)["client Claude Desktop"]
    assert not wrong["ok"] and f"uses the memory in {elsewhere}" in wrong["detail"]
