"""What the `key` commands and the app (its start, Settings → Privacy) do with a memory file's key, without
loading the embedding model: the one module of core/keys the edges import."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hindsight_desktop.core.errors import EncryptionError
from hindsight_desktop.core.keys import convert, files, opener, recovery
from hindsight_desktop.core.keys.keystore import KeyStore, Saved
from hindsight_desktop.core.keys.keystore import KeystoreUnavailable as KeystoreUnavailable  # for mcp/auth.py
from hindsight_desktop.core.keys.keystore import SecretStore as SecretStore  # the client tokens' store (mcp/auth.py)
from hindsight_desktop.core.keys.opener import Opened

CIPHER_NAME = "ChaCha20-Poly1305 (SQLite3MC chacha20)"


def recovery_text(key: bytes) -> str:
    return recovery.encode(key)


def status(path: Path) -> dict[str, Any]:
    """The file, its form (encrypted, plain or new) and, encrypted, its id, cipher and where its key is."""
    path = Path(path)
    form = opener.describe(path)
    out: dict[str, Any] = {"file": str(path), "form": form}
    if form == files.State.ENCRYPTED.value:
        out |= {"file_id": files.file_id(path), "cipher": CIPHER_NAME, "key_kept_in": KeyStore(path).where()}
    return out


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


def init(path: Path, *, encrypt: bool) -> Opened:
    """Create the memory file now (a plain one encrypted when `encrypt`), with the schema in place."""
    from hindsight_desktop.core.store.database import Store  # the Store imports this package

    store = Store(Path(path), encrypt=encrypt)
    store.close()
    return store.encryption


def restore(path: Path, text: str) -> Saved:
    """Put the key in a recovery key back into the keyring (InvalidInput for a mistyped one)."""
    path = Path(path)
    _encrypted(path, "nothing to restore")
    key = recovery.decode(text)
    if not opener.opens(path, key):
        raise EncryptionError(
            f"that recovery key is not {path}'s: it belongs to another memory file, or to this "
            "file before its key was changed"
        )
    saved = KeyStore(path).save(files.file_id(path), key)
    files.mark(path)
    return saved


def rekey(path: Path, progress: convert.Progress | None = None) -> tuple[bytes, Saved]:
    """A new key for the file, through a verified copy (convert.rekey); refused while another process has it."""
    path = Path(path)
    _encrypted(path, "`key init` or a start of the app encrypts it")
    store = KeyStore(path)
    with files.conversion_lock(path):
        files.discard_leftovers(path)
        try:
            key, saved = convert.rekey(path, opener.find_key(path, store), store, progress)
        except convert.InUse:
            raise EncryptionError(
                f"{path} is open in another process: quit the app and the assistants, then run `key rekey` again"
            ) from None
        files.mark(path)
    return key, saved
