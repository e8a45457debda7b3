"""What the `key` commands and the app (its start, Settings → Privacy) do with a memory file's key, without
loading the embedding model: the one module of core/keys the edges import."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hindsight_desktop.core.errors import EncryptionError, InvalidInput
from hindsight_desktop.core.keys import convert, files, opener, passphrase, recovery
from hindsight_desktop.core.keys.keystore import KeyStore, Saved
from hindsight_desktop.core.keys.keystore import KeystoreUnavailable as KeystoreUnavailable  # for mcp/auth.py
from hindsight_desktop.core.keys.keystore import SecretStore as SecretStore  # the client tokens' store (mcp/auth.py)
from hindsight_desktop.core.keys.opener import Opened
from hindsight_desktop.core.keys.passphrase import PassphraseNeeded as PassphraseNeeded  # for the app's dialog
from hindsight_desktop.core.keys.passphrase import PassphraseStore
from hindsight_desktop.core.keys.passphrase import never_prompt as never_prompt  # for a stdio process
from hindsight_desktop.core.store.connections import cipher_of, open_connection

CIPHER_NAMES = {"aegis": "AEGIS-256 (SQLite3MC aegis)", "chacha20": "ChaCha20-Poly1305 (SQLite3MC chacha20)"}


def recovery_text(key: bytes) -> str:
    return recovery.encode(key)


def recovery_bytes(text: str) -> bytes:
    """The key a recovery key writes down (InvalidInput for a mistyped one)."""
    return recovery.decode(text)


def status(path: Path) -> dict[str, Any]:
    """The file, its form (encrypted, plain or new) and, encrypted, its id, cipher and where its key is."""
    path = Path(path)
    form = opener.describe(path)
    out: dict[str, Any] = {"file": str(path), "form": form}
    if form == files.State.ENCRYPTED.value:
        fid = files.file_id(path)
        if passphrase.protects(path, fid):
            mode, where = "passphrase", f"passphrase ({passphrase.key_file(path)})"
        else:
            where = KeyStore(path).where()
            mode = "keyring" if where.startswith("OS keyring") else "file"
        out |= {"file_id": fid, "cipher": _cipher_name(path, fid, mode), "key_mode": mode, "key_kept_in": where}
    return out


def _cipher_name(path: Path, fid: str, mode: str) -> str:
    """The cipher the file opens with; unknown while its key cannot be had (a passphrase not yet given
    here: this never asks for one; a lost key)."""
    try:
        key = passphrase.unlocked_key(fid) if mode == "passphrase" else opener.find_key(path, KeyStore(path))
        if key is None:
            return "cipher known once unlocked"
        db = open_connection(path, key, vec=False)
    except EncryptionError:
        return "cipher unknown until its key is found"
    try:
        cipher = cipher_of(db)
    finally:
        db.close()
    return CIPHER_NAMES.get(cipher, cipher)


def uses_passphrase(path: Path) -> bool:
    path = Path(path)
    return files.state(path) is files.State.ENCRYPTED and passphrase.protects(path, files.file_id(path))


def unlock(path: Path, text: str) -> None:
    """Unlock a passphrase-protected file for this process (EncryptionError for a wrong passphrase)."""
    path = Path(path)
    _encrypted(path, "nothing to unlock")
    key = passphrase.unlock(path, files.file_id(path), text)
    if not opener.opens(path, key):
        raise EncryptionError(f"the passphrase opens a key, but not {path}'s: {opener.RESTORE_HINT}")


def _encrypted(path: Path, doing: str) -> None:
    form = opener.describe(path)
    if form != files.State.ENCRYPTED.value:
        raise EncryptionError(f"{path} is not an encrypted memory file ({form}): {doing}")


def recovery_key(path: Path) -> str:
    path = Path(path)
    _encrypted(path, "it has no recovery key")
    return recovery.encode(opener.find_key(path, KeyStore(path)))


def prepare(path: Path, *, encrypt: bool, progress: convert.Progress | None = None) -> Opened:
    """Before the engine opens the file: make it encrypted when new, or encrypt a plain one (with
    `encrypt`), telling `progress` how far the copy is; the engine then finds it as it expects. An
    encrypted file whose key cannot be had is the EncryptionError the engine would raise."""
    from hindsight_desktop.core.store.private_files import private_dir

    private_dir(Path(path).parent)
    return opener.open_key(Path(path), encrypt, progress)


def init(path: Path, *, encrypt: bool, passphrase_text: str | None = None) -> Opened:
    """Create the memory file now (a plain one encrypted when `encrypt`), with the schema in place;
    with `passphrase_text`, its key is kept under that passphrase instead of in the keyring."""
    from hindsight_desktop.core.store.database import Store  # the Store imports this package

    path = Path(path)
    if passphrase_text is not None:
        _under_passphrase(path, PassphraseStore(path, passphrase_text))
    store = Store(path, encrypt=encrypt)
    store.close()
    return store.encryption


def _under_passphrase(path: Path, keeper: PassphraseStore) -> None:
    """Make the file (new) or encrypt it (plain) with its key kept by `keeper`; an encrypted file changes
    mode through rekey, which gives it a new key as well."""
    from hindsight_desktop.core.store.private_files import private_dir

    private_dir(path.parent)
    with files.conversion_lock(path):
        files.discard_leftovers(path)
        kind = files.state(path)
        if kind is files.State.ENCRYPTED:
            raise InvalidInput(
                f"{path} is encrypted already: `key rekey --passphrase` moves its key under a passphrase"
            )
        if kind is files.State.NEW:
            convert.create(path, keeper)
        else:
            try:
                convert.encrypt_plain(path, keeper)
            except convert.InUse:
                raise EncryptionError(
                    f"{path} is open in another process: quit the app and the assistants first"
                ) from None
        files.mark(path)


def restore(path: Path, text: str) -> Saved:
    """Put the key in a recovery key back into the keyring (InvalidInput for a mistyped one); a
    passphrase the file had is dropped (restoring is what a forgotten passphrase needs)."""
    path = Path(path)
    _encrypted(path, "nothing to restore")
    key = recovery.decode(text)
    if not opener.opens(path, key):
        raise EncryptionError(
            f"that recovery key is not {path}'s: it belongs to another memory file, or to this "
            "file before its key was changed"
        )
    saved = KeyStore(path).save(files.file_id(path), key)
    passphrase.forget(path, files.file_id(path))
    files.mark(path)
    return saved


def rekey(
    path: Path,
    progress: convert.Progress | None = None,
    *,
    new_passphrase: str | None = None,
    to_keyring: bool = False,
) -> tuple[bytes, Saved]:
    """A new key for the file, through a verified copy (convert.rekey); refused while another process has
    it. The new key is kept under `new_passphrase`, or in the keyring (`to_keyring`, or when the file
    was not in passphrase mode); a file in passphrase mode needs one of the two."""
    path = Path(path)
    _encrypted(path, "`key init` or a start of the app encrypts it")
    if new_passphrase is not None and to_keyring:
        raise InvalidInput("choose one: a new passphrase, or the keyring")
    old_id = files.file_id(path)
    if new_passphrase is None and not to_keyring and passphrase.protects(path, old_id):
        raise InvalidInput(
            "the key is kept under a passphrase: give the passphrase for the new key (`key rekey --passphrase`), "
            "or keep the new key in the keyring (`key rekey --keyring`)"
        )
    keeper: KeyStore | PassphraseStore = (
        PassphraseStore(path, new_passphrase) if new_passphrase is not None else KeyStore(path)
    )
    with files.conversion_lock(path):
        files.discard_leftovers(path)
        try:
            key, saved = convert.rekey(path, opener.find_key(path, KeyStore(path)), keeper, progress)
        except convert.InUse:
            raise EncryptionError(
                f"{path} is open in another process: quit the app and the assistants, then run `key rekey` again"
            ) from None
        if files.file_id(path) != old_id:  # the old key, wherever it was kept, opens nothing now
            KeyStore(path).delete(old_id)
            passphrase.forget(path, old_id)
        files.mark(path)
    return key, saved
