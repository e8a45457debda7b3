"""The timeline window's layout and words: at its default size the memory text gets the room, a long
memory's tooltip holds all of it, and the Help button leads to the shortcuts and the logs — through real
widgets on the real engine."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextDocument
from support.app import seed

from hindsight_desktop.app.timeline_model import MEMORY_ROLE
from hindsight_desktop.logs import LOG_DIR_ENV

LONG = (
    "Our team agreed that the quarterly planning offsite moves from Lisbon to Porto because the venue in "
    "Lisbon cancelled; Ana books the train tickets, Marco handles the hotel, and the agenda draft is due "
    "two weeks before we leave, with the budget review on the first morning and the roadmap on the second."
)


def _window(qtbot, shell):
    window = shell.open_timeline()
    qtbot.waitUntil(lambda: window.timeline.total is not None and not window.timeline.loading, timeout=20_000)
    return window


def _plain(tip: str) -> str:
    doc = QTextDocument()
    doc.setHtml(tip)
    return doc.toPlainText()


def test_default_window_gives_the_memory_text_most_of_the_width(qtbot, shell):
    seed(shell.backend.engine, [(LONG, "fact", 0.6)])
    window = _window(qtbot, shell)
    assert (window.width(), window.height()) == (1240, 780)
    qtbot.waitUntil(lambda: window.isVisible() and window.timeline_view.viewport().width() > 0)
    table = window.timeline_view
    header = table.horizontalHeader()
    text = header.sectionSize(1)
    others = sum(header.sectionSize(c) for c in range(header.count()) if c != 1)
    assert text > others, (text, others)
    assert text > 0.4 * window.width(), text  # more than the detail pane beside it
    list_width, side_width = window.split.sizes()
    assert list_width > 2 * side_width, window.split.sizes()
    row = next(r for r in range(window.timeline.rowCount()) if not window.timeline.is_day(r))
    index = window.timeline.index(row, 1)
    assert index.data(MEMORY_ROLE).content == LONG
    assert len(LONG) * table.fontMetrics().averageCharWidth() > text  # it does not fit: the cell elides
    assert _plain(index.data(Qt.ItemDataRole.ToolTipRole)) == LONG  # the whole text, uncut


def test_search_results_tooltip_holds_the_full_text(qtbot, shell):
    seed(shell.backend.engine, [(LONG, "fact", 0.6)])
    window = _window(qtbot, shell)
    window.search_field.setText("offsite in Porto")
    task = window.run_search()
    qtbot.waitUntil(lambda: task.is_finished and window.results.rowCount() > 0, timeout=30_000)
    assert _plain(window.results.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)) == LONG


class _Opened(QObject):
    """Catches the file URLs Qt would hand to the desktop's file manager."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_help_button_opens_the_shortcuts_sheet_and_the_log_folder(qtbot, shell, tmp_path, monkeypatch):
    folder = tmp_path / "logs here"
    monkeypatch.setenv(LOG_DIR_ENV, str(folder))
    window = _window(qtbot, shell)
    assert window.help_button.text() == "Help" and window.help_button.isVisible()
    entries = {a.text(): a for a in window.help_menu.actions()}
    assert list(entries) == ["Keyboard shortcuts", "Open log folder"]
    assert entries["Keyboard shortcuts"].shortcut().toString() == "F1"
    entries["Keyboard shortcuts"].trigger()
    sheet = window.shortcuts_sheet
    qtbot.waitUntil(sheet.isVisible)
    assert ("Ctrl+F", "Find") in sheet.rows
    sheet.close()
    opened = _Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        entries["Open log folder"].trigger()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in opened.urls] == [str(folder)]
    assert folder.is_dir()  # made if missing, so the file manager has something to show
