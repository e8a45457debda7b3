"""The Diagnose dialog's fix buttons, clicked: each does the fix in the app (Settings at the field, the
server restarted, the client installed, the key dialog, the log folder, the command copied)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication
from support.app import start_shell

from hindsight_desktop.app.key_dialog import KeyProblemDialog
from hindsight_desktop.app.settings_dialog import SettingsDialog
from hindsight_desktop.cli import doctor_checks as doctor
from hindsight_desktop.config import Settings
from hindsight_desktop.core.keys.opener import RESTORE_HINT

INSTALL_CMD = "sudo apt install libxcb-icccm4 libxcb-keysyms1"
FINDINGS = [
    {"name": "http port", "ok": False, "detail": "port 1 is held by another program", "fix": "stop it …"},
    {"name": "qt libraries", "ok": False, "detail": "missing libxcb-icccm.so.4", "fix": INSTALL_CMD},
    {"name": "log folder", "ok": True, "detail": "/somewhere"},
    {"name": "embedding model", "ok": False, "detail": "cannot load", "fix": "check `embedding_model` …"},
    {"name": "database", "ok": False, "detail": "the key is missing", "fix": RESTORE_HINT},
    {
        "name": "client Cursor",
        "ok": True,
        "skipped": True,
        "detail": "skipped: ~/.cursor/mcp.json has no Hindsight entry",
        "fix": "run `hindsight-desktop clients install cursor`",
    },
    {
        "name": "tools/list Cursor",
        "ok": True,
        "skipped": True,
        "detail": "skipped: the app/server is not running",
        "fix": doctor.START_FIX,
    },
]


class _Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def served(qtbot, app_paths, embedder, token_store, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    app = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=free_port()))
    qtbot.waitUntil(lambda: app.backend.server is not None, timeout=30_000)
    yield app
    app.shutdown()


def open_dialog(qtbot, app, monkeypatch, findings: list[dict[str, Any]] = FINDINGS):
    runs: list[int] = []

    def fake_doctor(*args, **kwargs):
        runs.append(1)
        return {"ok": False, "checks": findings}

    monkeypatch.setattr(doctor, "run_doctor", fake_doctor)
    settings = app.open_settings()
    assert isinstance(settings, SettingsDialog)
    dialog = settings.open_diagnose()
    qtbot.waitUntil(lambda: dialog.report is not None and len(dialog.rows) == len(findings))
    return settings, dialog, runs


def button(dialog, name: str, label: str):
    row = next(r for r in dialog.rows if r.check["name"] == name)
    return next(b for b in row.buttons if b.text() == label)


def test_the_buttons_open_settings_copy_the_command_and_open_the_log_folder(qtbot, served, monkeypatch, tmp_path):
    settings, dialog, _runs = open_dialog(qtbot, served, monkeypatch)
    assert not any("hindsight-desktop" in line for line in dialog.lines())  # no command to type in the app

    settings.tabs.setCurrentIndex(settings.tabs.count() - 1)
    qtbot.mouseClick(button(dialog, "http port", "Choose another port…"), Qt.MouseButton.LeftButton)
    port_box = settings.inputs["http_port"].widget
    assert settings.tabs.widget(settings.tabs.currentIndex()).isAncestorOf(port_box)
    assert settings.focusWidget() is port_box

    qtbot.mouseClick(button(dialog, "embedding model", "Choose the model…"), Qt.MouseButton.LeftButton)
    assert settings.tabs.tabText(settings.tabs.currentIndex()) == "Memory"
    assert settings.focusWidget() is settings.model_path

    qtbot.mouseClick(button(dialog, "qt libraries", "Copy the command"), Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == INSTALL_CMD
    assert INSTALL_CMD in dialog.status.text()

    monkeypatch.setenv("HINDSIGHT_LOG_DIR", str(tmp_path / "logs"))
    opened = _Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        qtbot.mouseClick(button(dialog, "log folder", "Open log folder"), Qt.MouseButton.LeftButton)
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in opened.urls] == [str(tmp_path / "logs")]


def test_restart_the_server_and_install_a_client_then_check_again(qtbot, served, monkeypatch, tmp_path):
    _settings, dialog, runs = open_dialog(qtbot, served, monkeypatch)
    backend = served.backend
    backend.server.stop()
    backend.server = None

    qtbot.mouseClick(button(dialog, "tools/list Cursor", "Restart the MCP server"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: backend.server is not None, timeout=30_000)
    qtbot.waitUntil(lambda: len(runs) == 2 and dialog.report is not None)  # checked again after the fix
    socket.create_connection(("127.0.0.1", backend.settings.http_port), timeout=5).close()

    qtbot.mouseClick(button(dialog, "client Cursor", "Install for Cursor"), Qt.MouseButton.LeftButton)
    config = tmp_path / "home" / ".cursor" / "mcp.json"
    qtbot.waitUntil(config.exists, timeout=20_000)
    url = json.loads(config.read_text())["mcpServers"]["hindsight"]["url"]
    assert url.endswith(f":{backend.settings.http_port}/mcp")
    qtbot.waitUntil(lambda: len(runs) == 3 and dialog.report is not None)


def test_restore_the_key_opens_the_key_dialog(qtbot, served, monkeypatch):
    _settings, dialog, _runs = open_dialog(qtbot, served, monkeypatch)
    qtbot.mouseClick(button(dialog, "database", "Restore the key…"), Qt.MouseButton.LeftButton)
    key = dialog.key_dialog
    assert isinstance(key, KeyProblemDialog) and key.isVisible()
    key.reject()
    assert dialog.key_dialog is None
