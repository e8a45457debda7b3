"""The stats view shows the used share beside the hit rate, with each assistant's in its tooltip."""

from __future__ import annotations


def test_used_share_beside_the_hit_rate(qtbot, shell):
    engine = shell.backend.engine
    window = shell.open_stats()
    qtbot.waitUntil(lambda: window.data is not None, timeout=20_000)
    assert window.tiles["used"].value == "–"  # nothing returned yet

    key = engine.write("The spare bike key hangs behind the pantry door.", client="alpha", gate=False).id
    engine.write("The boiler service code is 4471.", client="beta", gate=False)
    engine.search("where is the bike key?", limit=1, client="alpha")
    engine.search("what is the boiler service code?", limit=1, client="beta")
    engine.record_used([key], client="alpha")
    window.data = None
    window.refresh()
    qtbot.waitUntil(lambda: window.data is not None, timeout=20_000)
    assert window.tiles["used"].value == "50%"  # one of the two returned memories
    assert window.tiles["hit_rate"].value == "100%"
    note = window.tiles["used"].toolTip()
    assert "alpha: 100%" in note and "beta: 0%" in note
