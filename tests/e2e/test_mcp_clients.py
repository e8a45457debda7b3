"""`hindsight-desktop clients …`: tokens (hash-only in the database, 0600 fallback file), snippets, installs."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from support.mcp import TEST_ENV

from hindsight_desktop import cli
from hindsight_desktop.mcp.auth import ClientRegistry


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and data dir; tokens go to the fallback file."""
    for key, value in TEST_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HINDSIGHT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HINDSIGHT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no real `claude` found by accident
    (tmp_path / "home").mkdir()
    (tmp_path / "bin").mkdir()
    return tmp_path / "home"


def run(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_rotate_revoke(home: Path, tmp_path: Path, capsys):
    code, token, err = run(capsys, "clients", "add", "cursor")
    token = token.strip()
    assert code == 0 and token.startswith("hsd_") and len(token) > 40
    assert "run: hindsight-desktop clients config cursor\n" in err  # the command itself, ready to paste
    # the fallback is announced, with why (the test env chooses the file)
    assert "HINDSIGHT_TOKEN_STORE=file" in err and "readable only by you" in err
    token_file = tmp_path / "data" / "client-tokens.json"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    database = (tmp_path / "data" / "memory.sqlite3").read_bytes()
    wal = tmp_path / "data" / "memory.sqlite3-wal"
    assert token.encode() not in database + (wal.read_bytes() if wal.exists() else b"")  # only the hash

    assert run(capsys, "clients", "add", "cursor")[0] == 2  # already there: refuse, keep the old token
    registry = ClientRegistry.open(tmp_path / "data")
    assert registry.verify(token) == "cursor"
    code, rotated, _ = run(capsys, "clients", "add", "cursor", "--rotate")
    assert code == 0 and registry.verify(rotated.strip()) == "cursor" and registry.verify(token) is None

    run(capsys, "clients", "add", "vscode")
    code, listed, _ = run(capsys, "--json", "clients", "list")
    assert [(c["name"], c["active"]) for c in json.loads(listed)] == [("cursor", True), ("vscode", True)]
    assert run(capsys, "clients", "revoke", "cursor")[0] == 0
    assert registry.verify(rotated.strip()) is None
    assert "cursor" not in json.loads(token_file.read_text())
    assert run(capsys, "clients", "revoke", "cursor")[0] == 3  # nothing active to revoke
    assert "revoked" in run(capsys, "clients", "list")[1]
    assert run(capsys, "clients", "add", "bad name!")[0] == 2
    err = run(capsys, "clients", "add", "laptop")[2]  # not a kind: the command says which kinds it takes
    assert "clients config CLIENT --name laptop (CLIENT: one of claude-code, claude-desktop, cursor" in err


def test_config_prints_exact_snippets(home: Path, tmp_path: Path, capsys):
    code, token, _ = run(capsys, "clients", "add", "cursor")
    token = token.strip()
    url = "http://127.0.0.1:9123/mcp"

    cursor = json.loads(run(capsys, "clients", "config", "cursor", "--port", "9123")[1])
    assert cursor == {"mcpServers": {"hindsight": {"url": url, "headers": {"Authorization": f"Bearer {token}"}}}}
    windsurf = json.loads(run(capsys, "clients", "config", "windsurf", "--name", "cursor", "--port", "9123")[1])
    assert windsurf["mcpServers"]["hindsight"]["serverUrl"] == url

    code, command, note = run(capsys, "clients", "config", "claude-code", "--name", "cursor", "--port", "9123")
    assert command.strip() == (
        f"claude mcp add --transport http --header 'Authorization: Bearer {token}' --scope user hindsight {url}"
    )
    assert ".mcp.json" in note

    code, vscode, note = run(capsys, "clients", "config", "vscode", "--port", "9123")  # creates client vscode
    entry = json.loads(vscode)
    assert entry["servers"]["hindsight"]["type"] == "http"
    assert entry["servers"]["hindsight"]["headers"]["Authorization"] == "Bearer ${input:hindsight-token}"
    assert entry["inputs"][0]["password"] is True
    assert "created client 'vscode'" in note and "paste: hsd_" in note

    desktop = json.loads(run(capsys, "clients", "config", "claude-desktop")[1])["mcpServers"]["hindsight"]
    assert desktop["args"][-1] == "mcp" and Path(desktop["command"]).is_absolute()
    # The settings folder is named too: the launched process must read the app's settings, not its own default.
    assert desktop["env"] == {
        "HINDSIGHT_DATA_DIR": str((tmp_path / "data").resolve()),
        "HINDSIGHT_CLIENT": "claude-desktop",
        "HINDSIGHT_CONFIG_DIR": str((tmp_path / "config").resolve()),
    }
    notes = run(capsys, "clients", "config", "claude-desktop")[2]
    assert "%APPDATA%\\Claude" in notes and "LocalCache" in notes  # both Windows locations


def test_install_merges_and_keeps_a_backup(home: Path, capsys):
    config = home / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"other": {"command": "other-server"}}, "keep": 1}))
    code, out, _ = run(capsys, "clients", "install", "cursor")
    assert code == 0 and str(config) in out
    merged = json.loads(config.read_text())
    assert merged["keep"] == 1 and merged["mcpServers"]["other"] == {"command": "other-server"}
    assert merged["mcpServers"]["hindsight"]["headers"]["Authorization"].startswith("Bearer hsd_")
    backups = list(config.parent.glob("mcp.json.backup-*"))
    assert len(backups) == 1 and "hindsight" not in backups[0].read_text()

    created = home / ".codeium" / "windsurf" / "mcp_config.json"
    assert run(capsys, "clients", "install", "windsurf")[0] == 0
    assert stat.S_IMODE(created.stat().st_mode) == 0o600  # a new file holding a token is private
    assert run(capsys, "clients", "install", "claude-desktop")[0] == 0
    desktop = json.loads((home / ".config" / "Claude" / "claude_desktop_config.json").read_text())
    assert desktop["mcpServers"]["hindsight"]["args"][-1] == "mcp"
    run(capsys, "clients", "install", "vscode")
    run(capsys, "clients", "install", "vscode")  # again: one input, not two
    vscode = json.loads((home / ".config" / "Code" / "User" / "mcp.json").read_text())
    assert [i["id"] for i in vscode["inputs"]] == ["hindsight-token"]

    broken = home / ".lmstudio" / "mcp.json"
    broken.parent.mkdir()
    broken.write_text("{ // comments are not JSON\n}")
    code, _, err = run(capsys, "clients", "install", "lmstudio")
    assert code != 0 and "not plain JSON" in err and broken.read_text().startswith("{ //")


def test_claude_code_install_uses_its_cli(home: Path, tmp_path: Path, capsys):
    code, _, err = run(capsys, "clients", "install", "claude-code")
    assert code != 0 and "claude command is not on PATH" in err
    log = tmp_path / "claude-args"
    fake = tmp_path / "bin" / "claude"  # stands in for the real CLI: records how it was called
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    fake.chmod(0o755)
    assert run(capsys, "clients", "install", "claude-code")[0] == 0
    calls = log.read_text().splitlines()
    assert calls[0] == "mcp remove --scope user hindsight"
    assert calls[1].startswith("mcp add --transport http --header Authorization: Bearer hsd_")
    assert calls[1].endswith("--scope user hindsight http://127.0.0.1:8765/mcp")


def test_config_when_the_token_was_lost(home: Path, tmp_path: Path, capsys):
    run(capsys, "clients", "add", "cursor")
    os.remove(tmp_path / "data" / "client-tokens.json")
    code, _, err = run(capsys, "clients", "config", "cursor")
    assert code == 2 and "clients add cursor --rotate" in err


def test_the_registry_refuses_reserved_names(home: Path, tmp_path: Path):
    from hindsight_desktop.core.errors import InvalidInput

    registry = ClientRegistry.open(tmp_path / "data")
    try:
        for name in ("desktop", "STDIO", "claude-desktop", "no-auth", " cli "):
            with pytest.raises(InvalidInput, match="is reserved"):
                registry.add(name)
            with pytest.raises(InvalidInput, match="is reserved"):
                registry.ensure_token(name)  # the app's set-up path mints through add too
        assert registry.list() == [] and not (tmp_path / "data" / "client-tokens.json").exists()
        assert registry.add("claude-code")[0].startswith("hsd_")  # an HTTP client's kind name is fine
    finally:
        registry.close()
