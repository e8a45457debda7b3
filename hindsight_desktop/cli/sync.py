"""`hindsight-desktop sync …`: this memory on the person's other devices, through a folder their own sync
service moves (core/sync/ through the engine): setup, join, now, status, devices, remove-device, leave."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import on_engine

CODE_WARNING = (
    "Type it on your other devices with `hindsight-desktop sync join FOLDER --code CODE`. It is shown only "
    "now; anyone with it and a copy of the folder can read your memory."
)


def _folder_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, help="the folder your sync service (Syncthing, a cloud drive) keeps in step")
    p.add_argument("--name", help="this device's name as the others list it (default: the computer's name)")


def _setup(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.sync_setup(args.folder, name=args.name), human=_print_setup)


def _print_setup(result: dict[str, Any]) -> None:
    print(f"sync folder: {result['folder']}\nthis device: {result['device_name']} ({result['device_id']})")
    _print_report(result["sync"])
    print(f"\npairing code:\n\n    {result['code']}\n\n{CODE_WARNING}", file=sys.stderr)


def _join_arguments(p: argparse.ArgumentParser) -> None:
    _folder_arguments(p)
    p.add_argument("--code", required=True, help="the pairing code `sync setup` showed on the first device")


def _join(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.sync_join(args.folder, args.code, name=args.name), human=_print_join)


def _print_join(result: dict[str, Any]) -> None:
    print(f"joined {result['folder']} as {result['device_name']} ({result['device_id']}), {result['devices']} devices")
    _print_report(result["sync"])


def _now(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.sync_now(), human=_print_report)


def _print_report(report: dict[str, Any]) -> None:
    print(f"sent {report['sent']} changes, applied {report['applied']}")
    if report.get("conflicts"):
        print(f"{report['conflicts']} concurrent edits: the losing text is in each memory's history")
    for refused in report["refused"]:
        print(f"refused {refused['file']}: {refused['reason']}")


def _status(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.sync_status(), human=_print_status)


def _print_status(status: dict[str, Any]) -> None:
    if not status["set_up"]:
        print("sync is not set up; `hindsight-desktop sync setup FOLDER` starts it")
        return
    reach = "" if status["folder_reachable"] else " (not reachable now)"
    print(f"folder: {status['folder']}{reach}\nthis device: {status['device_name']} ({status['device_id']})")
    print(f"changes waiting to be sent: {status['pending']}")
    last = status["last_sync"]
    print(f"last sync: {last['at']}" if last else "last sync: never")
    if status["last_error"]:
        print(f"last error: {status['last_error']}")
    for refused in status["refused"]:
        print(f"refused {refused['file']}: {refused['reason']}")
    _print_devices({"devices": status["devices"]})


def _devices(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: {"devices": engine.sync_devices()}, human=_print_devices)


def _print_devices(listing: dict[str, Any]) -> None:
    for d in listing["devices"]:
        notes = [
            n for n, on in (("this device", d["this_device"]), ("removed", d["removed"]), ("left", d["left"])) if on
        ]
        behind = f", {d['behind']} changes not applied here yet" if d["behind"] else ""
        extra = f" [{', '.join(notes)}]" if notes else ""
        print(f"{d['device_id']}  {d['name']}{extra}  last seen {d['last_seen'] or 'never'}{behind}")


def _remove_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("device_id", help="the device's id, as `sync devices` lists it")


def _remove(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.sync_remove_device(args.device_id))


def _leave(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.sync_leave())


COMMANDS = (
    Command(
        "sync",
        "this memory on your other devices, end-to-end encrypted, through a folder your sync service moves",
        subcommands=(
            Command(
                "setup",
                "make FOLDER the sync folder (first device); prints the pairing code",
                _setup,
                _folder_arguments,
            ),
            Command(
                "join", "join the sync folder another device set up, with its pairing code", _join, _join_arguments
            ),
            Command("now", "send this device's changes and apply the other devices' now", _now),
            Command("status", "whether sync is set up, the folder, pending changes, the last sync", _status),
            Command("devices", "the devices in the sync folder and when each last synced", _devices),
            Command("remove-device", "stop reading a device's files (its memories stay)", _remove, _remove_arguments),
            Command("leave", "stop syncing on this device (its memories stay)", _leave),
        ),
    ),
)
