"""After a forget, the row below the forgotten ones stays selected (or the one above, at the end), so
the next Delete or Enter acts on a memory the person can see, as in a mail client."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QAbstractItemView

from hindsight_desktop.app.timeline_model import MEMORY_ROLE
from hindsight_desktop.core.records import Memory


def _memory_id(view: QAbstractItemView, row: int) -> str | None:
    memory = view.model().index(row, 0).data(MEMORY_ROLE)
    return memory.id if isinstance(memory, Memory) else None


def neighbour_id(view: QAbstractItemView, leaving: list[str]) -> str | None:
    """The memory to select once `leaving` are gone: the first one below them, else the last one above."""
    gone = set(leaving)
    rows = [(row, _memory_id(view, row)) for row in range(view.model().rowCount())]
    last = max((row for row, mid in rows if mid in gone), default=None)
    if last is None:
        return None
    below = [mid for row, mid in rows if row > last and mid is not None and mid not in gone]
    above = [mid for row, mid in rows if row < last and mid is not None and mid not in gone]
    return below[0] if below else (above[-1] if above else None)


def select_id(view: QAbstractItemView, memory_id: str) -> bool:
    """Make `memory_id`'s row the current, selected one; False when it is not shown."""
    for row in range(view.model().rowCount()):
        if _memory_id(view, row) == memory_id:
            index = view.model().index(row, 0)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            view.selectionModel().setCurrentIndex(index, flags)
            view.scrollTo(index)
            return True
    return False
