"""Per-client set-up: the exact snippet each MCP client needs, and installing it into its config file.

HTTP clients get the URL and their own bearer token; Claude Desktop gets a stdio entry (it only launches
commands). Installing merges one entry into the client's JSON file, after copying the file to a
timestamped backup; a file that is not plain JSON is left untouched. A file that holds a token is left
0600 (and the result says when that narrowed it); a config that is a symbolic link stays one, and the
file it points to is replaced atomically in its own folder.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
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
    config_dir: Path | None = None  # the settings folder a stdio launch must read (None: leave it unset)


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
    inputs.append(
        {"type": "promptString", "id": VSCODE_INPUT, "description": "Hindsight Desktop token", "password": True}
    )
    return {"inputs": inputs}


def _stdio_entry(t: Target) -> dict[str, Any]:
    env = {"HINDSIGHT_DATA_DIR": str(t.data_dir), "HINDSIGHT_CLIENT": t.client}
    if t.config_dir is not None:
        # Named always, not only when it differs from the default: the client launches the command with its
        # own environment (another XDG_CONFIG_HOME, no HINDSIGHT_CONFIG_DIR), where "the default" may be
        # another folder than the app's, and the stdio server would then run with other settings.
        env["HINDSIGHT_CONFIG_DIR"] = str(t.config_dir)
    return {"command": t.command[0], "args": [*t.command[1:], "mcp"], "env": env}


KINDS: dict[str, ClientKind] = {
    k.key: k
    for k in (
        ClientKind(
            "claude-code",
            "Claude Code",
            False,
            "mcpServers",
            lambda t: {"type": "http", "url": t.url, "headers": _bearer(t)},
            lambda: [],
            "run the command (user scope), or put the JSON in a project's .mcp.json",
        ),
        ClientKind(
            "claude-desktop",
            "Claude Desktop",
            True,
            "mcpServers",
            _stdio_entry,
            _claude_desktop_paths,
            "claude_desktop_config.json: macOS ~/Library/Application Support/Claude/; Windows "
            "%APPDATA%\\Claude\\ and, for the Microsoft Store build, "
            "%LOCALAPPDATA%\\Packages\\Claude_<id>\\LocalCache\\Roaming\\Claude\\",
        ),
        ClientKind(
            "cursor",
            "Cursor",
            False,
            "mcpServers",
            lambda t: {"url": t.url, "headers": _bearer(t)},
            lambda: [_home(".cursor", "mcp.json")],
            "~/.cursor/mcp.json",
        ),
        ClientKind(
            "vscode",
            "VS Code",
            False,
            "servers",
            lambda t: {"type": "http", "url": t.url, "headers": {"Authorization": f"Bearer ${{input:{VSCODE_INPUT}}}"}},
            _vscode_paths,
            "your user mcp.json (Command Palette: MCP: Open User Configuration) or "
            ".vscode/mcp.json; VS Code asks for the token once and keeps it in its secret storage",
            extra=_vscode_inputs,
        ),
        ClientKind(
            "windsurf",
            "Windsurf",
            False,
            "mcpServers",
            lambda t: {"serverUrl": t.url, "headers": _bearer(t)},
            lambda: [_home(".codeium", "windsurf", "mcp_config.json")],
            "~/.codeium/windsurf/mcp_config.json",
        ),
        ClientKind(
            "zed",
            "Zed",
            False,
            "context_servers",
            lambda t: {"url": t.url, "headers": _bearer(t)},
            lambda: [_home(".config", "zed", "settings.json")],
            "Zed's settings.json",
        ),
        ClientKind(
            "lmstudio",
            "LM Studio",
            False,
            "mcpServers",
            lambda t: {"url": t.url, "headers": _bearer(t)},
            lambda: [_home(".lmstudio", "mcp.json")],
            "~/.lmstudio/mcp.json",
        ),
    )
}


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
    return [
        "claude",
        "mcp",
        "add",
        "--transport",
        "http",
        "--header",
        f"Authorization: Bearer {t.token}",
        "--scope",
        "user",
        SERVER_KEY,
        t.url,
    ]


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


@dataclass(frozen=True)
class Installed:
    """One config file written: `path` as the client names it (a symbolic link stays one: `written` is
    the file it points to, updated in place), the backup of what was there, and the mode the file had
    when it was narrowed to 0600 because it now holds a token. Reads as `path` (str, os.fspath)."""

    path: Path
    written: Path
    backup: Path | None = None
    narrowed_from: int | None = None

    def __fspath__(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return str(self.path)

    @property
    def note(self) -> str | None:
        """What a person should hear beyond "updated": the mode change, and a link followed."""
        parts = []
        if self.written != self.path:
            parts.append(f"{self.path} is a link: updated the file it points to, {self.written}")
        if self.narrowed_from is not None:
            parts.append(
                f"{self.written} had mode {self.narrowed_from:o}; it holds the bearer token, so it is "
                f"now {PRIVATE_MODE:o} (only you can read it)"
            )
        return "; ".join(parts) or None


PRIVATE_MODE = 0o600


def install(k: ClientKind, t: Target) -> list[Installed]:
    """Merge the entry into each config file of this client; returns the files written."""
    if k.key == "claude-code":
        _install_claude_code(t)
        return []
    paths = k.paths()
    if not paths:
        raise HindsightError(f"no {k.label} config file location is known on this system; paste the snippet")
    return [_merge_into(path, k, t) for path in paths]


def _install_claude_code(t: Target) -> None:
    claude = shutil.which("claude")
    if claude is None:
        raise HindsightError(
            "the claude command is not on PATH; run the command from "
            "`hindsight-desktop clients config claude-code` yourself"
        )
    # Replace an earlier entry so a rotated token takes over; a missing entry is fine.
    subprocess.run([claude, "mcp", "remove", "--scope", "user", SERVER_KEY], capture_output=True, check=False)
    done = subprocess.run([claude, *claude_code_command(t)[1:]], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise HindsightError(f"claude mcp add failed: {done.stderr.strip() or done.stdout.strip()}")


def _merge_into(path: Path, k: ClientKind, t: Target) -> Installed:
    real = _real_file(path)
    data = _read_config(real)
    servers = data.get(k.container)
    if servers is None:
        servers = data[k.container] = {}
    if not isinstance(servers, dict):
        raise HindsightError(f"{path}: {k.container!r} is not a JSON object; not touching it")
    servers[SERVER_KEY] = k.entry(t)
    if k.extra is not None:
        data.update(k.extra(data))
    text = json.dumps(data, indent=2) + "\n"
    backup = _backup(path, real) if real.exists() else None
    holds_token = t.token is not None and t.token != "" and t.token in text
    narrowed = _write_atomically(real, text, private=holds_token)
    return Installed(path, real, backup, narrowed)


def _real_file(path: Path) -> Path:
    """The file to write: `path`, or the file a symbolic link at `path` points to (a link that a
    dotfiles manager keeps stays a link). Anything but a regular file there is refused."""
    real = Path(os.path.realpath(path)) if path.is_symlink() else path
    if real.exists() and not real.is_file():
        raise HindsightError(f"{path} is not a regular file ({real}); not touching it: paste the snippet by hand")
    return real


def _backup(path: Path, real: Path) -> Path:
    """A timestamped copy beside the config as the client names it, private to the user: the old file
    may hold an older token."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.backup-{stamp}")
    fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), PRIVATE_MODE)
    with os.fdopen(fd, "wb") as handle, open(real, "rb") as original:
        shutil.copyfileobj(original, handle)
    info = real.stat()
    os.utime(backup, ns=(info.st_atime_ns, info.st_mtime_ns))
    return backup


def _write_atomically(path: Path, text: str, *, private: bool) -> int | None:
    """Replace `path` with `text` through a temporary file in its own folder (so the rename is atomic).
    A file that holds a token ends up 0600; any other keeps the mode it had (new ones are 0600).
    Returns the old mode when a token file was narrowed, else None."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    mode = PRIVATE_MODE if private or old is None else old
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")  # mkstemp creates it 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode != PRIVATE_MODE:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return old if private and old is not None and old != PRIVATE_MODE and os.name == "posix" else None


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
