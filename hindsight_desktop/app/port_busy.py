"""When the MCP server cannot start because its port is taken: say so where the person is.

A notification names the cause and what to do; clicking it opens Settings at the port. The tray menu
offers the next free port in one click (the setting is saved and the server restarted on it). The tray's
lines never show clients as connected while the server is stopped. Whenever the port changes (that
action, or Settings), the client configs the app installed are pointed at the new address, and a
notification says which were updated and which were left alone.
"""

from __future__ import annotations

import socket
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

if TYPE_CHECKING:
    from hindsight_desktop.app.backend import Backend
    from hindsight_desktop.app.shell import Shell

TITLE = "Hindsight Desktop: MCP server stopped"
PORT_CHANGED = "Hindsight Desktop: MCP port changed"
SEARCH_PORTS = 50  # how far past the taken port a free one is looked for


def port_taken(backend: Backend) -> bool:
    """The server is stopped because another program holds its port (bind_loopback's words)."""
    return backend.server is None and "already in use" in (backend.server_error or "")


def next_free_port(after: int, tries: int = SEARCH_PORTS) -> int | None:
    """The first port after `after` that nothing listens on at 127.0.0.1, or None."""
    for port in range(after + 1, min(after + 1 + tries, 65536)):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return None


def server_words(backend: Backend) -> str:
    """The tray's short words for why the server is stopped (no command-line advice in the app)."""
    if port_taken(backend):
        return f"MCP server stopped: port {backend.settings.http_port} is used by another program"
    return "MCP server stopped" + (f": {backend.server_error.splitlines()[0][:80]}" if backend.server_error else "")


class PortBusy(QObject):
    """Watches the server; when its port is taken, notifies and offers a free port."""

    def __init__(self, shell: Shell) -> None:
        super().__init__(shell)
        self.shell, self.backend, self.tray = shell, shell.backend, shell.tray
        tray = self.tray
        self.free_port: int | None = None
        self.action = QAction("", tray.menu)
        self.action.setVisible(False)
        self.action.triggered.connect(self.use_free_port)
        tray.menu.insertAction(tray.act_clients, self.action)
        self.open_action = QAction("Choose the MCP port in Settings…", tray.menu)
        self.open_action.setVisible(False)
        self.open_action.triggered.connect(self.open_port_setting)
        tray.menu.insertAction(tray.act_clients, self.open_action)
        tray.icon.messageClicked.connect(self._message_clicked)
        self.backend.server_changed.connect(self.check)
        self.port_seen = self.backend.settings.http_port
        self.repoint_task: Any = None
        self.backend.server_changed.connect(self.follow_port)

    def check(self) -> None:
        taken = port_taken(self.backend)
        port = self.backend.settings.http_port
        self.free_port = next_free_port(port) if taken else None
        self.action.setVisible(self.free_port is not None)
        self.open_action.setVisible(taken)
        if self.free_port is not None:
            self.action.setText(f"Use free port {self.free_port} for the MCP server")
        if taken:
            offer = f" Port {self.free_port} is free: use it from the tray menu." if self.free_port else ""
            self.tray.notify(
                TITLE,
                f"Port {port} is used by another program, so assistants cannot reach your memory over HTTP. "
                f"Click here to choose another port in Settings.{offer}",
            )

    def _message_clicked(self) -> None:
        if self.tray.messages and self.tray.messages[-1][0] == TITLE:
            self.open_port_setting()

    def open_port_setting(self) -> Any:
        """Settings, on its General tab, with the port field focused."""
        dialog = self.shell.open_settings()
        dialog.tabs.setCurrentIndex(0)
        box = dialog.inputs["http_port"].widget
        box.setFocus()
        return dialog

    def use_free_port(self) -> None:
        """Save the free port as the setting; the backend restarts the server on it."""
        if self.free_port is None:
            return
        settings = replace(self.backend.settings, http_port=self.free_port).validate()
        self.backend.apply_settings(settings)
        if self.shell.settings_dialog is not None:  # built once: its port box must not save the old port back
            self.shell.settings_dialog.inputs["http_port"].widget.setValue(self.free_port)
        self.backend.workers.submit(settings.save, self.backend.paths.settings_file, name="save settings")

    def follow_port(self) -> None:
        """After a port change (whichever way it was made), re-point the installed client configs."""
        port = self.backend.settings.http_port
        if port == self.port_seen:
            return
        self.port_seen = port
        from hindsight_desktop.mcp.client_ports import address, repoint, repoint_words

        self.repoint_task = self.backend.workers.submit(
            repoint,
            address(port),
            name="update client configs",
            on_done=lambda outcome: self.tray.notify(PORT_CHANGED, repoint_words(port, outcome)),
        )
