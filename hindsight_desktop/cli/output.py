"""What every command shares: where the memory is, opening the engine, and printing a result.

`--json` means the same for every command: the command's data as one JSON document (UTF-8 text kept
as it is, two-space indent) on the stream the command names, stdout unless said otherwise; errors are
`{"error": ..., "code": ...}` on stderr. Without `--json` the command's human printer runs instead.

A command is mostly one engine call: `on_engine` opens the engine, calls, prints; `person_call` does
the same for a command that needs the model, through the running server when there is one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from hindsight_desktop.config import default_data_dir, load_settings

if TYPE_CHECKING:  # imported when a command runs, so --help stays quick
    from hindsight_desktop.core.engine import MemoryEngine


def data_dir(args: argparse.Namespace) -> Path:
    """The data folder: `--data-dir` (main has put it in HINDSIGHT_DATA_DIR), else the default."""
    return default_data_dir()


def open_engine(args: argparse.Namespace, *, lazy: bool = True) -> MemoryEngine:
    """The engine over the memory in the data folder, with the saved settings; use it in a `with`.
    `lazy`: the embedding model loads only if the command embeds text (a server loads it at once)."""
    from hindsight_desktop.core.engine import MemoryEngine

    engine = MemoryEngine(data_dir(args), settings=load_settings(), lazy_model=lazy)
    opened = engine.store.encryption
    if opened.warning:
        warn(opened.warning)
    if opened.key is not None and (opened.created or opened.encrypted_now):  # set up by this command: shown once
        from hindsight_desktop.cli.key import show_recovery

        show_recovery(opened.key, why=f"The memory file {engine.store.path} is encrypted.")
    return engine


def on_engine(
    args: argparse.Namespace,
    call: Callable[[MemoryEngine], Any],
    human: Callable[[Any], None] | None = None,
    *,
    stream: TextIO | None = None,
) -> None:
    """What most commands are: open the engine (lazily: the model loads only if `call` embeds text),
    make one call on it, print what it returned."""
    with open_engine(args) as engine:
        data = call(engine)
    emit(args, data, human, stream=stream)


def person_call(
    args: argparse.Namespace, name: str, params: dict[str, Any], human: Callable[[Any], None] | None = None
) -> None:
    """A command of mcp/cli_channel.py's CALLS (those that need the model, and `show` and `stats`): made
    by the server that runs for this data folder (the app, `serve`, the shared one) when there is one,
    else here; printed alike."""
    from hindsight_desktop.cli import remote
    from hindsight_desktop.mcp.cli_channel import CALLS

    load_settings()  # a bad settings file is refused here, whoever makes the call
    result = remote.call(data_dir(args), name, params)
    if result is None:
        with open_engine(args) as engine:
            result = CALLS[name](engine, params)
    emit(args, result, human)


def to_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


def emit(
    args: argparse.Namespace, data: Any, human: Callable[[Any], None] | None = None, *, stream: TextIO | None = None
) -> None:
    """Print a command's result: JSON with `--json`, else `human(data)` (or `key: value` lines)."""
    if getattr(args, "json", False):
        print(to_json(data), file=stream or sys.stdout)
    elif human is not None:
        human(data)
    else:
        print_fields(data, stream=stream)


def print_fields(data: dict[str, Any], *, stream: TextIO | None = None) -> None:
    """The plain printer: one `key: value` line per field, nested values as compact JSON."""
    for key, value in data.items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value
        print(f"{key}: {shown}", file=stream or sys.stdout)


def fail(args: argparse.Namespace, message: str, code: int) -> None:
    """An error, on stderr, in the same style as the command's output."""
    if getattr(args, "json", False):
        print(to_json({"error": message, "code": code}), file=sys.stderr)
    else:
        print(f"error: {message}", file=sys.stderr)


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)
