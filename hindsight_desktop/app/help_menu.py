"""The timeline window's Help button (the window has no menu bar): the keyboard shortcuts sheet and
the log folder, the two things a person looks for when something is unclear or goes wrong."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolBar, QToolButton, QWidget

from hindsight_desktop.app.tray import open_log_folder


def attach_help(window: QWidget, bar: QToolBar, shortcuts: QAction) -> QMenu:
    """A "Help" button at the end of `bar` whose menu holds `shortcuts` (the sheet's own action, so
    it shows its F1) and "Open log folder"."""
    menu = QMenu("Help", window)
    menu.addAction(shortcuts)
    logs = QAction("Open log folder", menu)
    logs.setToolTip("Show the folder of the app's and the MCP server's log files")
    logs.triggered.connect(lambda _checked=False: open_log_folder())
    menu.addAction(logs)
    button = QToolButton()
    button.setText("Help")
    button.setMenu(menu)
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    bar.addWidget(button)
    window.help_button = button  # type: ignore[attr-defined]  # kept for tests
    return menu
