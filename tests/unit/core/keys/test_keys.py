"""The memory key: recovery keys, where keys are kept (a real file keyring, and the 0600 fallback), and
how the opener makes, finds, refuses and converts encrypted files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hindsight_desktop.core.errors import EncryptionError, InvalidInput
from hindsight_desktop.core.keys import files, manage, opener, recovery
from hindsight_desktop.core.keys.keystore import KEY_FILE, KeyStore
from hindsight_desktop.core.store.connections import key_pragma, open_connection, select_cipher
from hindsight_desktop.core.store.database import Store

SECRET = "the spare key is under the blue flowerpot"


def _fill(path: Path, *, encrypt: bool, rows: int = 50) -> None:
    store = Store(path, encrypt=encrypt)
    with store.write() as db:
        for n in range(rows):
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (f"k{n}", f"{SECRET} {n}"))
    store.close()


def test_a_recovery_key_reads_back_and_a_typo_is_refused():
    key = os.urandom(32)
    text = recovery.encode(key)
    groups = text.split("-")
    assert len(groups) == 14 and all(len(g) == 4 for g in groups)
    assert recovery.decode(text.lower().replace("-", " ")) == key
    slipped = text[:5] + ("A" if text[5] != "A" else "B") + text[6:]
    with pytest.raises(InvalidInput, match="typing mistake"):
        recovery.decode(slipped)
    with pytest.raises(InvalidInput, match="not a recovery key"):
        recovery.decode("hello")


def test_a_new_file_is_encrypted_and_its_key_is_in_the_keyring(tmp_path, file_keyring):
    path = tmp_path / "data" / "memory.sqlite3"
    _fill(path, encrypt=True)
    raw = b"".join(p.read_bytes() for p in path.parent.iterdir() if p.is_file())
    assert SECRET.encode() not in raw and files.PLAIN_MAGIC not in raw
    assert files.state(path) is files.State.ENCRYPTED
    assert file_keyring.get_password("hindsight-desktop-memory-key", files.file_id(path))
    assert not (path.parent / KEY_FILE).exists()  # a keyring took it: no key file in the folder
    store = Store(path)  # a second open finds the same key
    assert store.db.execute("SELECT count(*) FROM meta WHERE value LIKE 'the spare%'").fetchone()[0] == 50
    store.close()


def test_without_a_keyring_the_key_goes_to_a_private_file_with_a_warning(tmp_path):
    # conftest chooses keyring's fail backend: no keyring
    store = Store(tmp_path / "memory.sqlite3")
    warning = store.encryption.warning
    store.close()
    key_file = tmp_path / KEY_FILE
    assert warning and str(key_file) in warning and "not from anyone with a copy of the data folder" in warning
    assert key_file.stat().st_mode & 0o777 == 0o600


def test_a_missing_key_is_an_error_and_nothing_is_made_anew(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=True)
    before = path.read_bytes()
    KeyStore(path).delete(files.file_id(path))
    with pytest.raises(EncryptionError, match="no key for it .* key restore"):
        Store(path)
    assert path.read_bytes() == before


def test_a_wrong_key_or_no_key_is_a_clear_error(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=True)
    KeyStore(path).save(files.file_id(path), os.urandom(32))
    with pytest.raises(EncryptionError, match="does not open with the key saved for it"):
        Store(path)
    with pytest.raises(EncryptionError, match="without a key: it is encrypted"):
        open_connection(path, None)


def test_a_locked_keyring_says_so(tmp_path, file_keyring, monkeypatch):
    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=True)

    def locked(*_args):
        raise RuntimeError("the collection is locked")

    monkeypatch.setattr(file_keyring, "get_password", locked)
    with pytest.raises(EncryptionError, match="keyring could not be read .*locked.*unlock the keyring"):
        Store(path)


def test_a_plain_file_is_encrypted_on_open_with_everything_in_it(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=False)
    assert files.state(path) is files.State.PLAIN
    store = Store(path)
    assert store.encryption.encrypted_now
    rows = store.db.execute("SELECT value FROM meta WHERE key LIKE 'k%' ORDER BY value").fetchall()
    store.close()
    assert sorted(r[0] for r in rows) == sorted(f"{SECRET} {n}" for n in range(50))
    assert files.state(path) is files.State.ENCRYPTED
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".memory") and "lock" not in p.name) == []
    assert all(SECRET.encode() not in p.read_bytes() for p in tmp_path.iterdir() if p.is_file())


def test_encryption_off_keeps_a_plain_file_plain_and_opens_an_encrypted_one(tmp_path, file_keyring):
    plain, encrypted = tmp_path / "a" / "m.sqlite3", tmp_path / "b" / "m.sqlite3"
    _fill(plain, encrypt=False)
    _fill(encrypted, encrypt=True)
    Store(plain, encrypt=False).close()
    assert files.state(plain) is files.State.PLAIN
    store = Store(encrypted, encrypt=False)
    assert store.key is not None
    store.close()


def test_a_half_made_file_is_discarded_and_a_swapped_one_kept(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=False)
    files.building(path).write_bytes(b"SQLite format 3\x00 half a copy")
    os.link(path, files.retired(path))  # killed between keeping the old file reachable and the swap
    store = Store(path)
    assert store.db.execute("SELECT count(*) FROM meta WHERE key LIKE 'k%'").fetchone()[0] == 50
    store.close()
    assert not files.building(path).exists() and not files.retired(path).exists()


def test_rekey_changes_the_key_and_the_old_recovery_key_stops_working(tmp_path, file_keyring):
    from hindsight_desktop.core.keys import convert

    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=True)
    store = KeyStore(path)
    old = opener.find_key(path, store)
    with files.conversion_lock(path):
        new, _saved = convert.rekey(path, old, store)
    assert new != old and not opener.opens(path, old) and opener.opens(path, new)
    reopened = Store(path)
    assert reopened.db.execute("SELECT count(*) FROM meta WHERE key LIKE 'k%'").fetchone()[0] == 50
    reopened.close()


def test_a_plain_file_in_place_of_the_encrypted_one_is_named_not_opened(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=True)
    encrypted = path.read_bytes()
    other = tmp_path / "old" / "memory.sqlite3"
    _fill(other, encrypt=False, rows=3)
    path.write_bytes(other.read_bytes())  # an old plain backup put back
    with pytest.raises(EncryptionError, match="is not encrypted, but this folder's memory was"):
        Store(path)
    assert files.state(path) is files.State.PLAIN  # left as it was, not encrypted over
    foreign = tmp_path / "foreign" / "memory.sqlite3"
    _fill(foreign, encrypt=True)
    KeyStore(foreign).delete(files.file_id(foreign))
    path.write_bytes(foreign.read_bytes())  # another memory's encrypted file
    with pytest.raises(EncryptionError, match="encrypted with another key than this folder's memory"):
        Store(path)
    path.write_bytes(encrypted)
    Store(path).close()


def _legacy_file(path: Path) -> bytes:
    """An encrypted file as versions before AEGIS made it (ChaCha20-Poly1305), its key in the keyring and
    the folder marked; returns the key."""
    key, salt = os.urandom(32), os.urandom(files.ID_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = open_connection(path, key, salt=salt, cipher="chacha20", vec=False)
    db.execute("PRAGMA journal_mode=WAL").fetchall()
    db.execute("CREATE TABLE notes (value TEXT)")
    with db:
        db.executemany("INSERT INTO notes VALUES (?)", [(f"{SECRET} {n}",) for n in range(50)])
    db.close()
    KeyStore(path).save(salt.hex(), key)
    files.mark(path)
    return key


def _opens_under(path: Path, key: bytes, cipher: str) -> bool:
    """Whether SQLite3MC reads the file with `key` under `cipher` alone (no other tried)."""
    import apsw

    db = apsw.Connection(str(path))
    try:
        select_cipher(db, cipher)
        db.execute(key_pragma(key)).fetchall()
        db.execute("SELECT count(*) FROM sqlite_schema").fetchall()
        return True
    except apsw.NotADBError:
        return False
    finally:
        db.close()


def test_a_new_file_is_encrypted_with_aegis(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    _fill(path, encrypt=True)
    key = opener.find_key(path, KeyStore(path))
    assert _opens_under(path, key, "aegis") and not _opens_under(path, key, "chacha20")
    assert manage.status(path)["cipher"].startswith("AEGIS-256")


def test_a_chacha20_file_moves_to_aegis_under_the_same_key_and_id(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    key = _legacy_file(path)
    fid = files.file_id(path)
    assert manage.status(path)["cipher"].startswith("ChaCha20-Poly1305")
    store = Store(path)
    assert store.key == key and store.encryption.file_id == fid
    rows = store.db.execute("SELECT count(*) FROM notes WHERE value LIKE 'the spare%'").fetchone()[0]
    store.close()
    assert rows == 50
    # The keyring entry, the recovery key and the folder's marker all still name this file.
    assert files.file_id(path) == fid == files.marked_id(path)
    assert _opens_under(path, key, "aegis") and not _opens_under(path, key, "chacha20")
    assert not files.has_leftovers(path)
    assert all(SECRET.encode() not in p.read_bytes() for p in tmp_path.iterdir() if p.is_file())


def test_a_chacha20_file_in_use_elsewhere_opens_as_it_is_and_moves_later(tmp_path, file_keyring):
    path = tmp_path / "memory.sqlite3"
    key = _legacy_file(path)
    other = open_connection(path, key, vec=False)  # another process's connection: the WAL stays
    other.execute("SELECT count(*) FROM notes").fetchall()
    try:
        store = Store(path)
        with store.write() as db:
            db.execute("INSERT INTO notes VALUES ('written while the other had it open')")
        copy = store.backup(tmp_path / "copy.sqlite3")  # pages copied as they are: the same cipher
        store.close()
        assert _opens_under(path, key, "chacha20")
        assert open_connection(copy, key, vec=False).execute("SELECT count(*) FROM notes").fetchone()[0] == 51
    finally:
        other.close()
    store = Store(path)  # nothing else has it open now
    assert store.db.execute("SELECT count(*) FROM notes").fetchone()[0] == 51
    store.close()
    assert _opens_under(path, key, "aegis")


def test_a_move_to_aegis_that_fails_leaves_the_file_as_it_was(tmp_path, file_keyring, monkeypatch):
    import apsw

    from hindsight_desktop.core.keys import convert

    path = tmp_path / "memory.sqlite3"
    key = _legacy_file(path)
    real_verify = convert._verify

    def disk_full(*args: object, **kwargs: object) -> None:
        raise apsw.FullError("database or disk is full")

    monkeypatch.setattr(convert, "_verify", disk_full)  # the copy is made, then fails
    store = Store(path)
    assert store.db.execute("SELECT count(*) FROM notes").fetchone()[0] == 50
    store.close()
    assert _opens_under(path, key, "chacha20") and not files.has_leftovers(path)
    monkeypatch.setattr(convert, "_verify", real_verify)
    Store(path).close()  # the next start moves it
    assert _opens_under(path, key, "aegis")
