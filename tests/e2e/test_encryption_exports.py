"""`export --encrypt` and `import --key` through the real CLI: the file holds no memory's text, opens on
another computer only with the recovery key, and a wrong key or an altered file is refused by name with
nothing imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from keyrings.alt.file import PlaintextKeyring
from support.keyrings import file_keyring_env
from support.mcp import env_for, prepare_data_dir

from hindsight_desktop.config import DB_FILE, Settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.keys import manage, recovery


@pytest.fixture
def exported(tmp_path, model_dir, embedder, clock, monkeypatch):
    """A memory with two memories, exported encrypted by the CLI; its recovery key and environment."""
    env = file_keyring_env(tmp_path / "home")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    before = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    data = prepare_data_dir(tmp_path / "data", model_dir)
    with MemoryEngine(data, embedder=embedder, clock=clock) as engine:
        engine.write("Remember: Marguerite keeps the spare key of flat 4.", gate=False)
        engine.write("Remember: the Zanzibar ferry leaves at 7:40.", gate=False)
    target = tmp_path / "out" / "memories.json.enc"
    target.parent.mkdir()
    done = _cli(data, env, "--json", "export", "--encrypt", "--output", str(target))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["encrypted"] is True and json.loads(done.stdout)["memories"] == 2
    yield data, env, target, manage.recovery_key(data / DB_FILE)
    keyring.set_keyring(before)


def _cli(data: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", *args],
        env=env_for(data, **env),
        capture_output=True,
        text=True,
        timeout=180,
    )


def _elsewhere(tmp_path: Path, model_dir: Path) -> tuple[Path, dict[str, str]]:
    """Another computer: its own data folder and keyring."""
    return prepare_data_dir(tmp_path / "other-data", model_dir), file_keyring_env(tmp_path / "other-home")


def test_the_export_opens_elsewhere_only_with_the_recovery_key(exported, tmp_path, model_dir):
    data, env, target, recovery_key = exported
    raw = target.read_bytes()
    assert raw.startswith(b"HSDXENC1") and b"Marguerite" not in raw and b"Zanzibar" not in raw
    other, other_env = _elsewhere(tmp_path, model_dir)
    refused = _cli(other, other_env, "import", str(target))
    assert refused.returncode == 6 and "this key does not open" in refused.stderr, refused.stderr
    wrong = _cli(other, other_env, "import", str(target), "--key", recovery.encode(bytes(32)))
    assert wrong.returncode == 6 and "this key does not open" in wrong.stderr
    typo = _cli(other, other_env, "import", str(target), "--key", "ABCD-EFGH")
    assert typo.returncode == 2 and "not a recovery key" in typo.stderr
    took = _cli(other, other_env, "--json", "import", str(target), "--key", recovery_key)
    assert took.returncode == 0, took.stderr
    assert json.loads(took.stdout)["created"] == 2
    found = _cli(other, other_env, "--json", "search", "when does the ferry leave?")
    assert "7:40" in found.stdout, found.stderr


def test_the_memory_it_came_from_opens_it_without_a_key(exported):
    data, env, target, _recovery_key = exported
    again = _cli(data, env, "--json", "import", str(target), "--dry-run")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["read"] >= 2


def test_an_altered_export_is_refused_and_nothing_is_imported(exported, tmp_path, model_dir):
    _data, _env, target, recovery_key = exported
    raw = bytearray(target.read_bytes())
    raw[len(raw) // 2] ^= 0x20
    altered = tmp_path / "altered.json.enc"
    altered.write_bytes(bytes(raw))
    other, other_env = _elsewhere(tmp_path, model_dir)
    refused = _cli(other, other_env, "import", str(altered), "--key", recovery_key)
    assert refused.returncode == 2 and "was changed after it was exported" in refused.stderr, refused.stderr
    stats = _cli(other, other_env, "--json", "stats")
    assert stats.returncode == 0 and json.loads(stats.stdout)["memories"] == 0, stats.stdout


def test_encrypting_needs_a_file_and_an_encrypted_memory(exported, tmp_path, embedder, clock):
    data, env, _target, _key = exported
    to_stdout = _cli(data, env, "export", "--encrypt")
    assert to_stdout.returncode == 2 and "--output" in to_stdout.stderr
    plain = Settings(encrypt_memory_file=False)
    with MemoryEngine(tmp_path / "plain-data", embedder=embedder, clock=clock, settings=plain) as engine:
        engine.write("Remember: the attic key hangs behind the calendar.", gate=False)
        with pytest.raises(InvalidInput, match="not encrypted, so it has no recovery key"):
            engine.export("json", tmp_path / "x.enc", encrypt=True)
    assert not (tmp_path / "x.enc").exists()
