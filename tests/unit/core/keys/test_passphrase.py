"""Passphrase mode: the file key wrapped under scrypt + AES-GCM beside the file, with real KDF runs (at
the small test cost that HINDSIGHT_TEST_KDF=fast selects), a real file keyring, real SQLite3MC files."""

from __future__ import annotations

import json

import pytest

from hindsight_desktop.core.errors import EncryptionError, InvalidInput
from hindsight_desktop.core.keys import files, manage, opener, passphrase, recovery
from hindsight_desktop.core.keys.keystore import SERVICE
from hindsight_desktop.core.store.database import Store

PASSPHRASE = "correct horse battery staple"


@pytest.fixture(autouse=True)
def fast_kdf(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(passphrase.TEST_KDF_ENV, "fast")
    passphrase._unlocked.clear()
    yield
    passphrase._unlocked.clear()


def _new_process() -> None:
    """What a new process starts with: nothing unlocked."""
    passphrase._unlocked.clear()


def test_a_wrapped_key_opens_with_its_passphrase_only():
    key = bytes(range(32))
    entry = passphrase.wrap("ab" * 16, key, PASSPHRASE)
    assert (entry.kdf, entry.n, entry.r, entry.p) == ("scrypt", 2**10, 8, 1)  # the test cost, stored in the entry
    assert passphrase.unwrap("ab" * 16, entry, PASSPHRASE) == key
    with pytest.raises(EncryptionError, match="that passphrase is wrong"):
        passphrase.unwrap("ab" * 16, entry, PASSPHRASE + "!")
    with pytest.raises(EncryptionError, match="that passphrase is wrong"):  # bound to its file id
        passphrase.unwrap("cd" * 16, entry, PASSPHRASE)
    tampered = passphrase.Entry.from_json(entry.as_json() | {"wrapped": bytes(48).hex()})
    with pytest.raises(EncryptionError, match="that passphrase is wrong"):
        passphrase.unwrap("ab" * 16, tampered, PASSPHRASE)


def test_the_real_cost_is_memory_hard(monkeypatch):
    monkeypatch.delenv(passphrase.TEST_KDF_ENV)
    entry = passphrase.wrap("ab" * 16, bytes(32), PASSPHRASE)
    assert entry.n * entry.r * 128 >= 128 * 2**20  # scrypt's memory: 128 * N * r bytes


def test_a_short_passphrase_is_refused(tmp_path):
    with pytest.raises(InvalidInput, match="at least 8 characters"):
        manage.init(tmp_path / "memory.sqlite3", encrypt=True, passphrase_text="short")
    assert not (tmp_path / "memory.sqlite3").exists()


def test_init_with_a_passphrase_keeps_the_key_nowhere_else(tmp_path, file_keyring):
    path = tmp_path / "data" / "memory.sqlite3"
    opened = manage.init(path, encrypt=True, passphrase_text=PASSPHRASE)
    assert opened.key is not None and files.state(path) is files.State.ENCRYPTED
    fid = files.file_id(path)
    assert file_keyring.get_password(SERVICE, fid) is None and not (path.parent / "memory-keys.json").exists()
    stored = passphrase.key_file(path).read_text()
    assert PASSPHRASE not in stored and opened.key.hex() not in stored
    assert set(json.loads(stored)[fid]) == {"kdf", "n", "r", "p", "salt", "nonce", "wrapped"}
    assert manage.status(path)["key_mode"] == "passphrase"
    _new_process()
    with pytest.raises(manage.PassphraseNeeded, match="unlock Hindsight Desktop first"):
        Store(path).close()  # a process that cannot ask (pytest's stdin is no terminal)
    with pytest.raises(EncryptionError, match="that passphrase is wrong"):
        manage.unlock(path, "not the passphrase")
    manage.unlock(path, PASSPHRASE)
    Store(path).close()  # opens with the key unlocked in this process


def test_a_forgotten_passphrase_is_replaced_by_the_recovery_key(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    opened = manage.init(path, encrypt=True, passphrase_text=PASSPHRASE)
    assert opened.key is not None
    _new_process()
    manage.restore(path, recovery.encode(opened.key))
    assert not passphrase.key_file(path).exists() and manage.status(path)["key_mode"] == "keyring"
    _new_process()
    Store(path).close()


def test_rekey_moves_the_key_under_a_passphrase_and_back(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    manage.init(path, encrypt=True)
    first_id = files.file_id(path)
    assert manage.status(path)["key_mode"] == "keyring"
    key, saved = manage.rekey(path, new_passphrase=PASSPHRASE)
    second_id = files.file_id(path)
    assert second_id != first_id and saved.where.startswith("passphrase")
    assert (
        file_keyring.get_password(SERVICE, first_id) is None and file_keyring.get_password(SERVICE, second_id) is None
    )
    assert manage.status(path)["key_mode"] == "passphrase"
    _new_process()
    with pytest.raises(InvalidInput, match="--passphrase"):
        manage.rekey(path)  # which way the new key goes must be said
    manage.unlock(path, PASSPHRASE)
    key2, _ = manage.rekey(path, to_keyring=True)
    assert manage.status(path)["key_mode"] == "keyring" and not passphrase.key_file(path).exists()
    _new_process()
    assert opener.opens(path, key2) and not opener.opens(path, key)
    Store(path).close()


def test_a_plain_file_is_encrypted_under_a_passphrase_with_everything_in_it(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    store = Store(path, encrypt=False)
    with store.write() as db:
        db.execute("INSERT INTO meta (key, value) VALUES ('note', 'the spare key is under the flowerpot')")
    store.close()
    manage.init(path, encrypt=True, passphrase_text=PASSPHRASE)
    assert files.state(path) is files.State.ENCRYPTED and b"flowerpot" not in path.read_bytes()
    _new_process()
    manage.unlock(path, PASSPHRASE)
    db = opener.connect_existing(path)
    try:
        assert db.execute("SELECT value FROM meta WHERE key = 'note'").fetchone()[0].endswith("flowerpot")
    finally:
        db.close()
