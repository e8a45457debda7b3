"""Start at login: an XDG autostart entry (Linux), a LaunchAgent (macOS), or the Run key (Windows).

Each function takes the home folder (and, for Linux, the XDG config folder) so tests can point them at
a temporary directory; the Windows registry is used only on Windows.
"""

from __future__ import annotations

import contextlib
import os
import plistlib
import shlex
import sys
from pathlib import Path

from hindsight_desktop.mcp.client_config import launch_command

APP_ID = "hindsight-desktop"
LABEL = "io.github.hindsight-desktop"
RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
RUN_VALUE = "Hindsight Desktop"


def entry_path(platform: str = sys.platform, home: Path | None = None) -> Path | None:
    """Where the start-at-login entry lives; None on Windows (it is a registry value)."""
    home = home or Path.home()
    if platform == "win32":
        return None
    if platform == "darwin":
        return home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return config / "autostart" / f"{APP_ID}.desktop"


def desktop_entry(command: list[str]) -> str:
    return "\n".join(
        [
            "[Desktop Entry]",
            "Type=Application",
            "Name=Hindsight Desktop",
            "Comment=Private long-term memory for your AI assistants",
            f"Exec={shlex.join(command)}",
            f"Icon={APP_ID}",
            "Terminal=false",
            "X-GNOME-Autostart-enabled=true",
            "",
        ]
    )


def launch_agent(command: list[str]) -> bytes:
    return plistlib.dumps(
        {"Label": LABEL, "ProgramArguments": command, "RunAtLoad": True, "ProcessType": "Interactive"}
    )


def is_enabled(platform: str = sys.platform, home: Path | None = None) -> bool:
    if platform == "win32":
        import winreg  # type: ignore[import-not-found]

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                winreg.QueryValueEx(key, RUN_VALUE)
            return True
        except OSError:
            return False
    path = entry_path(platform, home)
    return path is not None and path.is_file()


def set_enabled(
    enabled: bool, platform: str = sys.platform, home: Path | None = None, command: list[str] | None = None
) -> Path | None:
    """Add or remove the entry; returns the file written (None for the registry or when removed)."""
    command = command or launch_command()  # an absolute path: login sessions lack the user's PATH
    if platform == "win32":
        _set_run_key(enabled, subprocess_line(command))
        return None
    path = entry_path(platform, home)
    assert path is not None
    if not enabled:
        path.unlink(missing_ok=True)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    if platform == "darwin":
        path.write_bytes(launch_agent(command))
    else:
        path.write_text(desktop_entry(command), encoding="utf-8")
    return path


def subprocess_line(command: list[str]) -> str:
    """A Windows command line (quoted the way CreateProcess parses it)."""
    import subprocess

    return subprocess.list2cmdline(command)


def _set_run_key(enabled: bool, line: str) -> None:  # pragma: no cover - Windows only
    import winreg  # type: ignore[import-not-found]

    with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
        if enabled:
            winreg.SetValueEx(key, RUN_VALUE, 0, winreg.REG_SZ, line)
        else:
            with contextlib.suppress(FileNotFoundError):  # already absent
                winreg.DeleteValue(key, RUN_VALUE)
