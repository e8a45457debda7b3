"""What the Diagnose dialog offers for each finding: a button that does the fix in the app, and the words
that say so, in place of the doctor's command-line advice (which stays in the copied report).

The doctor is shared with the command line, so its fixes name commands. Here each finding is matched by
its name (and whether it passed) to the app's own way of doing the same thing. The one thing the app
cannot do is install system packages (that needs an administrator): it shows the exact command, with a
button that copies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# What a button does; the dialog carries them out.
SETTING = "setting"  # open Settings at a field (arg: the setting's name)
TAB = "tab"  # open a Settings tab (arg: its title)
RESTART_SERVER = "restart-server"
RESTORE_KEY = "restore-key"
OPEN_LOG_FOLDER = "open-log-folder"
OPEN_DATA_FOLDER = "open-data-folder"
COPY = "copy"  # put arg on the clipboard
INSTALL_CLIENT = "install-client"  # arg: the client kind's key

_COMMAND = re.compile(r"(sudo [a-z]+ (?:install|-S)(?: [A-Za-z0-9.+_-]+)+)")


@dataclass(frozen=True)
class Fix:
    label: str  # the button
    action: str  # one of the names above
    arg: str = ""
    words: str = ""  # what the dialog says the fix is (empty: the button says it all)


def fixes_for(check: dict[str, Any], kinds: dict[str, str] | None = None) -> list[Fix]:
    """The in-app fixes for one finding (none for one that passed, but the log folder is always offered).
    `kinds` maps client labels to their keys (the Clients tab's list)."""
    name, fix = check.get("name", ""), check.get("fix") or ""
    passed = bool(check.get("ok")) and not check.get("skipped")
    if name == "log folder":
        return [Fix("Open log folder", OPEN_LOG_FOLDER)]
    if passed:
        return []
    if name == "http port":
        return [
            Fix(
                "Choose another port…",
                SETTING,
                "http_port",
                "Another program holds the port: choose another one in Settings. The assistants the app "
                "set up are pointed at the new port for you.",
            )
        ]
    if name == "embedding model":
        return [
            Fix(
                "Choose the model…",
                SETTING,
                "embedding_model",
                "Choose the built-in model or another GGUF file in Settings, Memory tab.",
            ),
            Fix("Open log folder", OPEN_LOG_FOLDER),
        ]
    if name in ("database", "client configs") and "key restore" in fix:
        return [Fix("Restore the key…", RESTORE_KEY, words="Type the recovery key shown when encryption was set up.")]
    if name == "database":
        return [
            Fix(
                "Open the data folder",
                OPEN_DATA_FOLDER,
                words="Export what can still be read (timeline window, Export), move the memory file aside, "
                "then import the export.",
            ),
            Fix("Open log folder", OPEN_LOG_FOLDER),
        ]
    if name == "qt libraries":
        command = _COMMAND.search(fix)
        if command is None:
            return []
        return [
            Fix(
                "Copy the command",
                COPY,
                command.group(1),
                f"Install the missing system packages in a terminal (the app cannot, it needs an "
                f"administrator): {command.group(1)}",
            )
        ]
    if name == "keyring":
        return [Fix("Open the Clients tab", TAB, "Clients", "Unlock the desktop's keyring, then check again.")]
    if name.startswith(("client ", "tools/list ")):
        return _client_fixes(name, fix, kinds or {})
    if name.startswith("sync"):
        return [Fix("Open the Sync tab", TAB, "Sync", "Sync now from the Sync tab, or wait for the next sync.")]
    return []


def _client_fixes(name: str, fix: str, kinds: dict[str, str]) -> list[Fix]:
    label = name.split(" ", 1)[1]
    key = kinds.get(label)
    if not fix:  # e.g. a config that is not plain JSON: nothing the app can do there
        return []
    if "not running" in fix or fix.startswith("start `hindsight-desktop`"):
        return [Fix("Restart the MCP server", RESTART_SERVER, words="Start the app's MCP server, then check again.")]
    if key is None:
        return []
    if name.startswith("tools/list ") and "another MCP server" in fix:
        return [
            Fix(f"Install for {label} again", INSTALL_CLIENT, key, f"Another server answered: set {label} up again.")
        ]
    restart = name.startswith("tools/list ")
    words = f"Install the app's entry into {label}'s config" + (", then restart " + label if restart else "") + "."
    fixes = [Fix(f"Install for {label}", INSTALL_CLIENT, key, words)]
    if restart:
        fixes.append(Fix("Restart the MCP server", RESTART_SERVER))
    return fixes
