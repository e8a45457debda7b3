"""The timeline as a Qt model: memories newest first, each day opened by a heading row, fetched page by
page. One flat list of rows, so a table view lays out and paints only what is on screen: a tree view
lays out every row it holds again for each page added, which at 80k rows stalled it close to a second.

Pages come from `engine.list_memories(filters, limit, after=<the last memory shown>)` on a worker thread: keyset
paging, so a page 100k rows deep costs what the first one does, and a memory written meanwhile at the
top never shifts a page (as an offset would). The window asks for the next page when the person
scrolls near the end (`fetch_more`), so 100k memories cost one page at a time. Nothing here reads the
whole table.

A loaded memory is kept as one flat tuple of plain values (`pack`, done on the worker), not as the Memory
the engine returned: Python's cycle collector stops tracking such a tuple the first time it sees it, so
the rows of a long scroll give its full collections nothing to walk. As Memory objects (each with its
entity list and Entity objects: ~6 tracked objects a row) 80k rows made each full collection, run on
whichever thread happened to allocate, hold the GIL (so the UI thread) for up to ~250 ms. `memory_at`
unpacks an equal Memory on demand. (What start-up leaves alive: `main.settle_collector`.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import date
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.core.records import Entity, Memory, MemoryFilter

if TYPE_CHECKING:  # the engine is imported on a worker (or when a command runs), never at start-up
    from hindsight_desktop.core.engine import MemoryEngine

PAGE = 200
COLUMNS = ("When", "Memory", "Type", "Layer", "Client", "Importance")
MEMORY_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
# Asked for often while painting: built once (an enum member looked up on Qt's class costs a Python call).
DAY_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren
MEMORY_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
NO_FLAGS = Qt.ItemFlag.NoItemFlags
_DISPLAY, _TOOLTIP, _FONT = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole
_FOREGROUND, _ALIGNMENT = Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.TextAlignmentRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
# The roles `data` answers. A painted cell asks for seven, three of which (icon, check box, background)
# never have anything here: those go back at once.
_ANSWERED = frozenset(int(r) for r in (_DISPLAY, _TOOLTIP, _FONT, _FOREGROUND, _ALIGNMENT, MEMORY_ROLE, ID_ROLE))

Index = QModelIndex | QPersistentModelIndex


@dataclass(slots=True)
class DayGroup:
    """A day's heading row; `count` is how many of its memories are loaded."""

    day: date
    count: int = 0


# ---- a memory as a row: one flat tuple of plain values -------------------------------------------
# (*Memory's other fields in order, metadata as JSON text or None, *each entity's kind, text, value).
# Flat on purpose: the collector untracks a tuple once everything in it is untracked, one level per
# pass, so a nested tuple (or a dict or list anywhere) would keep the row tracked for longer, or for good.
MemoryRow = tuple
Row = MemoryRow | DayGroup

_PLAIN = tuple(f.name for f in fields(Memory) if f.name not in ("entities", "metadata"))
_plain_values = attrgetter(*_PLAIN)
_ENTITY = tuple(f.name for f in fields(Entity))
_entity_values = attrgetter(*_ENTITY)
_METADATA = len(_PLAIN)  # entities follow it
_ID, _CONTENT, _STATUS, _OCCURRED = (_PLAIN.index(name) for name in ("id", "content", "status", "occurred_at"))
_SHOWN = ("occurred_at", "content", "pinned", "type", "layer", "client", "importance")  # what the columns read
_shown_in_memory = attrgetter(*_SHOWN)
_shown_in_row = itemgetter(*(_PLAIN.index(name) for name in _SHOWN))


def pack(m: Memory) -> MemoryRow:
    """`m` as a row."""
    entities = [value for e in m.entities for value in _entity_values(e)]
    return (*_plain_values(m), json.dumps(m.metadata) if m.metadata else None, *entities)


def unpack(row: MemoryRow) -> Memory:
    """The Memory a row was packed from (an equal, new object)."""
    metadata, flat, size = row[_METADATA], row[_METADATA + 1 :], len(_ENTITY)
    return Memory(
        **dict(zip(_PLAIN, row[:_METADATA], strict=True)),
        entities=[Entity(*flat[i : i + size]) for i in range(0, len(flat), size)],
        metadata=json.loads(metadata) if metadata else {},
    )


def _row_key(row: Row) -> object:
    """What a row stands for across a refresh: its memory's id, or its day."""
    return row.day if isinstance(row, DayGroup) else row[_ID]


def _page(engine: MemoryEngine, filters: MemoryFilter, limit: int, after: Memory | None) -> tuple[MemoryRow, ...]:
    """One page, packed on the worker, so the UI thread only inserts it. A tuple, not a list: wherever
    the page is kept (a finished Task keeps its result) the collector untracks it like its rows."""
    return tuple(pack(m) for m in engine.list_memories(filters, limit=limit, after=after))


def _cell(column: int, shown: tuple) -> str:
    when, content, pinned, kind, layer, client, importance = shown
    if column == 0:
        return fmt.clock_time(when)
    if column == 1:
        return ("★ " if pinned else "") + fmt.one_line(content)
    if column == 5:
        return f"{importance:.2f}"
    return (kind, layer, client)[column - 2]


def memory_cell(m: Memory, column: int) -> str:
    """The text of one column for one memory (shared with the search results)."""
    return _cell(column, _shown_in_memory(m))


def status_style(status: str, role: int) -> Any:
    """Archived rows read dimmed, superseded ones struck through."""
    if status == "active":
        return None
    if role == _FOREGROUND:
        return QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    if role == _FONT:
        font = QFont()
        font.setItalic(status == "archived")
        font.setStrikeOut(status == "superseded")
        return font
    return None


def memory_style(m: Memory, role: int) -> Any:
    """`status_style` for a Memory (shared with the search results)."""
    return status_style(m.status, role)


class TimelineModel(QAbstractTableModel):
    loading_changed = Signal(bool)
    total_changed = Signal(int)
    load_failed = Signal(str)

    def __init__(self, backend: Backend, page_size: int = PAGE, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.page_size = page_size
        self.filters = MemoryFilter()
        self.total: int | None = None
        self._rows: list[Row] = []
        self._tail: int | None = None  # the last day's heading row, where the next page may carry on
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
        self._rows, self._tail, self._loaded, self._exhausted, self._pending = [], None, 0, False, False
        self.total = None
        self.endResetModel()
        if self.backend.is_ready:
            generation = self._generation
            self.backend.call(
                lambda e, f: e.count(f),
                self.filters,
                name="count",
                on_done=lambda n: self._counted(generation, n),
                on_error=self._failed,
            )
            self._fetch()

    @property
    def loaded(self) -> int:
        return self._loaded

    @property
    def loading(self) -> bool:
        return self._pending

    @property
    def has_more(self) -> bool:
        """More pages exist (or may: the last one was full)."""
        return not self._exhausted and self.backend.is_ready

    def fetch_more(self) -> bool:
        """Ask for the next page, unless one is on its way or none is left; True when asked."""
        if not self.has_more or self._pending:
            return False
        self._fetch()
        return True

    def _fetch(self) -> None:
        self._pending = True
        self.loading_changed.emit(True)
        generation = self._generation
        last = next((r for r in reversed(self._rows) if isinstance(r, tuple)), None)  # removed rows: no gap
        after = unpack(last) if last is not None else None
        self.backend.call(
            _page,
            self.filters,
            self.page_size,
            after,
            name="timeline page",
            on_done=lambda page: self._arrived(generation, page),
            on_error=self._failed,
        )

    def _counted(self, generation: int, n: int) -> None:
        if generation == self._generation:
            self.total = n
            self.total_changed.emit(n)

    def _failed(self, exc: BaseException) -> None:
        self._pending = False
        self._exhausted = True  # stop asking; a reload tries again
        self.loading_changed.emit(False)
        self.load_failed.emit(str(exc))

    def _arrived(self, generation: int, page: Sequence[MemoryRow]) -> None:
        if generation != self._generation:
            return
        self._append(page)  # still pending meanwhile: nothing asks for the next page before this one is in
        self._loaded += len(page)
        self._exhausted = len(page) < self.page_size
        self._pending = False
        self.loading_changed.emit(False)

    def _append(self, page: Sequence[MemoryRow]) -> None:
        """Add a page at the end, in one insertion: a heading before each new day's first memory."""
        tail = self._tail
        current = self._rows[tail] if tail is not None else None
        new: list[Row] = []
        for row in page:
            day = fmt.day_of(row[_OCCURRED])
            if not isinstance(current, DayGroup) or current.day != day:
                current = DayGroup(day)
                new.append(current)
                self._tail = len(self._rows) + len(new) - 1
            current.count += 1
            new.append(row)
        if not new:
            return
        self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(new) - 1)
        self._rows.extend(new)
        self.endInsertRows()
        if tail is not None and not isinstance(new[0], DayGroup):  # the last day carried on: its count grew
            self.dataChanged.emit(self.index(tail, 0), self.index(tail, 0))

    def _heading_row(self, row: int) -> int | None:
        """The heading above `row` (the day it belongs to)."""
        for r in range(min(row, len(self._rows)) - 1, -1, -1):
            if isinstance(self._rows[r], DayGroup):
                return r
        return None

    # ---- changes made by other processes -----------------------------------------------------------
    def refresh(self) -> None:
        """Read again what is loaded (as many rows, same filters) and show the difference in place: the
        views keep their selection and scroll position (a layout change, not a reset)."""
        if not self.backend.is_ready or self._pending:
            return  # a page is on its way: the next change signal refreshes
        generation, want = self._generation, max(self._loaded, self.page_size)
        self.backend.call(
            _page,
            self.filters,
            want,
            None,
            name="timeline refresh",
            on_done=lambda page: self._refreshed(generation, page, want),
            on_error=self._failed,
        )
        self.backend.call(
            lambda e, f: e.count(f),
            self.filters,
            name="count",
            on_done=lambda n: self._counted(generation, n),
            on_error=self._failed,
        )

    def _refreshed(self, generation: int, page: Sequence[MemoryRow], asked: int) -> None:
        if generation != self._generation or self._pending:
            return  # reloaded or paging meanwhile: that answer is the newer one
        rows: list[Row] = []
        tail: int | None = None
        for row in page:
            day = fmt.day_of(row[_OCCURRED])
            if tail is None or not isinstance(rows[tail], DayGroup) or rows[tail].day != day:  # type: ignore[union-attr]
                rows.append(DayGroup(day))
                tail = len(rows) - 1
            group = rows[tail]
            assert isinstance(group, DayGroup)
            group.count += 1
            rows.append(row)
        if rows == self._rows:
            return
        self.layoutAboutToBeChanged.emit()
        old = [_row_key(r) for r in self._rows]
        where = {_row_key(r): i for i, r in enumerate(rows)}
        for index in self.persistentIndexList():  # the selection and the current row follow their memory
            at = where.get(old[index.row()]) if index.row() < len(old) else None
            self.changePersistentIndex(index, self.index(at, index.column()) if at is not None else QModelIndex())
        self._rows, self._tail, self._loaded = rows, tail, len(page)
        self._exhausted = len(page) < asked
        self.layoutChanged.emit()

    # ---- changes made here ------------------------------------------------------------------
    def replace(self, memory: Memory) -> None:
        """Show an edited, pinned, archived or restored memory in place (or drop it if the filter no
        longer matches)."""
        row = self._find(memory.id)
        if row is None:
            return
        if not self.matches(memory):
            self.remove_ids([memory.id])
            return
        self._rows[row] = pack(memory)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def remove_ids(self, ids: Iterable[str]) -> None:
        gone = set(ids)
        rows = [r for r, item in enumerate(self._rows) if isinstance(item, tuple) and item[_ID] in gone]
        for row in reversed(rows):  # from the bottom up, so the rows still to go keep their numbers
            self._remove(row)

    def _remove(self, row: int) -> None:
        heading = self._heading_row(row)
        assert heading is not None  # every memory row follows its day's heading
        group = self._rows[heading]
        assert isinstance(group, DayGroup)
        group.count -= 1
        first = heading if group.count == 0 else row  # a day's last memory takes its heading along
        self.beginRemoveRows(QModelIndex(), first, row)
        del self._rows[first : row + 1]
        self.endRemoveRows()
        if self._tail is not None and first <= self._tail:
            gone = row - first + 1
            self._tail = self._heading_row(len(self._rows)) if first == self._tail else self._tail - gone
        if group.count:
            self.dataChanged.emit(self.index(heading, 0), self.index(heading, 0))
        self._loaded -= 1
        if self.total:
            self.total -= 1
            self.total_changed.emit(self.total)

    def matches(self, m: Memory) -> bool:
        f = self.filters
        return (
            (not f.statuses or m.status in f.statuses)
            and (not f.types or m.type in f.types)
            and (f.pinned is None or m.pinned == f.pinned)
        )

    def _find(self, memory_id: str) -> int | None:
        for row, item in enumerate(self._rows):
            if isinstance(item, tuple) and item[_ID] == memory_id:
                return row
        return None

    def index_of(self, memory_id: str) -> QModelIndex:
        row = self._find(memory_id)
        return QModelIndex() if row is None else self.index(row, 0)

    def memory_at(self, index: Index) -> Memory | None:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        item = self._rows[index.row()]
        return unpack(item) if isinstance(item, tuple) else None

    def is_day(self, row: int) -> bool:
        """Whether `row` is a day's heading (the window spans it across the columns)."""
        return 0 <= row < len(self._rows) and isinstance(self._rows[row], DayGroup)

    def memories(self) -> list[Memory]:
        return [unpack(r) for r in self._rows if isinstance(r, tuple)]

    # ---- the model interface -----------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return NO_FLAGS
        return DAY_FLAGS if isinstance(self._rows[index.row()], DayGroup) else MEMORY_FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ANSWERED or not index.isValid():
            return None
        row = self._rows[index.row()]
        if isinstance(row, DayGroup):
            return self._day_data(row, index.column(), role)
        if role == _DISPLAY:
            return _cell(index.column(), _shown_in_row(row))
        if role == MEMORY_ROLE:
            return unpack(row)
        if role == ID_ROLE:
            return row[_ID]
        if role == _TOOLTIP and index.column() == 1:
            return fmt.full_text_tip(row[_CONTENT])
        if role == _ALIGNMENT and index.column() == 5:
            return _RIGHT
        return status_style(row[_STATUS], role)

    def _day_data(self, group: DayGroup, column: int, role: int) -> Any:
        if column != 0:
            return None
        if role == _DISPLAY:
            return f"{fmt.day_label(group.day)}  ·  {fmt.count(group.count, 'memory')}"
        if role == _FONT:
            font = QFont()
            font.setBold(True)
            return font
        if role == _FOREGROUND:
            return QColor(QApplication.palette().color(QPalette.ColorRole.Link))  # a text colour, unlike Highlight
        return None
