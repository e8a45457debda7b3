"""`hindsight-desktop key …`: the memory file's encryption key: create the file (encrypted or plain),
show where the key is and its recovery key, restore it on a new keyring, change it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import data_dir, emit, warn
from hindsight_desktop.config import DB_FILE

LOSS_WARNING = ("Write it down and keep it apart from this computer. With it and a copy of the memory file, anyone "
                "can read every memory; without it and without this keyring entry, the memory is gone for good.")


def _path(args: argparse.Namespace) -> Path:
    return data_dir(args) / DB_FILE


def show_recovery(key: bytes, *, why: str) -> None:
    """The recovery key, once, on stderr (stdout may be a protocol stream or a pipe)."""
    from hindsight_desktop.core.keys import recovery

    print(f"{why} Its recovery key:\n\n    {recovery.encode(key)}\n\n{LOSS_WARNING}", file=sys.stderr)


def _status(path: Path) -> dict[str, Any]:
    from hindsight_desktop.core.keys import files, opener
    from hindsight_desktop.core.keys.keystore import KeyStore

    form = opener.describe(path)
    status: dict[str, Any] = {"file": str(path), "form": form}
    if form == files.State.ENCRYPTED.value:
        status |= {"file_id": files.file_id(path), "cipher": "ChaCha20-Poly1305 (SQLite3MC chacha20)",
                   "key_kept_in": KeyStore(path).where()}
    return status


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--recovery", action="store_true", help="also print the recovery key (keep it secret)")


def _show(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.errors import EncryptionError
    from hindsight_desktop.core.keys import opener, recovery
    from hindsight_desktop.core.keys.keystore import KeyStore

    path = _path(args)
    status = _status(path)
    if args.recovery:
        if status["form"] != "encrypted":
            raise EncryptionError(f"{path} is not encrypted ({status['form']}): it has no recovery key")
        status["recovery_key"] = recovery.encode(opener.find_key(path, KeyStore(path)))
    emit(args, status)
    if args.recovery and not args.json:
        print(LOSS_WARNING)


def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-encryption", action="store_true",
                   help="make a plain memory file (readable by anything that can read the folder)")


def _init(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.store.database import Store

    path = _path(args)
    existed = path.exists() and path.stat().st_size > 0
    store = Store(path, encrypt=not args.no_encryption)
    opened = store.encryption
    store.close()
    status = _status(path) | {"created": not existed}
    emit(args, status)
    if opened.warning:
        warn(opened.warning)
    if opened.key is not None and (opened.created or opened.encrypted_now):
        show_recovery(opened.key, why=f"{path} is encrypted.")


def _restore_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("recovery_key", nargs="?", help="the recovery key (omit it to type it on stdin, unseen "
                                                   "by the shell's history)")


def _restore(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.errors import EncryptionError
    from hindsight_desktop.core.keys import files, opener, recovery
    from hindsight_desktop.core.keys.keystore import KeyStore

    path = _path(args)
    if opener.describe(path) != "encrypted":
        raise EncryptionError(f"{path} is not an encrypted memory file ({opener.describe(path)}): nothing to restore")
    text = args.recovery_key if args.recovery_key is not None else sys.stdin.readline()
    key = recovery.decode(text)
    if not opener.opens(path, key):
        raise EncryptionError(f"that recovery key is not {path}'s: it belongs to another memory file, or to this "
                              "file before its key was changed")
    store = KeyStore(path)
    saved = store.save(files.file_id(path), key)
    if saved.warning:
        warn(saved.warning)
    emit(args, _status(path) | {"restored": True})


def _rekey(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.errors import EncryptionError
    from hindsight_desktop.core.keys import convert, files, opener
    from hindsight_desktop.core.keys.keystore import KeyStore

    path = _path(args)
    if opener.describe(path) != "encrypted":
        raise EncryptionError(f"{path} is not encrypted ({opener.describe(path)}); `key init` or a start of the "
                              "app encrypts it")
    store = KeyStore(path)
    with files.conversion_lock(path):
        files.discard_leftovers(path)
        try:
            key, saved = convert.rekey(path, opener.find_key(path, store), store)
        except convert.InUse:
            raise EncryptionError(f"{path} is open in another process: quit the app and the assistants, "
                                  "then run `key rekey` again") from None
    if saved.warning:
        warn(saved.warning)
    emit(args, _status(path) | {"rekeyed": True})
    show_recovery(key, why="The key is changed; the old recovery key no longer opens the file.")


COMMANDS = (
    Command("key", "the memory file's encryption key", subcommands=(
        Command("show", "whether the memory file is encrypted, and where its key is kept", _show, _show_arguments),
        Command("init", "create the memory file now (encrypted unless --no-encryption) and show its recovery key",
                _init, _init_arguments),
        Command("restore", "put the key back from its recovery key (a new computer or keyring)", _restore,
                _restore_arguments),
        Command("rekey", "give the memory file a new key (quit the app first); prints the new recovery key",
                _rekey),
    )),
)
