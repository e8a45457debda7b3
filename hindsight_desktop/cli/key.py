"""`hindsight-desktop key …`: the memory file's encryption key: create the file (encrypted or plain),
show where the key is and its recovery key, restore it on a new keyring, change it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import data_dir, emit, warn
from hindsight_desktop.config import DB_FILE

LOSS_WARNING = (
    "Write it down and keep it apart from this computer. With it and a copy of the memory file, anyone "
    "can read every memory; without it and without this keyring entry, the memory is gone for good."
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


def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-encryption",
        action="store_true",
        help="make a plain memory file (readable by anything that can read the folder)",
    )


def _init(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.keys import manage

    path = _path(args)
    existed = path.exists() and path.stat().st_size > 0
    opened = manage.init(path, encrypt=not args.no_encryption)
    emit(args, manage.status(path) | {"created": not existed})
    if opened.warning:
        warn(opened.warning)
    if opened.key is not None and (opened.created or opened.encrypted_now):
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


def _rekey(args: argparse.Namespace) -> None:
    from hindsight_desktop.core.keys import manage

    path = _path(args)
    key, saved = manage.rekey(path)
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
                "rekey", "give the memory file a new key (quit the app first); prints the new recovery key", _rekey
            ),
        ),
    ),
)
