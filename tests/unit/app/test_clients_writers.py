"""Settings → Clients lists every writer the memory has seen, not only the token holders: the stdio
assistants appear from their own writes and searches, each with its transport, last activity and policy;
the person's own writes and the product's do not."""

from __future__ import annotations

from support.app import wait

from hindsight_desktop.app import fmt
from hindsight_desktop.app.settings_dialog import SettingsDialog
from hindsight_desktop.core.clients import ClientBook


def test_stdio_writers_are_listed_with_transport_activity_and_policy(qtbot, shell):
    engine = shell.backend.engine
    engine.write("My sister Ana lives in Lisbon and teaches chemistry.", client="claude-desktop")
    engine.search("chemistry", client="claude-code")  # a reader only: still an assistant the memory has seen
    engine.write("I prefer tea to coffee in the morning.")  # the person, by hand: not a client
    dialog = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(dialog)
    tab = dialog.clients
    wait(qtbot, tab.add_client("zed"))
    qtbot.waitUntil(lambda: tab.names() == ["zed", "claude-code", "claude-desktop"], timeout=10_000)

    seen = ClientBook.of(engine).writers()
    assert set(seen) == {"claude-code", "claude-desktop"}  # the person ("desktop") is left out
    rows = {tab.table.item(r, 0).text(): [tab.table.item(r, c).text() for c in (1, 2, 3, 4)] for r in range(3)}
    assert rows["zed"][:3] == ["active", "HTTP (token)", "never"]
    assert rows["claude-desktop"][:3] == ["no token needed", "stdio", fmt.when(seen["claude-desktop"])]
    assert rows["claude-code"][1:3] == ["stdio", fmt.when(seen["claude-code"])]
    assert rows["claude-desktop"][3].startswith("auto")

    wait(qtbot, tab.set_policy("claude-desktop", "review"))  # the policy applies to the listed stdio writer
    qtbot.waitUntil(lambda: tab.table.item(2, 4).text().startswith("review"), timeout=10_000)
