"""The tray: state icons, and each menu action doing what it says (pause, maintenance, copy config,
windows, quit); pause refuses writes through the in-process MCP server while reads still work."""

from __future__ import annotations

import json
import socket

import anyio
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from support.app import seed, start_shell, wait
from support.mcp import call, fails, free_port, http_client

from hindsight_desktop.config import Settings
from hindsight_desktop.core.errors import PausedError


def test_menu_has_the_issue_s_actions(shell):
    texts = [a.text() for a in shell.tray.menu.actions() if a.text()]
    for wanted in (
        "Open timeline",
        "Pause memory",
        "Copy client config",
        "Run maintenance now",
        "Settings…",
        "Quit Hindsight Desktop",
    ):
        assert wanted in texts
    assert any(t.startswith("MCP server:") for t in texts)
    assert {"Claude Code", "Cursor", "VS Code"} <= {a.text() for a in shell.tray.copy_menu.actions()}
    assert shell.backend.state == "running"


def test_pause_from_the_tray_refuses_writes_and_resume_allows_them(qtbot, shell):
    engine = shell.backend.engine
    seed(engine)
    shell.tray.act_pause.trigger()
    qtbot.waitUntil(lambda: shell.backend.state == "paused")
    assert engine.is_paused() and shell.tray.act_pause.isChecked()
    assert shell.tray.act_pause.text() == "Resume memory"
    try:
        engine.write("I moved to Porto.", explicit=True)
        raise AssertionError("a paused memory accepted a write")
    except PausedError as exc:
        assert "memory is paused" in str(exc)
    assert engine.search("passport", log=False).hits  # reads still work
    shell.tray.act_pause.trigger()
    qtbot.waitUntil(lambda: shell.backend.state == "running")
    assert engine.write("I moved to Porto.", explicit=True).stored


def test_paused_app_refuses_mcp_writes_over_http(qtbot, app_paths, embedder, token_store):
    port = free_port()
    app = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=port))
    try:
        assert app.backend.server is not None and str(port) in app.tray.act_server.text()
        token, _ = app.backend.registry.add("cursor")
        seed(app.backend.engine)
        app.tray.act_pause.trigger()
        qtbot.waitUntil(lambda: app.backend.paused)

        async def scenario():
            async with http_client(app.backend.server.url, token) as client:
                refused = await fails(client, "memory_write", content="I moved to Porto.")
                found = await call(client, "memory_search", query="passport")
                return refused, found

        refused, found = anyio.run(scenario)
        assert "memory is paused" in refused
        assert found["results"][0]["content"] == "My passport expires in March 2031."
    finally:
        app.shutdown()


def test_busy_port_shows_the_error_state_and_the_timeline_still_works(qtbot, app_paths, embedder, token_store):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        app = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=port))
        try:
            assert app.backend.state == "error"
            assert "already in use" in app.backend.server_error
            assert f"port {port} is used by another program" in app.tray.icon.toolTip()
            assert any(f"Port {port} is used by another program" in text for _, text in app.tray.messages)
            assert app.backend.engine.count() == 0  # memory itself works
        finally:
            app.shutdown()


def test_run_maintenance_now_updates_the_last_run_line(qtbot, shell):
    seed(shell.backend.engine)
    states = []
    shell.backend.state_changed.connect(states.append)
    with qtbot.waitSignal(shell.scheduler.finished, timeout=30_000):
        shell.tray.act_maintain.trigger()
    assert states[:2] == ["maintenance", "running"]
    assert shell.tray.act_last.text().startswith("Last maintenance: just now")
    assert shell.state.last_maintenance is not None


def test_copy_client_config_puts_a_working_snippet_on_the_clipboard(qtbot, shell):
    task = shell.copy_config("cursor")
    wait(qtbot, task)
    snippet = json.loads(QGuiApplication.clipboard().text())
    entry = snippet["mcpServers"]["hindsight"]
    token = entry["headers"]["Authorization"].removeprefix("Bearer ")
    assert shell.backend.registry.verify(token) == "cursor"
    assert shell.tray.messages[-1][0] == "Set-up copied"
    shell.tray.copy_actions["cursor"].trigger()  # the menu item does the same, reusing the token
    qtbot.waitUntil(lambda: [title for title, _ in shell.tray.messages].count("Set-up copied") == 2)
    again = json.loads(QGuiApplication.clipboard().text())
    assert again == snippet


def test_window_actions_open_their_windows(qtbot, shell, monkeypatch):
    shell.tray.act_open.trigger()
    assert shell.window is not None and shell.window.isVisible()
    shell.tray.act_settings.trigger()
    assert shell.settings_dialog is not None and shell.settings_dialog.isVisible()
    shell.tray.act_stats.trigger()
    assert shell.stats is not None and shell.stats.isVisible()
    quits = []
    monkeypatch.setattr(QApplication, "quit", lambda: quits.append(True))
    shell.tray.act_quit.trigger()
    assert quits == [True]


def test_each_state_has_its_icon(shell):
    from hindsight_desktop.app.icons import STATES, render, tray_painter

    for state in STATES:
        for dark in (False, True):
            image = render(tray_painter(state, dark), 32)
            assert not image.isNull() and image.pixelColor(16, 16).alpha() >= 0
    shell.backend.set_maintenance(True)
    assert "maintenance" in shell.tray.icon.toolTip()
    shell.backend.set_maintenance(False)


def test_without_a_system_tray_the_window_is_the_app(qtbot, app_paths, embedder, token_store, monkeypatch):
    app = start_shell(qtbot, app_paths, embedder, tray=False)
    try:
        assert app.window is not None and app.window.isVisible()
        quits = []
        monkeypatch.setattr(QApplication, "quit", lambda: quits.append(True))
        app.window.close()
        assert quits == [True]
    finally:
        app.shutdown()


def test_a_client_seen_for_the_first_time_is_announced_once(qtbot, shell):
    from hindsight_desktop.app.activity import ActivityWatch

    engine = shell.backend.engine
    engine.write("I prefer tea to coffee.", client="old-friend", explicit=True)
    fresh = ActivityWatch(shell.backend, shell.state, shell.save_state)  # a first look, as at start-up
    fresh.poll()
    qtbot.waitUntil(lambda: "old-friend" in shell.state.known_clients)
    # History from before is learnt quietly (a new memory file's own encryption notice may be there).
    assert "New assistant connected" not in [title for title, _ in shell.tray.messages]
    qtbot.waitUntil(lambda: shell.activity._last is not None)  # the app's own watcher has had its first look
    engine.write("The office moved to the fourth floor.", client="cursor", explicit=True)
    with qtbot.waitSignal(shell.activity.new_client, timeout=10_000) as seen:
        shell.activity.poll()
    assert seen.args == ["cursor"]
    assert shell.tray.messages[-1] == ("New assistant connected", "cursor used your memory for the first time.")
    engine.write("Lunch is at noon on Fridays.", client="cursor", explicit=True)
    with qtbot.waitSignal(shell.activity.activity, timeout=10_000):
        shell.activity.poll()  # more from cursor: activity (for idle), but no second announcement
    assert [title for title, _ in shell.tray.messages].count("New assistant connected") == 1
