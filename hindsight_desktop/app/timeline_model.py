"""The timeline as a Qt model: day groups (newest first) holding memories, fetched page by page.

Pages come from `engine.list(filters, limit, offset)` on a worker thread; the view asks for the next
page only when the person scrolls near the end, so 100k memories cost one page at a time. Nothing
here reads the whole table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.core.models import Memory, MemoryFilter

PAGE = 200
COLUMNS = ("When", "Memory", "Type", "Layer", "Client", "Importance")
MEMORY_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
ROOT = 0  # internalId of top-level (day) rows; a memory row stores its day's row + 1

Index = QModelIndex | QPersistentModelIndex


@dataclass
class DayGroup:
    day: date
    items: list[Memory] = field(default_factory=list)


def memory_cell(m: Memory, column: int) -> str:
    """The text of one column for one memory (shared with the search results)."""
    if column == 0:
        return fmt.clock_time(m.occurred_at)
    if column == 1:
        return ("★ " if m.pinned else "") + fmt.one_line(m.content)
    if column == 2:
        return m.type
    if column == 3:
        return m.layer
    if column == 4:
        return m.client
    return f"{m.importance:.2f}"


def memory_style(m: Memory, role: int) -> Any:
    """Archived rows read dimmed, superseded ones struck through."""
    if role == Qt.ItemDataRole.ForegroundRole and m.status != "active":
        return QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    if role == Qt.ItemDataRole.FontRole and m.status != "active":
        font = QFont()
        font.setItalic(m.status == "archived")
        font.setStrikeOut(m.status == "superseded")
        return font
    return None


class TimelineModel(QAbstractItemModel):
    loading_changed = Signal(bool)
    total_changed = Signal(int)
    load_failed = Signal(str)

    def __init__(self, backend: Backend, page_size: int = PAGE, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.page_size = page_size
        self.filters = MemoryFilter()
        self.total: int | None = None
        self._groups: list[DayGroup] = []
        self._loaded = 0
        self._exhausted = False
        self._pending = False
        self._generation = 0  # answers from before a reload are dropped

    # ---- loading -------------------------------------------------------------------------------
    def set_filters(self, filters: MemoryFilter) -> None:
        self.filters = filters
        self.reload()

    def reload(self) -> None:
        self._generation += 1
        self.beginResetModel()
        self._groups, self._loaded, self._exhausted, self._pending, self.total = [], 0, False, False, None
        self.endResetModel()
        if self.backend.is_ready:
            generation = self._generation
            self.backend.call(lambda e, f: e.count(f), self.filters, name="count",
                              on_done=lambda n: self._counted(generation, n), on_error=self._failed)
            self._fetch()

    @property
    def loaded(self) -> int:
        return self._loaded

    @property
    def loading(self) -> bool:
        return self._pending

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt's signature
        return not parent.isValid() and not self._exhausted and not self._pending and self.backend.is_ready

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._fetch()

    def _fetch(self) -> None:
        self._pending = True
        self.loading_changed.emit(True)
        generation = self._generation
        self.backend.call(lambda e, f, n, o: e.list(f, limit=n, offset=o), self.filters, self.page_size,
                          self._loaded, name="timeline page",
                          on_done=lambda page: self._arrived(generation, page), on_error=self._failed)

    def _counted(self, generation: int, n: int) -> None:
        if generation == self._generation:
            self.total = n
            self.total_changed.emit(n)

    def _failed(self, exc: BaseException) -> None:
        self._pending = False
        self._exhausted = True  # stop asking; a reload tries again
        self.loading_changed.emit(False)
        self.load_failed.emit(str(exc))

    def _arrived(self, generation: int, page: list[Memory]) -> None:
        if generation != self._generation:
            return
        self._pending = False
        self._exhausted = len(page) < self.page_size
        self._append(page)
        self._loaded += len(page)
        self.loading_changed.emit(False)

    def _append(self, page: list[Memory]) -> None:
        """Add a page in runs of one day: onto the last group, or as new groups at the end."""
        run: list[Memory] = []
        for memory in page + [None]:  # type: ignore[list-item]  # a sentinel flushes the last run
            if run and (memory is None or fmt.day_of(memory.occurred_at) != fmt.day_of(run[0].occurred_at)):
                self._add_run(run)
                run = []
            if memory is not None:
                run.append(memory)

    def _add_run(self, run: list[Memory]) -> None:
        day = fmt.day_of(run[0].occurred_at)
        if self._groups and self._groups[-1].day == day:
            row = len(self._groups) - 1
            group = self._groups[row]
            self.beginInsertRows(self.index(row, 0), len(group.items), len(group.items) + len(run) - 1)
            group.items.extend(run)
            self.endInsertRows()
        else:
            self.beginInsertRows(QModelIndex(), len(self._groups), len(self._groups))
            self._groups.append(DayGroup(day, list(run)))
            self.endInsertRows()

    # ---- changes made elsewhere ------------------------------------------------------------------
    def replace(self, memory: Memory) -> None:
        """Show an edited, pinned, archived or restored memory in place (or drop it if the filter no
        longer matches)."""
        where = self._find(memory.id)
        if where is None:
            return
        g, r = where
        if not self.matches(memory):
            self.remove_ids([memory.id])
            return
        self._groups[g].items[r] = memory
        parent = self.index(g, 0)
        self.dataChanged.emit(self.index(r, 0, parent), self.index(r, len(COLUMNS) - 1, parent))

    def remove_ids(self, ids: Iterable[str]) -> None:
        for memory_id in ids:
            where = self._find(memory_id)
            if where is None:
                continue
            g, r = where
            if len(self._groups[g].items) == 1:
                self.beginRemoveRows(QModelIndex(), g, g)
                del self._groups[g]
            else:
                self.beginRemoveRows(self.index(g, 0), r, r)
                del self._groups[g].items[r]
            self.endRemoveRows()
            self._loaded -= 1  # keeps the next page's offset right
            if self.total:
                self.total -= 1
                self.total_changed.emit(self.total)

    def matches(self, m: Memory) -> bool:
        f = self.filters
        return ((not f.statuses or m.status in f.statuses) and (not f.types or m.type in f.types)
                and (f.pinned is None or m.pinned == f.pinned))

    def _find(self, memory_id: str) -> tuple[int, int] | None:
        for g, group in enumerate(self._groups):
            for r, m in enumerate(group.items):
                if m.id == memory_id:
                    return g, r
        return None

    def index_of(self, memory_id: str) -> QModelIndex:
        where = self._find(memory_id)
        if where is None:
            return QModelIndex()
        return self.index(where[1], 0, self.index(where[0], 0))

    def memory_at(self, index: Index) -> Memory | None:
        if not index.isValid() or index.internalId() == ROOT:
            return None
        return self._groups[index.internalId() - 1].items[index.row()]

    def memories(self) -> list[Memory]:
        return [m for g in self._groups for m in g.items]

    # ---- the model interface -----------------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if parent.isValid():
            if parent.internalId() != ROOT or not 0 <= row < len(self._groups[parent.row()].items):
                return QModelIndex()
            return self.createIndex(row, column, parent.row() + 1)
        if not 0 <= row < len(self._groups):
            return QModelIndex()
        return self.createIndex(row, column, ROOT)

    def parent(self, index: Index | None = None) -> Any:  # type: ignore[override]
        if index is None:  # QObject.parent()
            return QObject.parent(self)
        if not index.isValid() or index.internalId() == ROOT:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, ROOT)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self._groups)
        if parent.internalId() == ROOT and parent.column() == 0:
            return len(self._groups[parent.row()].items)
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return self.rowCount(parent) > 0

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.internalId() == ROOT:
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId() == ROOT:
            return self._day_data(self._groups[index.row()], index.column(), role)
        m = self._groups[index.internalId() - 1].items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return memory_cell(m, index.column())
        if role == MEMORY_ROLE:
            return m
        if role == ID_ROLE:
            return m.id
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 1:
            return fmt.one_line(m.content, 1200)
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 5:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return memory_style(m, role)

    def _day_data(self, group: DayGroup, column: int, role: int) -> Any:
        if column != 0:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{fmt.day_label(group.day)}  ·  {fmt.count(len(group.items), 'memory')}"
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            return QColor(QApplication.palette().color(QPalette.ColorRole.Highlight))
        return None
