"""The client tokens' vault: a token kept in the keyring or in the 0600 token file reads back, whatever wrote
it, and stays apart from the memory keys kept beside it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from hindsight_desktop.core.keys.keystore import KEY_FILE, SERVICE, KeyStore
from hindsight_desktop.mcp.auth import TOKEN_FILE, TokenVault, new_token


def test_a_token_file_as_written_before_reads_back_and_is_rewritten_the_same_way(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    token = new_token()
    (data / TOKEN_FILE).write_text(json.dumps({"alice": token}, indent=2), encoding="utf-8")
    vault = TokenVault(data)
    assert vault.backend_name() == f"file {data / TOKEN_FILE}"
    assert vault.load("alice") == token
    other = new_token()
    saved = vault.save("bob", other)
    assert saved.where == str(data / TOKEN_FILE)
    assert saved.warning == (
        f"no OS keyring backend is available; the token is stored in {data / TOKEN_FILE}, readable only by you"
    )
    assert json.loads((data / TOKEN_FILE).read_text(encoding="utf-8")) == {"alice": token, "bob": other}
    if os.name == "posix":
        assert stat.S_IMODE((data / TOKEN_FILE).stat().st_mode) == 0o600
    vault.delete("alice")
    assert vault.load("alice") is None and vault.load("bob") == other


def test_a_keyring_entry_under_the_data_folders_service_reads_back(tmp_path: Path, file_keyring) -> None:
    data = tmp_path / "data"
    data.mkdir()
    token = new_token()
    file_keyring.set_password(f"hindsight-desktop:{data.resolve()}", "alice", token)  # as earlier versions kept it
    vault = TokenVault(data)
    assert vault.backend_name() == "OS keyring (PlaintextKeyring)"
    assert vault.load("alice") == token
    assert vault.save("bob", token).where == "keyring"
    assert not (data / TOKEN_FILE).exists()
    vault.delete("alice")
    assert file_keyring.get_password(f"hindsight-desktop:{data.resolve()}", "alice") is None


def test_a_locked_keyring_falls_back_to_the_file_copy_or_no_token(tmp_path: Path, file_keyring, monkeypatch) -> None:
    from keyring.errors import KeyringLocked

    def locked(service: str, username: str) -> str | None:
        raise KeyringLocked("the collection is locked")

    data = tmp_path / "data"
    data.mkdir()
    token = new_token()
    (data / TOKEN_FILE).write_text(json.dumps({"alice": token}), encoding="utf-8")
    monkeypatch.setattr(file_keyring, "get_password", locked)
    vault = TokenVault(data)
    assert vault.load("alice") == token
    assert vault.load("bob") is None  # not an error: `clients config` then offers a new token


def test_tokens_and_memory_keys_in_one_folder_stay_apart(tmp_path: Path, file_keyring, monkeypatch) -> None:
    data = tmp_path / "data"
    data.mkdir()
    vault, keys = TokenVault(data), KeyStore(data / "memory.db")
    vault.save("alice", "hsd_token")
    keys.save("alice", b"\x01" * 32)
    assert vault.load("alice") == "hsd_token" and keys.load("alice") == b"\x01" * 32
    assert file_keyring.get_password(SERVICE, "alice") == "01" * 32
    monkeypatch.setenv("HINDSIGHT_TOKEN_STORE", "file")  # the tokens' switch moves the tokens only
    assert vault.save("carol", "hsd_other").where == str(data / TOKEN_FILE)
    assert keys.save("carol", b"\x02" * 32).where == "keyring"
    assert not (data / KEY_FILE).exists()
