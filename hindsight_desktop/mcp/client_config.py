"""Per-client set-up: the exact snippet each MCP client needs, and installing it into its config file.

HTTP clients get the URL and their own bearer token; Claude Desktop gets a stdio entry (it only launches
commands). Installing merges one entry into the client's JSON file, after copying the file to a
timestamped backup; a file that is not plain JSON is left untouched.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hindsight_desktop.core.errors import HindsightError, InvalidInput

SERVER_KEY = "hindsight"  # the entry's name inside each client's config
VSCODE_INPUT = "hindsight-token"


@dataclass
class Target:
    """What a snippet needs: where the server is, who the client is, and how to launch stdio."""

    url: str
    token: str | None  # None for stdio clients
    client: str
    data_dir: Path
    command: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ClientKind:
    key: str
    label: str
    stdio: bool
    container: str  # the top-level key that holds servers
    entry: Callable[[Target], dict[str, Any]]
    paths: Callable[[], list[Path]]  # config files to install into, for this OS
    where: str  # where the snippet goes, for people
    extra: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # more top-level keys (VS Code inputs)


def launch_command() -> list[str]:
    """An absolute command that starts this install's CLI (launchers often lack the user's PATH)."""
    appimage = os.environ.get("APPIMAGE")
    if getattr(sys, "frozen", False) and appimage:
        # An AppImage runs from a new temporary mount each time; only the image's own path lasts.
        return [appimage]
    scripts = Path(sys.executable).parent
    for name in ("hindsight-desktop", "hindsight-desktop.exe"):
        if (scripts / name).is_file():
            return [str(scripts / name)]
    return [sys.executable, "-m", "hindsight_desktop"]


def _bearer(t: Target) -> dict[str, str]:
    return {"Authorization": f"Bearer {t.token}"}


def _home(*parts: str) -> Path:
    return Path.home().joinpath(*parts)


def _claude_desktop_paths() -> list[Path]:
    if sys.platform == "darwin":
        return [_home("Library", "Application Support", "Claude", "claude_desktop_config.json")]
    if sys.platform == "win32":
        found = [Path(os.environ.get("APPDATA", _home("AppData", "Roaming"))) / "Claude" / "claude_desktop_config.json"]
        packages = Path(os.environ.get("LOCALAPPDATA", _home("AppData", "Local"))) / "Packages"
        # The Microsoft Store build reads its own copy inside the packaged app's LocalCache.
        found += sorted(packages.glob("Claude_*/LocalCache/Roaming/Claude/claude_desktop_config.json"))
        return found
    return [_home(".config", "Claude", "claude_desktop_config.json")]


def _vscode_paths() -> list[Path]:
    if sys.platform == "darwin":
        return [_home("Library", "Application Support", "Code", "User", "mcp.json")]
    if sys.platform == "win32":
        return [Path(os.environ.get("APPDATA", _home("AppData", "Roaming"))) / "Code" / "User" / "mcp.json"]
    return [_home(".config", "Code", "User", "mcp.json")]


def _vscode_inputs(data: dict[str, Any]) -> dict[str, Any]:
    inputs = [i for i in data.get("inputs", []) if not (isinstance(i, dict) and i.get("id") == VSCODE_INPUT)]
    inputs.append({"type": "promptString", "id": VSCODE_INPUT, "description": "Hindsight Desktop token",
                   "password": True})
    return {"inputs": inputs}


def _stdio_entry(t: Target) -> dict[str, Any]:
    return {"command": t.command[0], "args": [*t.command[1:], "mcp"],
            "env": {"HINDSIGHT_DATA_DIR": str(t.data_dir), "HINDSIGHT_CLIENT": t.client}}


KINDS: dict[str, ClientKind] = {k.key: k for k in (
    ClientKind("claude-code", "Claude Code", False, "mcpServers",
               lambda t: {"type": "http", "url": t.url, "headers": _bearer(t)},
               lambda: [], "run the command (user scope), or put the JSON in a project's .mcp.json"),
    ClientKind("claude-desktop", "Claude Desktop", True, "mcpServers", _stdio_entry, _claude_desktop_paths,
               "claude_desktop_config.json: macOS ~/Library/Application Support/Claude/; Windows "
               "%APPDATA%\\Claude\\ and, for the Microsoft Store build, "
               "%LOCALAPPDATA%\\Packages\\Claude_<id>\\LocalCache\\Roaming\\Claude\\"),
    ClientKind("cursor", "Cursor", False, "mcpServers",
               lambda t: {"url": t.url, "headers": _bearer(t)},
               lambda: [_home(".cursor", "mcp.json")], "~/.cursor/mcp.json"),
    ClientKind("vscode", "VS Code", False, "servers",
               lambda t: {"type": "http", "url": t.url,
                          "headers": {"Authorization": f"Bearer ${{input:{VSCODE_INPUT}}}"}},
               _vscode_paths, "your user mcp.json (Command Palette: MCP: Open User Configuration) or "
               ".vscode/mcp.json; VS Code asks for the token once and keeps it in its secret storage",
               extra=_vscode_inputs),
    ClientKind("windsurf", "Windsurf", False, "mcpServers",
               lambda t: {"serverUrl": t.url, "headers": _bearer(t)},
               lambda: [_home(".codeium", "windsurf", "mcp_config.json")], "~/.codeium/windsurf/mcp_config.json"),
    ClientKind("zed", "Zed", False, "context_servers",
               lambda t: {"url": t.url, "headers": _bearer(t)},
               lambda: [_home(".config", "zed", "settings.json")], "Zed's settings.json"),
    ClientKind("lmstudio", "LM Studio", False, "mcpServers",
               lambda t: {"url": t.url, "headers": _bearer(t)},
               lambda: [_home(".lmstudio", "mcp.json")], "~/.lmstudio/mcp.json"),
)}


def kind(key: str) -> ClientKind:
    if key not in KINDS:
        raise InvalidInput(f"unknown client {key!r}; choose one of {', '.join(KINDS)}")
    return KINDS[key]


def fragment(k: ClientKind, t: Target) -> dict[str, Any]:
    """The JSON to merge into the client's config file."""
    data: dict[str, Any] = {k.container: {SERVER_KEY: k.entry(t)}}
    if k.extra is not None:
        data.update(k.extra({}))
    return data


def claude_code_command(t: Target) -> list[str]:
    # Options go before the server name: claude's parser stops reading options after it.
    return ["claude", "mcp", "add", "--transport", "http", "--header", f"Authorization: Bearer {t.token}",
            "--scope", "user", SERVER_KEY, t.url]


def snippet(k: ClientKind, t: Target) -> tuple[str, str]:
    """(what to paste, where it goes): the first is exactly the JSON or command, nothing else."""
    text = json.dumps(fragment(k, t), indent=2)
    if k.key == "claude-code":
        note = f"{k.label}: run this command; or, for one project, put this in its .mcp.json:\n{text}"
        return shlex.join(claude_code_command(t)), note
    note = f"{k.label}: merge this into {k.where}"
    if k.key == "vscode":
        note += f"\nWhen VS Code asks for the Hindsight Desktop token, paste: {t.token}"
    return text, note


def install(k: ClientKind, t: Target) -> list[Path]:
    """Merge the entry into each config file of this client; returns the files written."""
    if k.key == "claude-code":
        _install_claude_code(t)
        return []
    paths = k.paths()
    if not paths:
        raise HindsightError(f"no {k.label} config file location is known on this system; paste the snippet")
    for path in paths:
        _merge_into(path, k, t)
    return paths


def _install_claude_code(t: Target) -> None:
    claude = shutil.which("claude")
    if claude is None:
        raise HindsightError("the claude command is not on PATH; run the command from "
                             "`hindsight-desktop clients config claude-code` yourself")
    # Replace an earlier entry so a rotated token takes over; a missing entry is fine.
    subprocess.run([claude, "mcp", "remove", "--scope", "user", SERVER_KEY], capture_output=True, check=False)
    done = subprocess.run([claude, *claude_code_command(t)[1:]], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise HindsightError(f"claude mcp add failed: {done.stderr.strip() or done.stdout.strip()}")


def _merge_into(path: Path, k: ClientKind, t: Target) -> None:
    data = _read_config(path)
    servers = data.get(k.container)
    if servers is None:
        servers = data[k.container] = {}
    if not isinstance(servers, dict):
        raise HindsightError(f"{path}: {k.container!r} is not a JSON object; not touching it")
    servers[SERVER_KEY] = k.entry(t)
    if k.extra is not None:
        data.update(k.extra(data))
    if path.exists():
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        shutil.copy2(path, path.with_name(f"{path.name}.backup-{stamp}"))
    _write_json(path, data)


def _read_config(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise HindsightError(f"{path} is not plain JSON ({exc}); not touching it: paste the snippet by hand") from exc
    if not isinstance(data, dict):
        raise HindsightError(f"{path} does not hold a JSON object; not touching it")
    return data


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Atomic write; a new file is private to the user (it may hold a token), an old one keeps its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
