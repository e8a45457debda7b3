"""The command line: one module per command group, each with its parsers, handlers and printers.

`registry` builds the parser from the registry of groups (`GROUPS`) and runs the one handler the
arguments name; `command` says what a command is; `output` holds what every command shares
(`open_engine`, `on_engine`, `person_call`, `emit`: `--json` means the same everywhere; `person_call` sends a
command that needs the model to the running server through `remote`). The groups: `memory` (add, search, show,
edit, forget, restore, link, stats), `serve` (serve, mcp, app), `clients`, `portable` (export, import),
`maintenance`, `model` and `doctor` (doctor, why; its install checks are in `doctor_checks`).
"""

from hindsight_desktop.cli.registry import build_parser, main

__all__ = ["build_parser", "main"]
