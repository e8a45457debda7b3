"""After the MCP port changes: point the client configs this app installed at the new address.

Only our own entry (`hindsight` in the client's servers) is changed, and only its address: the file's
text is kept byte for byte except that one URL, and it is replaced atomically (a symbolic link stays
one). An entry whose address is not the app's own loopback address, a file that is not plain JSON, or
a file where the change would touch anything else is left alone and reported, so the person can see
which assistant to set up again. Claude Desktop launches a stdio command and has no port to change.

>>> outcome = repoint("http://127.0.0.1:8766/mcp")                 # doctest: +SKIP
>>> [(c.label, c.path) for c in outcome.updated]                     # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.mcp.client_config import (
    KINDS,
    SERVER_KEY,
    ClientKind,
    Target,
    _home,
    _real_file,
    _write_atomically,
)

# The address the app itself writes (`address`: mcp.http_server's LOOPBACK and MCP_PATH), on any port.
OUR_ADDRESS = re.compile(r"http://127\.0\.0\.1:[0-9]{1,5}/mcp")


@dataclass(frozen=True)
class ConfigFile:
    """One client's config file, as this module reports it."""

    label: str
    path: Path
    why: str = ""  # for a file left alone: what was not recognised


@dataclass
class Outcome:
    updated: list[ConfigFile] = field(default_factory=list)
    left_alone: list[ConfigFile] = field(default_factory=list)


def claude_code_config() -> Path:
    """Where `claude mcp add --scope user` keeps its servers."""
    return _home(".claude.json")


def config_files() -> list[tuple[ClientKind, Path]]:
    """Every config file of an HTTP client the app can install into, on this system."""
    found = []
    for kind in KINDS.values():
        if kind.stdio:
            continue
        paths = [claude_code_config()] if kind.key == "claude-code" else kind.paths()
        found += [(kind, path) for path in paths]
    return found


def url_key(kind: ClientKind) -> str:
    """The entry's key that holds the address (`url`, or Windsurf's `serverUrl`)."""
    marker = "http://marker.invalid/mcp"
    entry = kind.entry(Target(url=marker, token="token", client=kind.key, data_dir=Path(".")))
    return next(key for key, value in entry.items() if value == marker)


def repoint(new_url: str, configs: list[tuple[ClientKind, Path]] | None = None) -> Outcome:
    """Point our entry in each installed config at `new_url`; files without our entry are not touched."""
    outcome = Outcome()
    for kind, path in config_files() if configs is None else configs:
        try:
            changed = _repoint_file(kind, path, new_url)
        except _NotOurs as exc:
            outcome.left_alone.append(ConfigFile(kind.label, path, str(exc)))
        except (OSError, HindsightError) as exc:
            outcome.left_alone.append(ConfigFile(kind.label, path, f"could not be written ({exc})"))
        else:
            if changed:
                outcome.updated.append(ConfigFile(kind.label, path))
    return outcome


class _NotOurs(Exception):
    """The file has a Hindsight entry in a shape this app does not recognise."""


def _repoint_file(kind: ClientKind, path: Path, new_url: str) -> bool:
    if not path.exists():
        return False
    real = _real_file(path)
    text = real.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except ValueError:
        if OUR_ADDRESS.search(text):
            raise _NotOurs("it is not plain JSON (comments?), so it was not changed") from None
        return False
    servers = data.get(kind.container) if isinstance(data, dict) else None
    entry = servers.get(SERVER_KEY) if isinstance(servers, dict) else None
    if entry is None:
        return False  # not installed here
    key = url_key(kind)
    url = entry.get(key) if isinstance(entry, dict) else None
    if url == new_url:
        return False
    if not isinstance(url, str) or not OUR_ADDRESS.fullmatch(url):
        raise _NotOurs(f"its {SERVER_KEY!r} entry has no address of this app's server ({key}: {url!r})")
    new_text = text.replace(json.dumps(url), json.dumps(new_url))
    entry[key] = new_url
    if json.loads(new_text) != data:
        # The old address is written another way (escaped), or also elsewhere in the file.
        raise _NotOurs("the address could not be changed without touching the rest of the file")
    _write_atomically(real, new_text, private=False)  # keeps the file's mode
    return True


def repoint_words(port: int, outcome: Outcome) -> str:
    """What the person reads after a port change: what was updated, what to do next, what was left."""
    lines = [f"The MCP server now uses port {port}."]
    if outcome.updated:
        names = ", ".join(f"{c.label} ({c.path})" for c in outcome.updated)
        lines.append(
            f"Updated to the new address: {names}. Reconnect them: restart each one or reload its MCP servers."
        )
    for config in outcome.left_alone:
        lines.append(
            f"Not changed: {config.label} ({config.path}): {config.why}. Set it up again in Settings → Clients."
        )
    if not outcome.updated and not outcome.left_alone:
        lines.append(
            f"No installed assistant config pointed at the old port. An assistant set up by hand needs the "
            f"new address: {address(port)}"
        )
    return "\n".join(lines)


def address(port: int) -> str:
    """The server's address on `port`, as the configs hold it."""
    from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH

    return f"http://{LOOPBACK}:{port}{MCP_PATH}"
