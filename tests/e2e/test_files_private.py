"""Files that hold a secret are private from their first byte: a client config with the bearer token in
it ends up 0600 (and the install says when that narrowed it), a config that is a symbolic link stays a
link to its updated target, and every file the app writes in the data folder is created 0600 (no chmod
afterwards, so no moment at 0644). Real files, a permissive umask."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.mcp import client_config

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes and links are POSIX here")

TOKEN = "hsd_test-token-0123456789"


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def target(tmp_path: Path) -> client_config.Target:
    return client_config.Target(
        url="http://127.0.0.1:8765/mcp",
        token=TOKEN,
        client="cursor",
        data_dir=tmp_path / "data",
        command=["hindsight-desktop"],
    )


def _install(kind: str, tmp_path: Path) -> list[client_config.Installed]:
    return client_config.install(client_config.kind(kind), target(tmp_path))


def _public_config(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    os.chmod(path, 0o644)
    return path


def test_an_existing_readable_config_is_narrowed_when_it_gets_the_token(home: Path, tmp_path: Path):
    config = _public_config(home / ".cursor" / "mcp.json", {"mcpServers": {"other": {"command": "x"}}})
    [done] = _install("cursor", tmp_path)
    assert mode(config) == 0o600 and TOKEN in config.read_text()
    assert done.narrowed_from == 0o644 and "644" in done.note and "600" in done.note
    assert str(done) == str(config) and os.fspath(done) == str(config)  # reads as the path, as before
    assert json.loads(config.read_text())["mcpServers"]["other"] == {"command": "x"}
    [backup] = config.parent.glob("mcp.json.backup-*")
    assert mode(backup) == 0o600 and "hindsight" not in backup.read_text()  # the old file, kept privately
    [again] = _install("cursor", tmp_path)
    assert again.narrowed_from is None and again.note is None  # already private: nothing to say


def test_a_config_without_a_token_keeps_its_mode(home: Path, tmp_path: Path):
    config = _public_config(home / ".config" / "Code" / "User" / "mcp.json", {"servers": {}})
    [done] = _install("vscode", tmp_path)  # VS Code asks for the token itself: the file never holds it
    assert TOKEN not in config.read_text() and mode(config) == 0o644 and done.narrowed_from is None


def test_a_linked_config_stays_a_link_and_its_target_is_updated(home: Path, tmp_path: Path):
    dotfiles = tmp_path / "dotfiles"
    real = _public_config(dotfiles / "cursor-mcp.json", {"mcpServers": {"other": {"command": "x"}}})
    link = home / ".cursor" / "mcp.json"
    link.parent.mkdir()
    link.symlink_to(real)
    [done] = _install("cursor", tmp_path)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert done.written == real and "is a link" in done.note
    merged = json.loads(real.read_text())
    assert merged["mcpServers"]["other"] == {"command": "x"} and TOKEN in json.dumps(merged)
    assert mode(real) == 0o600
    # The backup sits beside the config as the client names it; nothing is left half-written anywhere.
    assert [p.name for p in link.parent.iterdir() if p.name.startswith("mcp.json.backup-")]
    assert sorted(p.name for p in dotfiles.iterdir()) == ["cursor-mcp.json"]


def test_a_link_to_a_file_not_there_yet_creates_the_target(home: Path, tmp_path: Path):
    (tmp_path / "dotfiles").mkdir()
    real = tmp_path / "dotfiles" / "windsurf.json"
    link = home / ".codeium" / "windsurf" / "mcp_config.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    _install("windsurf", tmp_path)
    assert link.is_symlink() and real.is_file() and mode(real) == 0o600 and TOKEN in real.read_text()


def test_a_link_to_something_that_is_not_a_file_is_refused(home: Path, tmp_path: Path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    link = home / ".cursor" / "mcp.json"
    link.parent.mkdir()
    link.symlink_to(folder)
    with pytest.raises(HindsightError, match="not a regular file"):
        _install("cursor", tmp_path)
    assert link.is_symlink() and list(folder.iterdir()) == []


def test_every_file_of_the_default_model_is_created_private(tmp_path: Path, monkeypatch, model_dir: Path, embedder):
    """The model copy, its tokenizer and its checksum sidecar in a new data folder: 0600 from creation."""
    from hindsight_desktop.core.model import default_model

    monkeypatch.setattr(default_model, "machine_model_dir", lambda: model_dir)  # the session's converted copy
    chmods: list[str] = []
    real_chmod = os.chmod

    def watching(path, *args, **kwargs):
        if not os.path.isdir(path):
            chmods.append(str(path))
        return real_chmod(path, *args, **kwargs)

    monkeypatch.setattr(os, "chmod", watching)
    models = tmp_path / "data" / "models"
    model = default_model.ensure_default_model(models)
    files = sorted(p for p in models.iterdir())
    assert default_model.checksum_file(model) in files and len(files) >= 3
    assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    assert chmods == []  # created with the right mode, never narrowed afterwards
