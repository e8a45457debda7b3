"""After a port change, the client configs the app installed point at the new address: real files in a
temporary home, installed by the app's own installer or written as a person might have edited them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hindsight_desktop.mcp import client_config
from hindsight_desktop.mcp.client_config import KINDS, Target
from hindsight_desktop.mcp.client_ports import (
    OUR_ADDRESS,
    address,
    claude_code_config,
    config_files,
    repoint,
    repoint_words,
    url_key,
)

OLD, NEW = address(8765), address(8799)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr("sys.platform", "linux")
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def install(key: str, url: str = OLD) -> Path:
    target = Target(url=url, token="tok-secret", client=key, data_dir=Path("/data"), command=["hindsight-desktop"])
    (written,) = client_config.install(KINDS[key], target)
    return written.path


def test_the_address_pattern_is_the_servers_address():
    assert OUR_ADDRESS.fullmatch(address(1)) and OUR_ADDRESS.fullmatch(address(65535))
    assert {url_key(KINDS[k]) for k in ("cursor", "vscode", "zed", "lmstudio", "claude-code")} == {"url"}
    assert url_key(KINDS["windsurf"]) == "serverUrl"


def test_every_installed_http_client_is_pointed_at_the_new_port_and_nothing_else_changes(home: Path):
    paths = {key: install(key) for key in ("cursor", "vscode", "windsurf", "zed", "lmstudio")}
    before = {key: path.read_text(encoding="utf-8") for key, path in paths.items()}
    modes = {key: path.stat().st_mode for key, path in paths.items()}
    outcome = repoint(NEW)
    assert sorted(c.path for c in outcome.updated) == sorted(paths.values()) and not outcome.left_alone
    for key, path in paths.items():
        text = path.read_text(encoding="utf-8")
        assert text == before[key].replace(OLD, NEW)  # byte for byte but the address
        assert path.stat().st_mode == modes[key]
        assert json.loads(text)[KINDS[key].container]["hindsight"][url_key(KINDS[key])] == NEW
    assert not [p for p in home.rglob(".*-*") if p.is_file() and p.name.startswith(".mcp")]  # no temporary left
    assert repoint(NEW).updated == []  # a second run finds nothing to do


def test_a_file_formatted_by_hand_keeps_its_formatting_and_other_servers(home: Path):
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    text = (
        '{"mcpServers":{"other":{"url":"http://127.0.0.1:9000/mcp"},\n'
        f'    "hindsight":  {{"url": "{OLD}", "headers": {{"Authorization": "Bearer t"}}}}}},\n'
        '  "theme":"dark"}'
    )
    path.write_text(text, encoding="utf-8")
    outcome = repoint(NEW)
    assert [c.label for c in outcome.updated] == ["Cursor"]
    assert path.read_text(encoding="utf-8") == text.replace(OLD, NEW)
    assert "http://127.0.0.1:9000/mcp" in path.read_text(encoding="utf-8")  # the other server kept its address


def test_configs_edited_in_ways_we_do_not_recognise_are_left_alone_and_named(home: Path):
    cursor = home / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text(json.dumps({"mcpServers": {"hindsight": {"url": "http://localhost:8765/mcp"}}}))
    vscode = home / ".config" / "Code" / "User" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    vscode.write_text(f'{{\n  // mine\n  "servers": {{"hindsight": {{"type": "http", "url": "{OLD}"}}}}\n}}\n')
    windsurf = home / ".codeium" / "windsurf" / "mcp_config.json"
    windsurf.parent.mkdir(parents=True)
    # The same address also under another name: changing it there is not ours to do.
    windsurf.write_text(json.dumps({"mcpServers": {"hindsight": {"serverUrl": OLD}, "copy": {"serverUrl": OLD}}}))
    lmstudio = home / ".lmstudio" / "mcp.json"
    lmstudio.parent.mkdir()
    lmstudio.write_text(json.dumps({"mcpServers": {"someone-else": {"url": OLD}}}))  # not installed by us
    before = {p: p.read_bytes() for p in (cursor, vscode, windsurf, lmstudio)}

    outcome = repoint(NEW)
    assert outcome.updated == []
    why = {c.label: c.why for c in outcome.left_alone}
    assert set(why) == {"Cursor", "VS Code", "Windsurf"}
    assert "localhost" in why["Cursor"] and "not plain JSON" in why["VS Code"] and "rest of the file" in why["Windsurf"]
    assert all(p.read_bytes() == content for p, content in before.items())
    words = repoint_words(8799, outcome)
    assert str(cursor) in words and str(vscode) in words and "Settings → Clients" in words


def test_claude_code_s_user_config_and_a_linked_config(home: Path, tmp_path: Path):
    claude = claude_code_config()
    claude.write_text(
        json.dumps({"numStartups": 3, "mcpServers": {"hindsight": {"type": "http", "url": OLD}}}, indent=2)
    )
    dotfiles = tmp_path / "dotfiles" / "cursor.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps({"mcpServers": {"hindsight": {"url": OLD}}}))
    os.chmod(dotfiles, 0o640)
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").symlink_to(dotfiles)
    outcome = repoint(NEW)
    assert {c.label for c in outcome.updated} == {"Claude Code", "Cursor"}
    assert json.loads(claude.read_text())["mcpServers"]["hindsight"]["url"] == NEW
    assert json.loads(claude.read_text())["numStartups"] == 3
    assert (home / ".cursor" / "mcp.json").is_symlink() and NEW in dotfiles.read_text()
    assert dotfiles.stat().st_mode & 0o777 == 0o640


def test_stdio_claude_desktop_has_no_port_and_is_not_a_target(home: Path):
    assert "Claude Desktop" not in {kind.label for kind, _ in config_files()}
    install("claude-desktop")
    assert repoint(NEW).updated == []


def test_the_words_when_nothing_was_installed(home: Path):
    words = repoint_words(8799, repoint(NEW))
    assert "port 8799" in words and NEW in words and "No installed assistant config" in words
