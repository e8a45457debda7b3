"""The embedding-model commands: `model show|use|reembed`. The work is done by core/model through the engine."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from hindsight_desktop.cli.command import Command
from hindsight_desktop.cli.output import emit, on_engine, open_engine

if TYPE_CHECKING:  # imported when a command runs, so --help stays quick
    from hindsight_desktop.core.engine import MemoryEngine


def _show(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: engine.model_status(), human=_print_model)


def _use_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", type=Path, help="the GGUF file of the embedding model")
    p.add_argument("--later", action="store_true", help="only start the switch; re-embed with `model reembed`")


def _use(args: argparse.Namespace) -> None:
    with open_engine(args) as engine:
        result = engine.use_model(args.path)
        if not args.later and result["switching"]:
            result = _reembed_now(engine, args)
    emit(args, result, human=_print_model)


def _reembed(args: argparse.Namespace) -> None:
    on_engine(args, lambda engine: _reembed_now(engine, args), human=_print_model)


def _reembed_now(engine: MemoryEngine, args: argparse.Namespace) -> dict[str, Any]:
    """Re-embed in the foreground; the first Ctrl-C asks for a stop at the next batch boundary."""
    stop = {"asked": False}

    def ask_stop(signum: int, frame: FrameType | None) -> None:
        stop["asked"] = True
        print("\nstopping after this batch; `hindsight-desktop model reembed` continues", file=sys.stderr)

    def show(done: int, total: int) -> None:
        if not args.json:
            print(f"\rre-embedding {done}/{total}", end="", file=sys.stderr, flush=True)

    previous = signal.signal(signal.SIGINT, ask_stop)
    try:
        result = engine.reembed(progress=show, should_stop=lambda: stop["asked"])
    finally:
        signal.signal(signal.SIGINT, previous)
        if not args.json:
            print(file=sys.stderr)
    return result


def _print_model(result: dict[str, Any]) -> None:
    active = result.get("active") or {}
    print(f"model in use: {active.get('model_id')} ({active.get('dim')} dimensions) {active.get('path') or ''}")
    languages = result.get("languages")
    if languages:
        found = ", ".join(f"{script} {share:.0%}" for script, share in languages["paraphrases_found"].items())
        covered = "covers Chinese and English" if languages["covers_chinese"] else "English only (weak in Chinese)"
        print(f"languages: {covered}; probe paraphrases found: {found}")
    target = result.get("target")
    if target:
        print(f"switching to: {target['model_id']} ({target['dim']} dimensions) {target.get('path') or ''}")
        print(f"re-embedded: {result['done']} of {result['total']} memories")
    if "reembedded" in result:
        print(f"this run: {result['reembedded']} memories in {result['seconds']} s ({result['status']})")


COMMANDS = (
    Command(
        "model",
        "the embedding model: show it, switch it, finish a switch",
        subcommands=(
            Command("show", "the model in use and any switch in progress", _show),
            Command("use", "switch to another GGUF embedding model and re-embed every memory", _use, _use_arguments),
            Command("reembed", "continue (or finish) a model switch; Ctrl-C stops at the next batch", _reembed),
        ),
    ),
)
