"""Edit one memory's content, type, importance, scope and the date it happened. Saving goes through
`engine.edit` (new content re-embedded; every change in the memory's history). The date is shown and
edited in local time, to the minute; the engine stores it as UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QDateTime, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QPlainTextEdit,
    QSlider,
    QWidget,
)

from hindsight_desktop.app.filters import KNOWN_TYPES
from hindsight_desktop.core.records import SCOPES, Memory

SCOPE_WORDS = {
    "shared": "Shared: every assistant may recall it",
    "private": "Private: only the assistant that wrote it (and you)",
}
DATE_FORMAT = "yyyy-MM-dd HH:mm"


def _to_the_minute(value: datetime) -> datetime:
    """A moment as the person reads it: local time, no seconds."""
    return value.astimezone().replace(second=0, microsecond=0)


class EditDialog(QDialog):
    def __init__(self, memory: Memory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.setWindowTitle("Edit memory")
        self.content = QPlainTextEdit(memory.content)
        self.content.setMinimumSize(460, 140)
        self.type = QComboBox()
        self.type.setEditable(True)
        self.type.addItems(sorted(set(KNOWN_TYPES) | {memory.type}))
        self.type.setCurrentText(memory.type)
        self.importance = QDoubleSpinBox()
        self.importance.setRange(0.0, 1.0)
        self.importance.setSingleStep(0.05)
        self.importance.setDecimals(2)
        self.importance.setValue(memory.importance)
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(0, 100)
        slider.setValue(round(memory.importance * 100))
        slider.valueChanged.connect(lambda v: self.importance.setValue(v / 100))
        self.importance.valueChanged.connect(lambda v: slider.setValue(round(v * 100)))
        self.scope = QComboBox()
        for scope in SCOPES:
            self.scope.addItem(SCOPE_WORDS.get(scope, scope), scope)
        self.scope.setCurrentIndex(self.scope.findData(memory.scope))
        self.occurred = QDateTimeEdit()
        self.occurred.setDisplayFormat(DATE_FORMAT)
        self.occurred.setCalendarPopup(True)
        self.occurred.setDateTime(QDateTime(_to_the_minute(memory.occurred_at).replace(tzinfo=None)))
        self.occurred.setToolTip("When it happened, in your local time")
        row = QHBoxLayout()
        row.addWidget(slider, 1)
        row.addWidget(self.importance)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Content", self.content)
        form.addRow("Type", self.type)
        form.addRow("Importance", row)
        form.addRow("Who sees it", self.scope)
        form.addRow("Happened", self.occurred)
        form.addRow(buttons)

    def changes(self) -> dict[str, Any]:
        """Only what differs from the memory, as `engine.edit` keyword arguments."""
        out: dict[str, Any] = {}
        content = self.content.toPlainText().strip()
        if content and content != self.memory.content:
            out["content"] = content
        kind = self.type.currentText().strip()
        if kind and kind != self.memory.type:
            out["type"] = kind
        if round(self.importance.value(), 2) != round(self.memory.importance, 2):
            out["importance"] = round(self.importance.value(), 2)
        scope = self.scope.currentData()
        if scope != self.memory.scope:
            out["scope"] = scope
        occurred = self.occurred_at()
        if occurred != _to_the_minute(self.memory.occurred_at):
            out["occurred_at"] = occurred.astimezone(UTC)
        return out

    def occurred_at(self) -> datetime:
        """The date field as an aware local moment (Qt gives the wall-clock time without a zone)."""
        shown: datetime = self.occurred.dateTime().toPython()
        return shown.replace(second=0, microsecond=0).astimezone()
