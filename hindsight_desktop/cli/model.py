"""The embedding-model commands of the CLI: `model show|use|reembed`. Argument parsing and printing only;
the work is done by core/model through the engine."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from hindsight_desktop.config import default_data_dir, load_settings

if TYPE_CHECKING:  # imported when a command runs, so --help stays quick
    from hindsight_desktop.core.engine import MemoryEngine

COMMANDS = ("model",)


def add_parsers(sub: Any) -> None:
    """Add `model` and its subcommands to the CLI's subparsers."""
    model = sub.add_parser("model", help="the embedding model: show it, switch it, finish a switch")
    msub = model.add_subparsers(dest="model_command", metavar="{show,use,reembed}")
    msub.required = True
    msub.add_parser("show", help="the model in use and any switch in progress")
    use = msub.add_parser("use", help="switch to another GGUF embedding model and re-embed every memory")
    use.add_argument("path", type=Path)
    use.add_argument("--later", action="store_true", help="only start the switch; re-embed with `model reembed`")
    msub.add_parser("reembed", help="continue (or finish) a model switch; Ctrl-C stops at the next batch")


def run(args: argparse.Namespace) -> int:
    from hindsight_desktop.core.engine import MemoryEngine

    with MemoryEngine(default_data_dir(), settings=load_settings()) as engine:
        return _model(engine, args)


def _model(engine: MemoryEngine, args: argparse.Namespace) -> int:
    if args.model_command == "show":
        result = engine.model_status()
    elif args.model_command == "use":
        result = engine.use_model(args.path)
        if not args.later and result["switching"]:
            result = _reembed(engine, args)
    else:
        result = _reembed(engine, args)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        _print_model(result)
    return 0


def _reembed(engine: MemoryEngine, args: argparse.Namespace) -> dict[str, Any]:
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
