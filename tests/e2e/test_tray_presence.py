"""The tray's server and clients lines: the port, and "Connected: …" for the clients the in-process
server heard from (searches and tool listings too) or whose writes show in the event log (stdio)."""

from __future__ import annotations

import anyio
from support.app import start_shell
from support.mcp import call, free_port, http_client

from hindsight_desktop.config import Settings

NEW = "New assistant connected"


def test_without_clients_the_line_says_how_to_add_one(qtbot, shell):
    qtbot.waitUntil(lambda: shell.activity._last is not None)
    assert shell.tray.act_clients.text() == "Clients: none yet (Settings → Clients)"
    assert shell.tray.act_server.text() == "MCP server: off"


def test_connected_clients_and_the_port_in_the_tray(qtbot, app_paths, embedder, token_store):
    port = free_port()
    app = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=port))
    try:
        tray, watch = app.tray, app.activity
        assert tray.act_server.text() == f"MCP server: running on port {port}"
        assert tray.act_server.toolTip() == f"http://127.0.0.1:{port}/mcp"
        qtbot.waitUntil(lambda: watch._last is not None)  # the first look at start-up is done
        tokens = {name: app.backend.registry.add(name)[0] for name in ("cursor", "claude-code")}
        watch.poll()  # the registered clients, as after adding them in Settings
        qtbot.waitUntil(lambda: tray.act_clients.text() == "Connected: none right now")
        assert "cursor" in tray.act_clients.toolTip()

        async def scenario():
            async with (
                http_client(app.backend.server.url, tokens["cursor"]) as cursor,
                http_client(app.backend.server.url, tokens["claude-code"]) as claude,
            ):
                await cursor.list_tools()
                await call(claude, "memory_search", query="where is the spare key?")
                watch.check_presence()  # what the timer does every few seconds
                return tray.act_clients.text()

        assert anyio.run(scenario) == "Connected: claude-code, cursor"
        assert sorted(text for title, text in tray.messages if title == NEW) == [
            "claude-code used your memory for the first time.",
            "cursor used your memory for the first time.",
        ]
        # Both closed their sessions; the server notices their streams have gone soon after.
        qtbot.waitUntil(lambda: watch.check_presence() or tray.act_clients.text() == "Connected: none right now")

        anyio.run(scenario)  # they come back: connected again, but no second announcement
        assert [title for title, _ in tray.messages].count(NEW) == 2
    finally:
        app.shutdown()


def test_a_stdio_client_shows_through_the_event_log(qtbot, shell):
    qtbot.waitUntil(lambda: shell.activity._last is not None)
    shell.backend.engine.write("The spare key is under the blue pot.", client="claude-code", explicit=True)
    shell.backend.engine.write("I noted this by hand.", explicit=True)  # the person: not a client
    shell.activity.poll()
    qtbot.waitUntil(lambda: shell.tray.act_clients.text() == "Connected: claude-code", timeout=10_000)
    assert shell.tray.messages[-1] == (NEW, "claude-code used your memory for the first time.")
