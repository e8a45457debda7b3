"""`hindsight-desktop key …`: the memory file's encryption key: create the file (encrypted or plain),
show where the key is and its recovery key, restore it on a new keyring, change it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import data_dir, emit, warn
from hindsight_desktop.config import DB_FILE
from hindsight_desktop.core.errors import InvalidInput

LOSS_WARNING = (
    "Write it down and keep it apart from this computer. With it and a copy of the memory file, anyone "
    "can read every memory; without it and without this keyring entry (or passphrase), the memory is gone for "
    "good."
)


def _path(args: argparse.Namespace) -> Path:
    return data_dir(args) / DB_FILE


def show_recovery(key: bytes, *, why: str) -> None:
    """The recovery key, once, on stderr (stdout may be a protocol stream or a pipe)."""
    from hindsight_desktop.core.keys.manage import recovery_text

    print(f"{why} Its recovery key:\n\n    {recovery_text(key)}\n\n{LOSS_WARNING}", file=sys.stderr)


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--recovery", action="store_true", help="also print the recovery key (keep it secret)")


def _show(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.keys import manage

    path = _path(args)
    status = manage.status(path)
    if args.recovery:
        status["recovery_key"] = manage.recovery_key(path)
    emit(args, status)
    if args.recovery and not args.json:
        print(LOSS_WARNING)


def read_passphrase(*, new: bool) -> str:
    """A passphrase typed on the terminal, unseen (a new one twice), else one line of stdin."""
    import getpass

    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("New passphrase: " if new else "Passphrase: ", stream=sys.stderr)
    if new and getpass.getpass("The same passphrase again: ", stream=sys.stderr) != first:
        raise InvalidInput("the two passphrases differ; nothing was changed")
    return first


def _init_arguments(p: argparse.ArgumentParser) -> None:
    form = p.add_mutually_exclusive_group()
    form.add_argument(
        "--no-encryption",
        action="store_true",
        help="make a plain memory file (readable by anything that can read the folder)",
    )
    form.add_argument(
        "--passphrase",
        action="store_true",
        help="keep the key under a passphrase you choose (typed twice, or one line on stdin) instead of the "
        "keyring: for a computer with no working keyring; the app and `serve` ask for it at start",
    )


def _init(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.keys import manage

    path = _path(args)
    existed = path.exists() and path.stat().st_size > 0
    chosen = read_passphrase(new=True) if args.passphrase else None
    opened = manage.init(path, encrypt=not args.no_encryption, passphrase_text=chosen)
    emit(args, manage.status(path) | {"created": not existed})
    if opened.warning:
        warn(opened.warning)
    if opened.key is not None and (opened.created or opened.encrypted_now or chosen is not None and not existed):
        show_recovery(opened.key, why=f"{path} is encrypted.")


def _restore_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "recovery_key", nargs="?", help="the recovery key (omit it to type it on stdin, unseen by the shell's history)"
    )


def _restore(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.keys import manage

    path = _path(args)
    text = args.recovery_key if args.recovery_key is not None else sys.stdin.readline()
    saved = manage.restore(path, text)
    if saved.warning:
        warn(saved.warning)
    emit(args, manage.status(path) | {"restored": True})


def _unlock(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.keys import manage

    path = _path(args)
    manage.unlock(path, read_passphrase(new=False))
    emit(args, manage.status(path) | {"unlocked": True})


def _rekey_arguments(p: argparse.ArgumentParser) -> None:
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--passphrase", action="store_true", help="keep the new key under a new passphrase (typed twice, or stdin)"
    )
    mode.add_argument(
        "--keyring", action="store_true", help="keep the new key in the OS keyring (leaves passphrase mode)"
    )


def _rekey(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.keys import manage

    path = _path(args)
    chosen = read_passphrase(new=True) if args.passphrase else None
    key, saved = manage.rekey(path, new_passphrase=chosen, to_keyring=args.keyring)
    if saved.warning:
        warn(saved.warning)
    emit(args, manage.status(path) | {"rekeyed": True})
    show_recovery(key, why="The key is changed; the old recovery key no longer opens the file.")


COMMANDS = (
    Command(
        "key",
        "the memory file's encryption key",
        subcommands=(
            Command("show", "whether the memory file is encrypted, and where its key is kept", _show, _show_arguments),
            Command(
                "init",
                "create the memory file now (encrypted unless --no-encryption) and show its recovery key",
                _init,
                _init_arguments,
            ),
            Command(
                "restore",
                "put the key back from its recovery key (a new computer or keyring)",
                _restore,
                _restore_arguments,
            ),
            Command(
                "unlock",
                "check the passphrase of a memory file in passphrase mode (typed unseen, or one line on stdin)",
                _unlock,
            ),
            Command(
                "rekey",
                "give the memory file a new key (quit the app first), optionally moving it under a passphrase or "
                "back to the keyring; prints the new recovery key",
                _rekey,
                _rekey_arguments,
            ),
        ),
    ),
)
