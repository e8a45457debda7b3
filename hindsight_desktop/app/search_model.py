"""Search results as a flat table, ranked by the engine's hybrid recall (best first)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from hindsight_desktop.app import fmt
from hindsight_desktop.app.timeline_model import ID_ROLE, MEMORY_ROLE, memory_cell, memory_style
from hindsight_desktop.core.records import Memory, SearchHit

COLUMNS = ("Score", "Memory", "Type", "When", "Client")
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
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        hit = self.hit_at(index)
        if hit is None:
            return None
        m, column = hit.memory, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return f"{hit.relevance:.3f}"
            if column == 3:
                return fmt.when(m.occurred_at)
            return memory_cell(m, _MEMORY_COLUMN[column])
        if role == MEMORY_ROLE:
            return m
        if role == HIT_ROLE:
            return hit
        if role == ID_ROLE:
            return m.id
        if role == Qt.ItemDataRole.ToolTipRole and column == 1:
            return fmt.full_text_tip(m.content)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return memory_style(m, role)
