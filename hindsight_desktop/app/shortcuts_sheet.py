"""The keyboard shortcuts sheet (F1, or ? on the lists) and Esc closing a plain window.

The sheet is read from the window's own actions when it opens, so it lists exactly the shortcuts that
exist (the Inbox's A/R/J/K among them when the Inbox is there), never a list kept by hand beside them.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

# Actions whose text is the key itself (the Inbox's single keys): the words for what they do.
KEY_WORDS = {
    "A": "Inbox: approve the selected proposal",
    "R": "Inbox: reject the selected proposal",
    "J": "Inbox: next proposal",
    "N": "Inbox: next proposal",
    "K": "Inbox: previous proposal",
    "Ctrl+Return": "Inbox: approve while editing the text",
}
EXTRA = [("Esc", "Stats window: close it")]


def shortcuts_of(window: QWidget) -> list[tuple[str, str]]:
    """(keys, what they do) for every action under `window` that has a shortcut, each once, sorted."""
    found: dict[tuple[str, str], None] = {}
    for action in window.findChildren(QAction):
        for sequence in action.shortcuts():
            keys = sequence.toString(QKeySequence.SequenceFormat.NativeText)
            if not keys:
                continue
            raw = sequence.toString(QKeySequence.SequenceFormat.PortableText)
            words = KEY_WORDS.get(raw) or action.toolTip() or action.text()
            found[(keys, words.replace("&", ""))] = None
    return sorted(found, key=lambda pair: pair[1].lower()) + EXTRA


class ShortcutsSheet(QDialog):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        self.rows = shortcuts_of(window)
        self.table = QTableWidget(len(self.rows), 2)
        self.table.setHorizontalHeaderLabels(["Keys", "What they do"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, (keys, words) in enumerate(self.rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(words))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(QLabel("Esc closes this sheet."))
        self.resize(560, 420)


def attach_shortcuts_sheet(window: QWidget, views: list[QWidget]) -> QAction:
    """F1 anywhere in `window`, and ? on the lists (not in the search box, where ? is typed), open the sheet."""
    action = QAction("Keyboard shortcuts", window)
    action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
    action.triggered.connect(lambda _checked=False: open_sheet(window))
    window.addAction(action)
    for view in views:
        question = QAction("Keyboard shortcuts (?)", view)
        question.setShortcut(QKeySequence("?"))
        question.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        question.triggered.connect(lambda _checked=False: open_sheet(window))
        view.addAction(question)
    return action


def open_sheet(window: QWidget) -> ShortcutsSheet:
    sheet = ShortcutsSheet(window)
    window.shortcuts_sheet = sheet  # type: ignore[attr-defined]  # kept for tests and to stay alive
    sheet.show()
    return sheet


def close_on_escape(window: QWidget) -> QAction:
    """Esc closes `window` (a plain QWidget window has no such key of its own, unlike a dialog)."""
    action = QAction("Close", window)
    action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.triggered.connect(lambda _checked=False: window.close())
    window.addAction(action)
    return action
