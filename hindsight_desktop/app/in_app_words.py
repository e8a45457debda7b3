"""Command-line advice in a message, said as the app's own place to do the same thing.

The core's errors are shared with the command line, so their advice names commands
("run `hindsight-desktop key restore`"). Whatever the app shows (a notification, a dialog's message,
a Settings tab's line) goes through `in_app()`, which puts each quoted `hindsight-desktop …` command
by the button or tab that does it in the app. A command the app has no way to do is left as it is.

>>> in_app("the key is lost: run `hindsight-desktop key restore` with the recovery key")
'the key is lost: use “Enter recovery key” (offered when the app cannot open the memory) with the recovery key'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# (the command's first words, the app's place for it); the first that starts the command wins.
PLACES: tuple[tuple[str, str], ...] = (
    ("key restore", "“Enter recovery key” (offered when the app cannot open the memory)"),
    ("key rekey", "Settings → Privacy → “Change key…”"),
    ("key show", "Settings → Privacy → “Show recovery key”"),
    ("key init", "“Encrypt the memory file” in Settings → Memory"),
    ("key", "Settings → Privacy"),
    ("sync leave", "Settings → Sync → “Stop syncing on this device…”"),
    ("sync now", "Settings → Sync → “Sync now”"),
    ("sync", "Settings → Sync"),
    ("clients", "Settings → Clients"),
    ("model", "Settings → Memory (the embedding model)"),
    ("maintenance", "“Run maintenance now” in the tray menu"),
    ("export", "“Export…” in the timeline window"),
    ("import", "“Import…” in the timeline window"),
    ("restore", "“Restore” in the timeline window (status filter: Archived)"),
    ("search", "the timeline window's search"),
    ("why", "the timeline window's search (the why panel)"),
    ("doctor", "Settings → General → “Diagnose…”"),
    ("stats", "the Stats window"),
    ("serve", "the app"),
    ("", "the app"),  # bare `hindsight-desktop`
)
# A quoted command, with or without the program's name (the core sometimes writes just `key rekey`),
# and the verb before it ("run", "with"), which the place's words replace.
_QUOTED = re.compile(r"(?:\b(?P<verb>run|use|with|try)\s+)?`(?P<named>hindsight-desktop\b ?)?(?P<command>[^`]*)`")
_WORDS = {prefix.split(" ")[0] for prefix, _ in PLACES if prefix}


def place_for(command: str, here: Mapping[str, str] | None = None) -> str | None:
    """The app's place for a command line (without the program name), or None when it has none."""
    words = command.strip()
    for prefix, place in (*(here or {}).items(), *PLACES):
        if words == prefix or words.startswith(prefix + " "):
            return place
    return None


def in_app(text: str, here: Mapping[str, str] | None = None) -> str:
    """`text` with each quoted command the app can do put as its place. `here` names places nearer the
    message (the key dialog: "key restore" is its own button) and is tried first."""

    def swap(match: re.Match[str]) -> str:
        command = match.group("command")
        if not match.group("named") and command.split(" ")[0] not in _WORDS:
            return match.group(0)  # some other program's command (`chmod 600 …`): not ours to rename
        place = place_for(command, here)
        if place is None:
            return match.group(0)
        verb = match.group("verb")
        return ("with " if verb == "with" else "use " if verb else "") + place

    return _QUOTED.sub(swap, text)


def has_command(text: str) -> bool:
    """Whether `text` still tells the person to type one of our commands."""
    return "hindsight-desktop " in text or any(f"`{word}" in text for word in _WORDS)
