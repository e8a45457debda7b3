"""A port change made in the app (Settings, or the tray's free port) re-points the client configs the app
installed, and the notification says which it updated and which it left alone."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from support.app import start_shell

from hindsight_desktop.app.port_busy import PORT_CHANGED
from hindsight_desktop.config import Settings
from hindsight_desktop.mcp.client_ports import address


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def port_notes(tray) -> list[str]:
    return [text for title, text in tray.messages if title == PORT_CHANGED]


def test_changing_the_port_updates_the_installed_configs_and_says_so(qtbot, app_paths, embedder, token_store, home):
    with socket.socket() as busy:  # the first port is taken, so the tray offers a free one
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        app = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=port))
        try:
            tab = app.open_settings().clients
            task = tab.install("cursor")  # installed the way the person does it: Settings → Clients → Install
            assert task is not None
            qtbot.waitUntil(lambda: task.is_finished, timeout=20_000)
            cursor = home / ".cursor" / "mcp.json"
            assert address(port) in cursor.read_text()
            edited = home / ".lmstudio" / "mcp.json"  # one the person pointed elsewhere by hand
            edited.parent.mkdir()
            edited.write_text(json.dumps({"mcpServers": {"hindsight": {"url": "http://my-box:1/mcp"}}}))

            free = app.port_busy.free_port
            assert free is not None
            app.port_busy.action.trigger()
            qtbot.waitUntil(lambda: len(port_notes(app.tray)) == 1, timeout=30_000)
            note = port_notes(app.tray)[0]
            assert json.loads(cursor.read_text())["mcpServers"]["hindsight"]["url"] == address(free)
            assert f"port {free}" in note and f"Cursor ({cursor})" in note and "Reconnect" in note
            assert f"LM Studio ({edited})" in note and "Not changed" in note
            assert "my-box" in edited.read_text()

            # The same from Settings: the port box and Save.
            dialog = app.settings_dialog
            again = free_port()
            dialog.inputs["http_port"].widget.setValue(again)
            dialog.save()
            qtbot.waitUntil(lambda: len(port_notes(app.tray)) == 2, timeout=30_000)
            assert json.loads(cursor.read_text())["mcpServers"]["hindsight"]["url"] == address(again)
            assert f"port {again}" in port_notes(app.tray)[1]
            qtbot.waitUntil(lambda: app.backend.server is not None and app.backend.server.port == again)
        finally:
            app.shutdown()
