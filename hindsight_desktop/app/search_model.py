"""Search results as a flat table, ranked by the engine's hybrid recall (best first).

The first column says how sure each result answers the search (its `confidence`, in plain words); the
ranking is by relevance, which the why panel shows. When no result reaches the engine's HIT_CONFIDENCE
the search found nothing relevant: the header says so and the weak matches are still listed, greyed."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from hindsight_desktop.app import fmt
from hindsight_desktop.app.timeline_model import ID_ROLE, MEMORY_ROLE, memory_cell, memory_style
from hindsight_desktop.core.engine import HIT_CONFIDENCE
from hindsight_desktop.core.records import Memory, SearchHit

COLUMNS = ("Sure", "Memory", "Type", "When", "Client")
NOTHING_RELEVANT = "Nothing relevant found"
_MEMORY_COLUMN = {1: 1, 2: 2, 4: 4}  # our column -> the timeline's column with the same text
HIT_ROLE = Qt.ItemDataRole.UserRole + 3

Index = QModelIndex | QPersistentModelIndex


class SearchModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.query = ""
        self.hits: list[SearchHit] = []

    def set_hits(self, query: str, hits: list[SearchHit]) -> None:
        self.beginResetModel()
        self.query, self.hits = query, list(hits)
        self.endResetModel()

    @property
    def nothing_relevant(self) -> bool:
        """A search ran and none of its results is likely to answer it (the MCP tool's rule)."""
        return bool(self.query) and not any(h.confidence >= HIT_CONFIDENCE for h in self.hits)

    def status_text(self) -> str:
        """One line for the status bar about what the search found."""
        if not self.hits:
            return f"Nothing found for “{self.query}”"
        found = fmt.count(len(self.hits), "result")
        if self.nothing_relevant:
            return f"{NOTHING_RELEVANT} for “{self.query}”: {found}, all weak  ·  Esc returns to the timeline"
        return f"{found} for “{self.query}”  ·  Esc returns to the timeline"

    def clear(self) -> None:
        self.set_hits("", [])

    def hit_at(self, index: Index) -> SearchHit | None:
        return self.hits[index.row()] if index.isValid() and index.row() < len(self.hits) else None

    def memory_at(self, index: Index) -> Memory | None:
        hit = self.hit_at(index)
        return hit.memory if hit else None

    def index_of(self, memory_id: str) -> QModelIndex:
        for row, hit in enumerate(self.hits):
            if hit.memory.id == memory_id:
                return self.index(row, 0)
        return QModelIndex()

    def replace(self, memory: Memory) -> None:
        for row, hit in enumerate(self.hits):
            if hit.memory.id == memory.id:
                hit.memory = memory
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def remove_ids(self, ids: list[str]) -> None:
        gone = set(ids)
        for row in reversed(range(len(self.hits))):
            if self.hits[row].memory.id in gone:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self.hits[row]
                self.endRemoveRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            if section == 1 and self.nothing_relevant and self.hits:
                return f"Memory  ·  {NOTHING_RELEVANT}; these are weak matches"
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and section == 0:
            return "How sure the memory answers your search (0 to 1); below 0.50 it is probably not an answer."
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        hit = self.hit_at(index)
        if hit is None:
            return None
        m, column = hit.memory, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return sureness(hit.confidence)
            if column == 3:
                return fmt.when(m.occurred_at)
            return memory_cell(m, _MEMORY_COLUMN[column])
        if role == MEMORY_ROLE:
            return m
        if role == HIT_ROLE:
            return hit
        if role == ID_ROLE:
            return m.id
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return f"Confidence {hit.confidence:.2f} that it answers; relevance {hit.relevance:.3f} ranks it."
        if role == Qt.ItemDataRole.ToolTipRole and column == 1:
            return fmt.full_text_tip(m.content)
        if role == Qt.ItemDataRole.ForegroundRole and hit.confidence < HIT_CONFIDENCE:
            return QApplication.palette().color(QPalette.ColorRole.PlaceholderText)  # a weak match, greyed
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return memory_style(m, role)


def sureness(confidence: float) -> str:
    """A result's confidence in plain words: "0.83 sure", or "0.31 weak" below HIT_CONFIDENCE."""
    return f"{confidence:.2f} {'sure' if confidence >= HIT_CONFIDENCE else 'weak'}"
