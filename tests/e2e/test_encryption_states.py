"""A memory whose key cannot be had, seen by MCP clients: the real SDK client against `mcp` (through the
shared server, and in process) and `serve`. Each bad state is a tool error naming the problem and what to
do; the process neither crashes nor hangs, and the memory file is left exactly as it was."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import anyio
import keyring
import pytest
from keyrings.alt.file import PlaintextKeyring
from support.keyrings import file_keyring_env, locked_keyring_env
from support.mcp import env_for, fails, free_port, prepare_data_dir, stdio_client

from hindsight_desktop.config import DB_FILE
from hindsight_desktop.core.keys import files
from hindsight_desktop.core.keys.keystore import SERVICE
from hindsight_desktop.core.store.database import Store


@pytest.fixture
def encrypted(tmp_path: Path, model_dir: Path, monkeypatch: pytest.MonkeyPatch):
    """A data folder whose encrypted memory file has its key in a file keyring under `home`."""
    home = tmp_path / "home"
    env = file_keyring_env(home)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    before = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    data = prepare_data_dir(tmp_path / "data", model_dir)
    Store(data / DB_FILE, encrypt=True).close()
    assert files.state(data / DB_FILE) is files.State.ENCRYPTED
    yield data, env
    keyring.set_keyring(before)


def _digests(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.is_symlink()
    }


def _tool_errors(data: Path, env: dict[str, str], *flags: str) -> list[str]:
    async def scenario() -> list[str]:
        with anyio.fail_after(120):  # a hang fails the test instead of stalling it
            async with stdio_client(data, *flags, **env) as client:
                return [
                    await fails(client, "memory_search", query="where is the spare key?"),
                    await fails(client, "memory_write", content="Remember: the boat is moored at pier 9."),
                ]

    return anyio.run(scenario)


@pytest.mark.parametrize("flags", [(), ("--in-process",)], ids=["shared-server", "in-process"])
def test_no_key_in_this_keyring(encrypted, tmp_path, flags):
    data, env = encrypted
    before = _digests(data)
    elsewhere = file_keyring_env(tmp_path / "another-home")  # a new computer: the keyring has no entry
    for text in _tool_errors(data, elsewhere, *flags):
        assert "is encrypted and no key for it" in text and "key restore" in text, text
    assert _digests(data) == before  # nothing written, no new memory made


def test_a_wrong_key_in_the_keyring(encrypted):
    data, env = encrypted
    keyring.set_password(SERVICE, files.file_id(data / DB_FILE), os.urandom(32).hex())
    before = _digests(data)
    for text in _tool_errors(data, env, "--in-process"):
        assert "does not open with the key saved for it" in text and "key restore" in text, text
    assert _digests(data) == before


def test_a_locked_keyring(encrypted):
    data, env = encrypted
    before = _digests(data)
    for text in _tool_errors(data, {**env, **locked_keyring_env()}):
        assert "keyring could not be read" in text and "unlock the keyring" in text, text
    assert _digests(data) == before


def test_a_plain_file_where_the_encrypted_one_was(encrypted, tmp_path):
    data, env = encrypted
    plain = tmp_path / "plain" / DB_FILE
    Store(plain, encrypt=False).close()
    os.replace(plain, data / DB_FILE)
    before = _digests(data)
    for text in _tool_errors(data, env, "--in-process"):
        assert "is not encrypted, but this folder's memory was" in text, text
    assert _digests(data) == before
    assert files.state(data / DB_FILE) is files.State.PLAIN  # not encrypted over


def test_serve_without_the_key_exits_at_once_saying_why(encrypted, tmp_path):
    data, _env = encrypted
    before = _digests(data)
    elsewhere = file_keyring_env(tmp_path / "another-home")
    proc = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", "serve", "--port", str(free_port())],
        env=env_for(data, **elsewhere),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 6, proc.stderr
    assert "no key for it" in proc.stderr and "key restore" in proc.stderr
    assert _digests(data) == before
