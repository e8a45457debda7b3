"""Undoing an assistant's bulk forget from the timeline: the assistant forgets by condition over MCP
(capped per call, one batch each), the person opens an archived memory, and the detail pane's link
restores exactly that batch — through real widgets, the real engine and the real MCP server."""

from __future__ import annotations

import re
from datetime import timedelta

import anyio
from mcp import Client
from PySide6.QtCore import QUrl
from support.app import seed, varied
from support.mcp import call

from hindsight_desktop.core.maintenance.forget import BULK_ARCHIVE_CAP
from hindsight_desktop.core.records import MemoryFilter
from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.server import build_server


def _assistant_forgets(engine, **conditions) -> dict:
    """One memory_forget call by the assistant "cursor", through the MCP server."""

    async def scenario():
        async with Client(build_server(engine, Identity(local="cursor"))) as client:
            return await call(client, "memory_forget", **conditions)

    return anyio.run(scenario)


def _open(qtbot, window, memory_id: str) -> str:
    """Select the memory in the timeline and return the detail pane's page once its history is in."""
    window.go_to(memory_id)
    assert [m.id for m in window.selected()] == [memory_id]
    qtbot.waitUntil(lambda: window.detail.extras is not None and window.detail.memory.id == memory_id, timeout=20_000)
    return window.detail.browser.toHtml()


def _batch_link(html: str) -> QUrl:
    found = re.findall(r"href=\"(batch:[^\"]+)\"", html)
    assert len(found) == 1, html
    return QUrl(found[0])


def test_the_person_undoes_an_assistants_bulk_forget_from_the_detail_pane(qtbot, shell):
    engine = shell.backend.engine
    n = BULK_ARCHIVE_CAP + 3
    seed(engine, varied(n), step=timedelta(hours=2))
    kept = engine.write("I keep my passport in the top drawer.", explicit=True).id  # now: not old enough
    first = _assistant_forgets(engine, older_than_days=5)
    second = _assistant_forgets(engine, older_than_days=5)  # "call again to continue"
    assert (len(first["forgotten"]), first["left"]) == (BULK_ARCHIVE_CAP, 3)
    assert len(second["forgotten"]) == 3 and first["batch"] != second["batch"]
    archived = MemoryFilter(statuses=("archived",))
    assert engine.count(archived) == n

    window = shell.open_timeline()
    window.filter_bar.status.setCurrentText("Archived")
    qtbot.waitUntil(lambda: window.timeline.total == n and not window.timeline.loading, timeout=20_000)
    target = first["forgotten"][7]
    html = _open(qtbot, window, target)
    batch = window.detail.extras.batch
    assert batch is not None and (batch.id, batch.by, batch.size) == (first["batch"], "cursor", BULK_ARCHIVE_CAP)
    text = window.detail.browser.toPlainText()
    assert f"cursor archived this with {BULK_ARCHIVE_CAP - 1} other memories in one forget" in text
    assert f"Restore all {BULK_ARCHIVE_CAP} memories of that forget" in text
    link = _batch_link(html)

    with qtbot.waitSignal(window.actions_.changed, timeout=30_000) as restored:
        window.detail.browser.anchorClicked.emit(link)  # what a click on the link sends
    assert sorted(m.id for m in restored.args[0]) == sorted(first["forgotten"])
    assert all(engine.get(i).status == "active" for i in first["forgotten"])
    assert all(engine.get(i).status == "archived" for i in second["forgotten"])  # another forget: untouched
    assert engine.get(kept).status == "active"
    assert f"Restored {BULK_ARCHIVE_CAP} memories" in window.statusBar().currentMessage()
    undo = [e for e in engine.events(target, limit=5) if e.kind == "restore"]
    assert undo[0].client == "desktop" and undo[0].detail["batch"] == first["batch"]
    # The archived view keeps only the second forget's memories (the restored one left it, and the
    # pane with it, as after a plain Restore); opened again, it no longer offers the undo.
    qtbot.waitUntil(lambda: {m.id for m in window.timeline.memories()} == set(second["forgotten"]), timeout=20_000)
    assert window.detail.memory is None
    window.filter_bar.reset()
    qtbot.waitUntil(lambda: window.timeline.total == n - 3 + 1 and not window.timeline.loading, timeout=20_000)
    assert window.timeline.index_of(target).isValid() and "batch:" not in _open(qtbot, window, target)
    window.filter_bar.status.setCurrentText("Archived")
    qtbot.waitUntil(lambda: window.timeline.total == 3 and not window.timeline.loading, timeout=20_000)

    # The second, smaller forget is offered the same way, and a second click finds nothing left to do.
    html = _open(qtbot, window, second["forgotten"][0])
    assert "Restore all 3 memories of that forget" in window.detail.browser.toPlainText()
    link = _batch_link(html)
    with qtbot.waitSignal(window.actions_.changed, timeout=30_000) as restored:
        window.detail.browser.anchorClicked.emit(link)
    assert len(restored.args[0]) == 3 and engine.count(archived) == 0
    with qtbot.waitSignal(window.actions_.changed, timeout=30_000) as again:
        window.actions_.undo_batch(second["batch"])
    assert again.args[0] == [] and "Nothing to restore" in window.statusBar().currentMessage()


def test_a_memory_forgotten_alone_offers_no_batch_undo(qtbot, shell):
    engine = shell.backend.engine
    ids = seed(engine)
    alone = _assistant_forgets(engine, memory_id=ids[0])
    assert alone["forgotten"] == [ids[0]] and alone["batch"]
    engine.forget(ids=ids[1:3])  # the person's own forget of two: offered too, in the person's words
    window = shell.open_timeline()
    window.filter_bar.status.setCurrentText("Archived")
    qtbot.waitUntil(lambda: window.timeline.total == 3 and not window.timeline.loading, timeout=20_000)
    _open(qtbot, window, ids[0])
    assert window.detail.extras.batch is None  # alone: the plain Restore does the same
    assert "batch:" not in window.detail.browser.toHtml()
    _open(qtbot, window, ids[2])
    assert window.detail.extras.batch is not None and window.detail.extras.batch.size == 2
    assert "You archived this with 1 other memory in one forget" in window.detail.browser.toPlainText()
    engine.restore(ids[1])  # restored one by one meanwhile: the batch holds only this memory now
    _open(qtbot, window, ids[0])
    _open(qtbot, window, ids[2])
    assert window.detail.extras.batch is None
