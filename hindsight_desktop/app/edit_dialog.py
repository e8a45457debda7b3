"""Edit one memory's content, type and importance. Saving goes through `engine.edit` (re-embedded)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
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
from hindsight_desktop.core.records import Memory


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
        return out
