"""Settings → Clients sets each client's write policy, for HTTP clients and for stdio names alike, and
the engine holds the name to it at once."""

from __future__ import annotations

import pytest
from support.app import wait

from hindsight_desktop.app.settings_dialog import SettingsDialog
from hindsight_desktop.core.errors import NotAllowed


def test_the_clients_tab_sets_write_policies(qtbot, shell):
    dialog = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(dialog)
    tab = dialog.clients
    wait(qtbot, tab.add_client("zed"))
    qtbot.waitUntil(lambda: tab.names() == ["zed"])
    assert tab.table.item(0, 4).text().startswith("auto")
    tab.table.selectRow(0)
    review = next(a for a in tab.policy_button.menu().actions() if a.text().startswith("review"))
    review.trigger()
    qtbot.waitUntil(lambda: tab.table.item(0, 4).text().startswith("review"), timeout=10_000)
    engine = shell.backend.engine
    assert engine.write("My bike is a green Brompton with a Shimano hub.", client="zed").pending

    wait(qtbot, tab.set_policy("claude-desktop", "read-only"))  # a stdio name: no token, a policy all the same
    qtbot.waitUntil(lambda: tab.names() == ["zed", "claude-desktop"], timeout=10_000)
    assert [tab.table.item(1, c).text() for c in (1, 2, 3)] == ["no token needed", "stdio", "never"]
    assert tab.table.item(1, 4).text().startswith("read-only")
    with pytest.raises(NotAllowed, match="read-only"):
        engine.write("I moved to Porto.", client="claude-desktop")
    assert engine.search("Porto", client="claude-desktop", log=False).hits == []  # its search still works
