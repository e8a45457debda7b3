"""The key a process opens the memory file with: found by the file's id, or made with a new file.

Every process (the app, `serve`, each stdio `mcp` process, the CLI) asks here, so all of them open the
same file with the same key and none of them prompts. A file that is encrypted but whose key cannot be
had is an EncryptionError naming the problem and what to do; it is never replaced by a new memory.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import apsw

from hindsight_desktop.core.errors import EncryptionError
from hindsight_desktop.core.keys import convert, files, passphrase
from hindsight_desktop.core.keys.keystore import KeyStore, KeystoreUnavailable
from hindsight_desktop.core.store.connections import open_connection, schema_version

log = logging.getLogger(__name__)
RESTORE_HINT = (
    "if the key was lost (a new computer, a reset keyring), run `hindsight-desktop key restore` "
    "with the recovery key shown when encryption was set up"
)


@dataclass(frozen=True)
class Opened:
    key: bytes | None  # None: a plain file
    file_id: str | None = None
    created: bool = False  # a new encrypted file, whose recovery key nobody has seen yet
    encrypted_now: bool = False  # a plain file, encrypted by this open
    warning: str | None = None  # where the key went when no keyring took it, or why the file stays plain


def open_key(path: Path, encrypt: bool, progress: convert.Progress | None = None) -> Opened:
    """The key for the memory file at `path`. `encrypt`: a new file is made encrypted, a plain one is
    encrypted now (telling `progress` how far the copy is); without it both stay plain (an encrypted
    file still opens with its key)."""
    path = Path(path)
    store = KeyStore(path)
    if files.has_leftovers(path):
        with files.conversion_lock(path):
            files.discard_leftovers(path)
    kind = files.state(path)
    if kind is files.State.ENCRYPTED:
        key = find_key(path, store)
        _to_current_cipher(path, key, progress)
        return Opened(key, files.file_id(path))
    if kind is files.State.PLAIN and files.marked_id(path):
        raise EncryptionError(
            f"the memory file {path} is not encrypted, but this folder's memory was (file id "
            f"{files.marked_id(path)}): it may have been replaced by an older plain copy. Put "
            f"the encrypted file back; or, to use this plain file, delete {files.marker(path)} "
            "and start again (it is then encrypted)"
        )
    if not encrypt:
        return Opened(None)
    with files.conversion_lock(path):
        files.discard_leftovers(path)
        kind = files.state(path)  # another process may have converted it while we waited
        if kind is files.State.ENCRYPTED:
            return Opened(find_key(path, store), files.file_id(path))
        try:
            if kind is files.State.NEW:
                key, saved = convert.create(path, store)
            elif _newer_schema(path):  # left untouched: the Store refuses it with its own message
                return Opened(None)
            else:
                key, saved = convert.encrypt_plain(path, store, progress)
        except convert.InUse:
            return Opened(
                None,
                warning=f"{path} is open in another process (an older version?), so it stays "
                "plain for now; it is encrypted on a start when nothing else has it open",
            )
    files.mark(path)
    return Opened(
        key,
        files.file_id(path),
        created=kind is files.State.NEW,
        encrypted_now=kind is files.State.PLAIN,
        warning=saved.warning,
    )


def _to_current_cipher(path: Path, key: bytes, progress: convert.Progress | None) -> None:
    """A file encrypted under an older cipher is moved to the current one (same key and id), once, by the
    first process that opens it while no other has it open; until then, or if the move fails, it opens as
    it is. Every opener of an encrypted file passes here, under the conversion lock: one that comes while
    another process moves the file waits, and opens the moved file."""
    with files.conversion_lock(path):
        if not convert.uses_legacy_cipher(path, key):
            return
        files.discard_leftovers(path)
        try:
            convert.recipher(path, key, progress)
        except convert.InUse:
            log.info("%s is open in another process: it moves to the current cipher on a later start", path)
        except (EncryptionError, apsw.Error, OSError):  # the file as it was is untouched (a full disk?)
            files.discard_leftovers(path)
            log.warning("could not move %s to the current cipher; it stays as it was", path, exc_info=True)


def _newer_schema(path: Path) -> bool:
    from hindsight_desktop.core.store.schema import MIGRATIONS

    db = open_connection(path, None, vec=False)
    try:
        return schema_version(db) > len(MIGRATIONS)
    finally:
        db.close()


def find_key(path: Path, store: KeyStore) -> bytes:
    fid = files.file_id(path)
    if passphrase.protects(path, fid):  # passphrase mode: the keyring is not asked
        key = passphrase.key_for(path, fid)
        if not opens(path, key):
            raise EncryptionError(
                f"the key unlocked by the passphrase does not open the memory file {path} (the file may "
                f"have been replaced by another memory's): {RESTORE_HINT}"
            )
        return key
    try:
        saved = store.load(fid)
    except KeystoreUnavailable as exc:
        raise EncryptionError(
            f"the OS keyring could not be read ({exc}), and the key of the encrypted memory "
            f"file {path} is kept there: unlock the keyring (log in to the desktop session), "
            f"then start again; {RESTORE_HINT}"
        ) from exc
    if saved is not None and opens(path, saved):
        if files.marked_id(path) != fid:  # made, or re-keyed, by a process stopped before it marked the folder
            files.mark(path)
        return saved
    marked = files.marked_id(path)
    if marked is not None and marked != fid:
        raise EncryptionError(
            f"the memory file {path} is encrypted with another key than this folder's memory "
            f"(file id {fid}, the folder's was {marked}): it is another memory's file, or a "
            f"copy from before a rekey; put this folder's file back, or {RESTORE_HINT}"
        )
    if saved is not None:
        raise EncryptionError(
            f"the encrypted memory file {path} does not open with the key saved for it in "
            f"{store.where()} (the file may have been replaced by another memory's): {RESTORE_HINT}"
        )
    raise EncryptionError(
        f"the memory file {path} is encrypted and no key for it (file id {fid}) is in {store.where()}: {RESTORE_HINT}"
    )


def opens(path: Path, key: bytes) -> bool:
    try:
        open_connection(path, key, vec=False).close()
    except EncryptionError:
        return False
    return True


def describe(path: Path) -> str:
    """ "encrypted" or "plain" (or "new": no file yet), for doctor and `key show`."""
    return files.state(Path(path)).value


def connect_existing(path: Path, *, flags: int | None = None, vec: bool = True) -> apsw.Connection:
    """A connection to an existing memory file, with its key when it is encrypted; never creates or
    converts anything (the doctor, tools and tests that read the file beside the Store)."""
    path = Path(path)
    key = find_key(path, KeyStore(path)) if files.state(path) is files.State.ENCRYPTED else None
    return open_connection(path, key, flags=flags, vec=vec)
