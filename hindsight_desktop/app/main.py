"""Start the desktop app: one instance, the tray first, the memory opened in the background.

Set HINDSIGHT_APP_PROBE=1 to print start-up timestamps (tray ready, memory ready) on stdout and quit
once the memory is open: `bench/app_startup.py` measures start-up that way.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from hindsight_desktop.app.collector import MainThreadCollector, settle_collector
from hindsight_desktop.app.icons import app_icon
from hindsight_desktop.app.instance import SingleInstance
from hindsight_desktop.app.shell import Shell
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.app.theme import ThemeFollower
from hindsight_desktop.config import Settings
from hindsight_desktop.core.errors import InvalidInput

PROBE_ENV = "HINDSIGHT_APP_PROBE"


def _settings(paths: AppPaths) -> Settings:
    try:
        return paths.load_settings()
    except InvalidInput as exc:  # a broken file must not keep the app from starting
        print(f"warning: {exc}; using the defaults", file=sys.stderr)
        return Settings()


def _probe(shell: Shell, app: QApplication) -> None:
    print(f"tray-ready {time.time():.4f}", flush=True)

    def opened() -> None:
        print(f"memory-ready {time.time():.4f} state={shell.backend.state}", flush=True)
        QTimer.singleShot(0, app.quit)

    shell.backend.ready.connect(opened)
    shell.backend.state_changed.connect(lambda s: s == "error" and not shell.backend.is_ready and app.quit())


def run(
    argv: list[str] | None = None, *, config_dir: Path | None = None, data_dir: Path | None = None, **shell_options: Any
) -> int:
    """Run the app until Quit. Returns the exit code (0 also when another instance was asked to show)."""
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("Hindsight Desktop")
    app.setOrganizationName("hindsight-desktop")
    app.setDesktopFileName("hindsight-desktop")
    app.setWindowIcon(app_icon())
    paths = AppPaths.default(config_dir, data_dir)
    instance = SingleInstance(paths.instance_key())
    if not instance.claim():
        print("Hindsight Desktop is already running; its window was brought forward.", file=sys.stderr)
        return 0
    collector = MainThreadCollector(app)  # before any worker thread starts (collector.py says why)
    collector.start()
    settings = _settings(paths)
    shell = Shell(paths, settings, **shell_options)
    shell.theme = ThemeFollower(settings.appearance, app)  # light or dark before the first window shows
    shell.theme.changed.connect(shell.tray.redraw)  # the panel may have turned dark or light
    instance.activated.connect(shell.open_timeline)
    shell.backend.ready.connect(settle_collector)
    shell.start()
    if os.environ.get(PROBE_ENV):
        _probe(shell, app)
    try:
        return app.exec()
    finally:
        shell.shutdown()
        instance.close()
        collector.stop()


def has_display() -> bool:
    """False on a Linux box with no graphical session, where Qt would abort instead of failing politely."""
    if sys.platform in ("win32", "darwin") or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def start_from_cli(parser: Any) -> int:
    """`hindsight-desktop` with no command (or `app`): the app, or the help where no screen exists."""
    if not has_display():
        parser.print_help()
        print(
            "\nerror: no graphical session (DISPLAY/WAYLAND_DISPLAY unset), so the desktop app cannot start; "
            "use one of the commands above",
            file=sys.stderr,
        )
        return 1
    return run()
