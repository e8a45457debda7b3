"""The filter bar: layer, type, client, status, date range, pinned. It builds a `MemoryFilter`."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDateEdit, QHBoxLayout, QLabel, QPushButton, QWidget

from hindsight_desktop.core.records import LAYERS, MemoryFilter

# The types the write gate assigns; people may type any other label.
KNOWN_TYPES = ("fact", "preference", "event", "plan", "instruction", "skill", "note")
STATUS_CHOICES = {"Active": ("active",), "Archived": ("archived",), "Superseded": ("superseded",), "Any status": ()}
ANY = "Any"


def _combo(first: str, items: list[str] | tuple[str, ...], editable: bool = False) -> QComboBox:
    box = QComboBox()
    box.addItem(first)
    box.addItems(list(items))
    box.setEditable(editable)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    return box


def _date_edit() -> QDateEdit:
    edit = QDateEdit(QDate.currentDate())
    edit.setCalendarPopup(True)
    edit.setDisplayFormat("d MMM yyyy")
    edit.setEnabled(False)
    return edit


def day_bounds(day: QDate, end: bool) -> datetime:
    """A local calendar day's first (or last) moment, in UTC as the engine wants."""
    moment = time.max if end else time.min
    local = datetime.combine(day.toPython(), moment).astimezone()
    return local.astimezone(UTC)


class FilterBar(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layer = _combo("All layers", LAYERS)
        self.type = _combo("All types", KNOWN_TYPES, editable=True)
        self.client = _combo("All clients", [])
        self.status = _combo("Active", [k for k in STATUS_CHOICES if k != "Active"])
        self.use_since, self.since = QCheckBox("From"), _date_edit()
        self.use_until, self.until = QCheckBox("to"), _date_edit()
        self.pinned = QCheckBox("Pinned only")
        self.reset_button = QPushButton("Reset")
        self.reset_button.setFlat(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(QLabel("Show"))
        for widget in (
            self.layer,
            self.type,
            self.client,
            self.status,
            self.use_since,
            self.since,
            self.use_until,
            self.until,
            self.pinned,
        ):
            layout.addWidget(widget)
        layout.addStretch(1)
        layout.addWidget(self.reset_button)
        for box in (self.layer, self.client, self.status):
            box.currentIndexChanged.connect(self.changed)
        self.type.currentTextChanged.connect(lambda _text: self.changed.emit())
        for check, edit in ((self.use_since, self.since), (self.use_until, self.until)):
            check.toggled.connect(edit.setEnabled)
            check.toggled.connect(self.changed)
            edit.dateChanged.connect(self._date_changed)
        self.pinned.toggled.connect(self.changed)
        self.reset_button.clicked.connect(self.reset)

    def _date_changed(self, *_: Any) -> None:
        if self.use_since.isChecked() or self.use_until.isChecked():
            self.changed.emit()

    def set_clients(self, names: list[str]) -> None:
        """Offer the clients that have written memories (keeps the current choice)."""
        current = self.client.currentText()
        self.client.blockSignals(True)
        self.client.clear()
        self.client.addItem("All clients")
        self.client.addItems(sorted(names))
        self.client.setCurrentText(current if current in names else "All clients")
        self.client.blockSignals(False)

    def reset(self) -> None:
        for box in (self.layer, self.type, self.client, self.status):
            box.blockSignals(True)
            box.setCurrentIndex(0)
            box.blockSignals(False)
        for check in (self.use_since, self.use_until, self.pinned):
            check.blockSignals(True)
            check.setChecked(False)
            check.blockSignals(False)
        self.since.setEnabled(False)
        self.until.setEnabled(False)
        self.changed.emit()

    def filters(self) -> MemoryFilter:
        kind = self.type.currentText().strip()
        return MemoryFilter(
            layers=(self.layer.currentText(),) if self.layer.currentIndex() > 0 else (),
            types=(kind,) if kind and kind != "All types" else (),
            written_by=(self.client.currentText(),) if self.client.currentIndex() > 0 else (),
            statuses=STATUS_CHOICES.get(self.status.currentText(), ()),
            since=day_bounds(self.since.date(), end=False) if self.use_since.isChecked() else None,
            until=day_bounds(self.until.date(), end=True) if self.use_until.isChecked() else None,
            pinned=True if self.pinned.isChecked() else None,
        )


def search_arguments(f: MemoryFilter) -> dict[str, Any]:
    """The same filter as `engine.search` arguments; archived or superseded need a deep search."""
    return {
        "layer": list(f.layers) or None,
        "type": list(f.types) or None,
        "since": f.since,
        "until": f.until,
        "written_by": f.written_by[0] if len(f.written_by) == 1 else None,
        "deep": not f.statuses or any(s != "active" for s in f.statuses),
    }


def keep_hit(f: MemoryFilter, status: str, pinned: bool) -> bool:
    """What `engine.search` cannot filter itself: status and pinned."""
    return (not f.statuses or status in f.statuses) and (f.pinned is None or pinned == f.pinned)
