"""What the Diagnose dialog offers for each finding: a button that does the fix in the app, and the words
that say so, in place of the doctor's command-line advice (which stays in the copied report).

The doctor is shared with the command line, so its fixes name commands. Here each finding is matched by
its name (and whether it passed) to the app's own way of doing the same thing. What the app cannot do
(install system packages, which needs an administrator; change a path another account owns) is shown
as the exact command, with a button that copies it. Any other advice is said in plain words, its
commands put as the app's places (in_app_words.py), so no finding tells the person to type one of ours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hindsight_desktop.app.in_app_words import has_command, in_app

# What a button does; the dialog carries them out.
SETTING = "setting"  # open Settings at a field (arg: the setting's name)
TAB = "tab"  # open a Settings tab (arg: its title)
RESTART_SERVER = "restart-server"
RESTORE_KEY = "restore-key"
OPEN_LOG_FOLDER = "open-log-folder"
OPEN_DATA_FOLDER = "open-data-folder"
COPY = "copy"  # put arg on the clipboard
INSTALL_CLIENT = "install-client"  # arg: the client kind's key
MAINTAIN = "maintain"  # run maintenance now (its repair pass re-indexes)
SAY = "say"  # words only, no button: what to do is outside the app (reinstall, a drive to connect)

_COMMAND = re.compile(r"(sudo [a-z]+ (?:install|-S)(?: [A-Za-z0-9.+_-]+)+)")
_CHMOD = re.compile(r"`?(chmod [^`]+?)`?(?: \(|$)")


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
    found = _named_fixes(name, fix, kinds or {})
    if not any(f.words for f in found) and has_command(fix):  # advice nobody reworded: said with the app's places
        found.append(Fix("", SAY, words=_sentence(in_app(fix))))
    return found


def _named_fixes(name: str, fix: str, kinds: dict[str, str]) -> list[Fix]:
    """The fixes for a finding by its name; without words, the doctor's own advice is shown."""
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
        return _database_fixes(fix)
    if name == "indexes":
        if "model use" in fix:
            return [
                Fix(
                    "Choose the model…",
                    SETTING,
                    "embedding_model",
                    "Choose the model again in Settings, Memory tab: its vectors are made anew.",
                )
            ]
        return [
            Fix(
                "Run maintenance now",
                MAINTAIN,
                words="Run maintenance: its repair pass re-indexes what is missing and drops orphan rows.",
            )
        ]
    if name == "sqlite-vec":
        return [
            Fix("", SAY, words="Reinstall Hindsight Desktop: its sqlite-vec library is missing or damaged."),
            Fix("Open log folder", OPEN_LOG_FOLDER),
        ]
    if name == "data dir":
        return [Fix("", SAY, words=_sentence(fix.replace(" (or --data-dir)", "")))]
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
    if name in ("file modes", "keyring") and (chmod := _CHMOD.search(fix)):
        return [
            Fix(
                "Copy the command",
                COPY,
                chmod.group(1),
                "The app could not make it private itself (it may belong to another account): run this in a "
                f"terminal: {chmod.group(1)}",
            )
        ]
    if name == "keyring":
        return [Fix("Open the Clients tab", TAB, "Clients", "Unlock the desktop's keyring, then check again.")]
    if name == "client configs" and "clients install" in fix:
        return [Fix("Open the Clients tab", TAB, "Clients", "Set an assistant up in Settings → Clients.")]
    if name.startswith(("client ", "tools/list ")):
        return _client_fixes(name, fix, kinds)
    if name.startswith("sync"):
        return _sync_fixes(name, fix)
    return []


def _database_fixes(fix: str) -> list[Fix]:
    if "export" in fix:  # the rescue: what can be read leaves by an export, comes back by an import
        return [
            Fix(
                "Open the data folder",
                OPEN_DATA_FOLDER,
                words="Export what can still be read (timeline window, Export), move the memory file aside, "
                "then import the export.",
            ),
            Fix("Open log folder", OPEN_LOG_FOLDER),
        ]
    if not has_command(fix) and "upgrade" in fix.lower():  # a newer version wrote it: nothing in the folder helps
        return [Fix("", SAY, words=_sentence(fix))]
    return [Fix("Open the data folder", OPEN_DATA_FOLDER, words=_sentence(in_app(fix)))]


def _sync_fixes(name: str, fix: str) -> list[Fix]:
    tab = "Open the Sync tab"
    if name == "sync" and "sync setup" in fix:
        return [Fix(tab, TAB, "Sync", "To sync with another computer, set it up in Settings → Sync.")]
    if name == "sync":
        return [Fix(tab, TAB, "Sync", "The Sync tab shows the sync state."), Fix("Open log folder", OPEN_LOG_FOLDER)]
    if name == "sync devices":
        return [
            Fix(
                tab,
                TAB,
                "Sync",
                "Start Hindsight Desktop on that device; if it is gone for good, remove it in Settings → Sync "
                "(“Remove device…”) so the folder can be pruned.",
            )
        ]
    if fix.startswith("run `hindsight-desktop sync now`"):
        return [Fix(tab, TAB, "Sync", "Sync now from the Sync tab, or wait for the next sync.")]
    if not has_command(fix):
        return [Fix(tab, TAB, "Sync")]  # the doctor's words say it (connect the drive, update the app)
    return [Fix(tab, TAB, "Sync", _sentence(in_app(fix)))]


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")) if text else text


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
