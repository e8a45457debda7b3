"""The doctor's check of the system libraries the desktop app needs on Linux.

PySide6 brings Qt itself, but Qt's X11 platform plugin (`libqxcb.so`) links libraries of the system's own
(the xcb utility libraries, xkbcommon, OpenGL). A minimal install often lacks a few, and Qt then stops
with a message naming only one. This check asks the dynamic linker (`ldd`) which of the plugin's
libraries are not found, and names the package that provides each on the detected distribution family.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from hindsight_desktop.core.records import Finding

# Library file → package, per distribution family. Together they cover every library libqxcb.so and
# libQt6XcbQpa.so link beyond Qt itself (README's set-up section lists the same packages).
PACKAGES: dict[str, dict[str, str]] = {
    "debian": {
        "libGL.so.1": "libgl1",
        "libEGL.so.1": "libegl1",
        "libxkbcommon.so.0": "libxkbcommon0",
        "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
        "libxcb-cursor.so.0": "libxcb-cursor0",
        "libxcb-icccm.so.4": "libxcb-icccm4",
        "libxcb-util.so.1": "libxcb-util1",
        "libxcb-image.so.0": "libxcb-image0",
        "libxcb-keysyms.so.1": "libxcb-keysyms1",
        "libxcb-randr.so.0": "libxcb-randr0",
        "libxcb-render-util.so.0": "libxcb-render-util0",
        "libxcb-shm.so.0": "libxcb-shm0",
        "libxcb-sync.so.1": "libxcb-sync1",
        "libxcb-xfixes.so.0": "libxcb-xfixes0",
        "libxcb-render.so.0": "libxcb-render0",
        "libxcb-shape.so.0": "libxcb-shape0",
        "libxcb-xkb.so.1": "libxcb-xkb1",
        "libxcb.so.1": "libxcb1",
        "libX11-xcb.so.1": "libx11-xcb1",
        "libX11.so.6": "libx11-6",
        "libglib-2.0.so.0": "libglib2.0-0",
        "libgthread-2.0.so.0": "libglib2.0-0",
        "libfontconfig.so.1": "libfontconfig1",
        "libfreetype.so.6": "libfreetype6",
        "libdbus-1.so.3": "libdbus-1-3",
    },
    "fedora": {
        "libGL.so.1": "libglvnd-glx",
        "libEGL.so.1": "libglvnd-egl",
        "libxkbcommon.so.0": "libxkbcommon",
        "libxkbcommon-x11.so.0": "libxkbcommon-x11",
        "libxcb-cursor.so.0": "xcb-util-cursor",
        "libxcb-icccm.so.4": "xcb-util-wm",
        "libxcb-util.so.1": "xcb-util",
        "libxcb-image.so.0": "xcb-util-image",
        "libxcb-keysyms.so.1": "xcb-util-keysyms",
        "libxcb-render-util.so.0": "xcb-util-renderutil",
        "libX11-xcb.so.1": "libX11-xcb",
        "libX11.so.6": "libX11",
        "libglib-2.0.so.0": "glib2",
        "libgthread-2.0.so.0": "glib2",
        "libfontconfig.so.1": "fontconfig",
        "libfreetype.so.6": "freetype",
        "libdbus-1.so.3": "dbus-libs",
    },
    "arch": {
        "libGL.so.1": "libglvnd",
        "libEGL.so.1": "libglvnd",
        "libxkbcommon.so.0": "libxkbcommon",
        "libxkbcommon-x11.so.0": "libxkbcommon-x11",
        "libxcb-cursor.so.0": "xcb-util-cursor",
        "libxcb-icccm.so.4": "xcb-util-wm",
        "libxcb-util.so.1": "xcb-util",
        "libxcb-image.so.0": "xcb-util-image",
        "libxcb-keysyms.so.1": "xcb-util-keysyms",
        "libxcb-render-util.so.0": "xcb-util-renderutil",
        "libX11-xcb.so.1": "libx11",
        "libX11.so.6": "libx11",
        "libglib-2.0.so.0": "glib2",
        "libgthread-2.0.so.0": "glib2",
        "libfontconfig.so.1": "fontconfig",
        "libfreetype.so.6": "freetype2",
        "libdbus-1.so.3": "dbus",
    },
}
# The core xcb library and its extensions come in one package on Fedora and Arch.
_XCB_CORE: tuple[str, ...] = ("libxcb.so.1", "libxcb-randr.so.0", "libxcb-shm.so.0", "libxcb-sync.so.1")
_XCB_CORE += ("libxcb-xfixes.so.0", "libxcb-render.so.0", "libxcb-shape.so.0", "libxcb-xkb.so.1")
for _family in ("fedora", "arch"):
    PACKAGES[_family].update(dict.fromkeys(_XCB_CORE, "libxcb"))

INSTALL = {"debian": "sudo apt install", "fedora": "sudo dnf install", "arch": "sudo pacman -S"}
OS_RELEASE = Path("/etc/os-release")


def distro_family(os_release: str) -> str | None:
    """'debian', 'fedora' or 'arch' from the text of /etc/os-release (its ID and ID_LIKE), else None."""
    fields: dict[str, str] = {}
    for line in os_release.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip("\"'")
    names = [fields.get("ID", ""), *fields.get("ID_LIKE", "").split()]
    aliases = {"ubuntu": "debian", "rhel": "fedora", "centos": "fedora", "manjaro": "arch", "endeavouros": "arch"}
    for name in names:
        family = aliases.get(name, name)
        if family in PACKAGES:
            return family
    return None


def not_found(ldd_output: str) -> list[str]:
    """The library names `ldd` reported as "not found", each once, in its order."""
    missing: list[str] = []
    for line in ldd_output.splitlines():
        name, sep, where = line.strip().partition("=>")
        if sep and where.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def xcb_plugin() -> Path | None:
    """PySide6's X11 platform plugin, where it is installed."""
    try:
        import PySide6  # noqa: PLC0415 (only this check needs the package's folder)
    except ImportError:
        return None
    path = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return path if path.is_file() else None


def _ldd(path: Path) -> str:
    ldd = shutil.which("ldd")
    if ldd is None:
        return ""
    return subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=30, check=False).stdout


def _graphical_session() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def missing_packages(missing: list[str], family: str | None) -> list[str]:
    """The packages to install for the missing libraries (the library's own name where unknown)."""
    table = PACKAGES.get(family or "", {})
    packages: list[str] = []
    for lib in missing:
        package = table.get(lib, lib)
        if package not in packages:
            packages.append(package)
    return packages


def check_qt_libraries(
    plugin: Path | None = None, os_release: str | None = None, *, graphical: bool | None = None
) -> Finding:
    """Linux only: whether the system has every library Qt's X11 plugin needs, and what to install if not."""
    name = "qt libraries"
    if not sys.platform.startswith("linux"):
        return Finding(name, True, "checked on Linux only", skipped=True)
    plugin = plugin or xcb_plugin()
    if plugin is None:
        return Finding(name, True, "PySide6's X11 plugin is not installed: nothing to check", skipped=True)
    missing = not_found(_ldd(plugin))
    if not missing:
        return Finding(name, True, "the desktop app's system libraries are all installed")
    if os_release is None:
        os_release = OS_RELEASE.read_text(encoding="utf-8") if OS_RELEASE.is_file() else ""
    family = distro_family(os_release)
    packages = missing_packages(missing, family)
    fix = (
        f"{INSTALL[family]} {' '.join(packages)}"
        if family
        else f"install the packages that provide {', '.join(missing)} (README, Set-up, lists them per distribution)"
    )
    detail = f"missing {', '.join(missing)}: the desktop app cannot open its window"
    data = {"missing": missing, "packages": packages, "family": family}
    if not (_graphical_session() if graphical is None else graphical):
        # The commands work without them; only the app needs them, once a desktop session exists.
        return Finding(name, True, f"no graphical session here; {detail}", fix=fix, skipped=True, data=data)
    return Finding(name, False, detail, fix=fix, data=data)


def uses_xcb() -> bool:
    """Whether Qt will load its X11 plugin here: an X display and no Wayland one, or QT_QPA_PLATFORM=xcb."""
    if not sys.platform.startswith("linux"):
        return False
    chosen = os.environ.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.startswith("xcb")
    return bool(os.environ.get("DISPLAY")) and not os.environ.get("WAYLAND_DISPLAY")


def why_the_app_cannot_start() -> str | None:
    """Before Qt loads: the error to show when the X11 plugin Qt will use lacks system libraries (Qt's own
    message names only one of them), with the command that installs them all; None when it can start."""
    if not uses_xcb():
        return None
    finding = check_qt_libraries(graphical=True)
    if finding.ok:
        return None
    missing = ", ".join(finding.data.get("missing", []))
    return (
        f"the desktop app cannot open its window: this system lacks {missing}. "
        f"Install them with: {finding.fix}, then start the app again. "
        "The commands (serve, mcp, search, …) work without them."
    )
