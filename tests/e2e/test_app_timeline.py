"""The timeline window: paging by day, filters, search with the why panel, detail, edit, forget,
restore, purge (with its confirmation), undo — through real widgets on the real engine."""

from __future__ import annotations

from datetime import timedelta

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from support.app import seed, varied, wait

from hindsight_desktop.app.timeline_model import TimelineModel
from hindsight_desktop.core.errors import NotFound
from hindsight_desktop.core.records import MemoryFilter


def _window(qtbot, shell):
    window = shell.open_timeline()
    qtbot.waitUntil(lambda: window.timeline.total is not None and not window.timeline.loading, timeout=20_000)
    return window


def _select(window, memory_id):
    window.go_to(memory_id)
    assert [m.id for m in window.selected()] == [memory_id]


def test_pages_arrive_by_day_newest_first(qtbot, shell):
    engine = shell.backend.engine
    seed(engine, varied(45), step=timedelta(hours=5))
    assert engine.count() == 45
    model = TimelineModel(shell.backend, page_size=20)
    model.reload()
    qtbot.waitUntil(lambda: model.loaded == 20 and model.total == 45, timeout=10_000)
    assert model.is_day(0) and model.memory_at(model.index(0, 0)) is None  # a day heading comes first
    days = [model.index(r, 0).data() for r in range(model.rowCount()) if model.is_day(r)]
    assert len(days) >= 2 and all("·" in d for d in days)  # day headings, each with its count
    newest = model.memory_at(model.index(1, 0))
    assert newest.content.endswith("(note 0).")
    assert model.has_more and model.fetch_more()
    assert not model.fetch_more()  # one page at a time
    qtbot.waitUntil(lambda: model.loaded == 40, timeout=10_000)
    model.fetch_more()
    qtbot.waitUntil(lambda: model.loaded == 45, timeout=10_000)
    assert not model.has_more and not model.fetch_more()
    times = [m.occurred_at for m in model.memories()]
    assert times == sorted(times, reverse=True) and len(set(m.id for m in model.memories())) == 45


def test_filters_narrow_the_timeline(qtbot, shell):
    engine = shell.backend.engine
    ids = seed(engine)
    engine.edit(ids[1], pinned=True)
    engine.forget(ids=[ids[4]])
    window = _window(qtbot, shell)
    assert window.timeline.total == 5  # active only by default
    bar = window.filter_bar
    bar.type.setCurrentText("preference")
    qtbot.waitUntil(lambda: window.timeline.total == 1 and not window.timeline.loading)
    assert window.timeline.memories()[0].id == ids[1]
    bar.reset()
    bar.status.setCurrentText("Archived")
    qtbot.waitUntil(lambda: window.timeline.total == 1 and not window.timeline.loading)
    assert window.timeline.memories()[0].id == ids[4]
    bar.reset()
    bar.pinned.setChecked(True)
    qtbot.waitUntil(lambda: window.timeline.total == 1 and not window.timeline.loading)
    bar.reset()
    bar.use_until.setChecked(True)
    bar.until.setDate(bar.until.date().fromString("2026-11-19", "yyyy-MM-dd"))
    qtbot.waitUntil(
        lambda: not window.timeline.loading and window.timeline.total is not None and window.timeline.total < 5
    )
    assert all(m.occurred_at.date().isoformat() <= "2026-11-19" for m in window.timeline.memories())
    assert bar.filters().until is not None


def test_search_shows_results_and_why(qtbot, shell):
    seed(shell.backend.engine)
    window = _window(qtbot, shell)
    window.search_field.setText("when does my passport expire")
    results = wait(qtbot, window.run_search())
    assert results[0].memory.content == "My passport expires in March 2031."
    assert window.searching and window.why.isVisible()
    assert window.why.hit is not None and window.why.hit.memory.id == results[0].memory.id
    labels = [row[0] for row in window.why.rows()]
    assert labels[:3] == ["Meaning", "Words", "Names & dates"]
    assert "Found mostly by" in window.why.toolTip()
    qtbot.keyClick(window.search_field, Qt.Key.Key_Escape)
    assert not window.searching and not window.why.isVisible() and window.search_field.text() == ""


def test_detail_shows_links_and_history_and_follows_a_link(qtbot, shell):
    engine = shell.backend.engine
    ids = seed(engine)
    engine.link(ids[0], ids[2], "related")
    window = _window(qtbot, shell)
    _select(window, ids[0])
    qtbot.waitUntil(lambda: window.detail.extras is not None)
    html = window.detail.browser.toHtml()
    assert "March 2031" in html and "History" in html and "remembered" in html and "Links" in html
    window.detail.open_memory.emit(ids[2])
    assert window.selected()[0].id == ids[2]


def test_edit_content_type_importance_goes_through_the_engine(qtbot, shell):
    engine = shell.backend.engine
    ids = seed(engine)
    window = _window(qtbot, shell)
    _select(window, ids[1])
    memory = window.selected()[0]
    wait(
        qtbot,
        window.actions_.edit(
            memory, {"content": "I prefer aisle seats on long flights.", "type": "habit", "importance": 0.35}
        ),
    )
    stored = engine.get(ids[1])
    assert (stored.content, stored.type, stored.importance) == ("I prefer aisle seats on long flights.", "habit", 0.35)
    shown = window.timeline.memory_at(window.timeline.index_of(ids[1]))
    assert shown.content == stored.content
    hits = engine.search("aisle seat", limit=1, log=False).hits  # re-embedded and re-indexed
    assert hits[0].memory.id == ids[1]


def test_edit_dialog_reports_only_changes(qtbot, shell):
    from hindsight_desktop.app.edit_dialog import EditDialog

    memory = shell.backend.engine.get(seed(shell.backend.engine)[0])
    dialog = EditDialog(memory)
    qtbot.addWidget(dialog)
    assert dialog.changes() == {}
    dialog.importance.setValue(0.25)
    dialog.type.setCurrentText("document")
    assert dialog.changes() == {"importance": 0.25, "type": "document"}


def test_forget_undo_restore_and_purge_with_confirmation(qtbot, shell):
    engine = shell.backend.engine
    ids = seed(engine)
    window = _window(qtbot, shell)
    window.timeline_view.selectionModel().clearSelection()
    for memory_id in ids[:2]:
        index = window.timeline.index_of(memory_id)
        window.timeline_view.selectionModel().select(
            index,
            window.timeline_view.selectionModel().SelectionFlag.Select
            | window.timeline_view.selectionModel().SelectionFlag.Rows,
        )
    assert sorted(window.selected_ids()) == sorted(ids[:2])
    wait(qtbot, window.forget_selected())  # bulk: both archived
    assert {engine.get(i).status for i in ids[:2]} == {"archived"}
    assert not window.timeline.index_of(ids[0]).isValid()  # the Active filter drops them
    assert window.act_undo.isEnabled()
    wait(qtbot, window.actions_.undo())
    assert {engine.get(i).status for i in ids[:2]} == {"active"}
    qtbot.waitUntil(lambda: window.timeline.index_of(ids[0]).isValid())

    wait(qtbot, window.actions_.forget([ids[3]]))
    wait(qtbot, window.actions_.restore([ids[3]]))
    assert engine.get(ids[3]).status == "active"

    seen = []

    def accept_dialog():
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text() + " " + box.informativeText())
        delete = next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole)
        delete.click()

    qtbot.waitUntil(lambda: window.timeline.index_of(ids[5]).isValid())
    _select(window, ids[5])
    QTimer.singleShot(50, accept_dialog)
    task = window.actions_.purge(window.selected_ids())
    wait(qtbot, task)
    assert "cannot be undone" in seen[0]
    try:
        engine.get(ids[5])
        raise AssertionError("purged memory still there")
    except NotFound:
        pass
    assert not window.timeline.index_of(ids[5]).isValid()


def test_purge_cancelled_keeps_the_memory(qtbot, shell):
    ids = seed(shell.backend.engine)
    window = _window(qtbot, shell)
    window.actions_.confirm = lambda parent, n: False
    assert window.actions_.purge([ids[0]]) is None
    assert shell.backend.engine.get(ids[0]).status == "active"


def test_keyboard_shortcuts(qtbot, shell):
    ids = seed(shell.backend.engine)
    window = _window(qtbot, shell)
    keys = {a.text(): a.shortcut().toString() for a in (window.act_find, window.act_forget, window.act_clear)}
    assert keys["Find"] == "Ctrl+F" and keys["Forget"] == "Del" and keys["Clear search"] == "Esc"
    _select(window, ids[0])
    opened = []

    def close_editor():
        dialog = QApplication.activeModalWidget()
        opened.append(type(dialog).__name__)
        dialog.reject()

    QTimer.singleShot(100, close_editor)
    window.timeline_view.setFocus()
    qtbot.keyClick(window.timeline_view, Qt.Key.Key_Return)
    assert opened == ["EditDialog"]
    window.act_forget.trigger()
    qtbot.waitUntil(lambda: shell.backend.engine.get(ids[0]).status == "archived", timeout=10_000)
    assert shell.backend.engine.count(MemoryFilter(statuses=("archived",))) == 1
