"""What the person can do to memories: edit, pin, forget (archive), restore, purge, undo the last
archive, and undo any one forget batch (an assistant's bulk forget). Each runs `engine` methods on a
worker and reports the changed memories by signal."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.workers import Task
from hindsight_desktop.core.records import Memory

if TYPE_CHECKING:  # the engine is imported on a worker (or when a command runs), never at start-up
    from hindsight_desktop.core.engine import MemoryEngine


def confirm_purge(parent: QWidget | None, n: int) -> bool:
    """Ask before deleting for good; the default button is the safe one."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Delete for good?")
    box.setText(f"Delete {fmt.count(n, 'memory')} for good?")
    box.setInformativeText(
        "This cannot be undone: the text, its links, history and index entries are "
        "removed from the memory file. To keep a way back, use Forget instead."
    )
    delete = box.addButton("Delete for good", QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(keep)
    box.exec()
    return box.clickedButton() is delete


def _reload(engine: MemoryEngine, ids: list[str]) -> list[Memory]:
    return [engine.get(i) for i in ids]


def _forget(engine: MemoryEngine, ids: list[str]) -> list[Memory]:
    return _reload(engine, engine.forget(ids=ids).forgotten)


def _restore(engine: MemoryEngine, ids: list[str]) -> list[Memory]:
    from hindsight_desktop.core.errors import InvalidInput

    restored = []
    for memory_id in ids:
        try:
            restored.append(engine.restore(memory_id))
        except InvalidInput:  # already active: nothing to do
            continue
    return restored


def _pin(engine: MemoryEngine, ids: list[str], pinned: bool) -> list[Memory]:
    return [engine.edit(i, pinned=pinned) for i in ids]


class MemoryActions(QObject):
    changed = Signal(list)  # Memory objects as they are now
    removed = Signal(list)  # ids purged
    message = Signal(str)  # a line for the status bar
    failed = Signal(str)
    undo_changed = Signal(bool)

    def __init__(
        self,
        backend: Backend,
        parent_widget: QWidget | None = None,
        confirm: Callable[[QWidget | None, int], bool] = confirm_purge,
    ) -> None:
        super().__init__(parent_widget)
        self.backend = backend
        self.parent_widget = parent_widget
        self.confirm = confirm
        self.last_archived: list[str] = []

    def _run(self, fn: Callable[..., Any], *args: Any, done: Callable[[Any], None], name: str) -> Task:
        return self.backend.call(fn, *args, name=name, on_done=done, on_error=lambda exc: self.failed.emit(str(exc)))

    def edit(self, memory: Memory, changes: dict[str, Any]) -> Task | None:
        if not changes:
            return None
        return self._run(
            lambda e: [e.edit(memory.id, **changes)],
            name="edit",
            done=lambda ms: self._changed(ms, "Saved the change."),
        )

    def pin(self, memories: list[Memory]) -> Task | None:
        if not memories:
            return None
        pinned = not all(m.pinned for m in memories)  # mixed selection: pin them all
        word = "Pinned" if pinned else "Unpinned"
        return self._run(
            _pin,
            [m.id for m in memories],
            pinned,
            name="pin",
            done=lambda ms: self._changed(ms, f"{word} {fmt.count(len(ms), 'memory')}."),
        )

    def forget(self, ids: list[str]) -> Task | None:
        if not ids:
            return None
        return self._run(_forget, ids, name="forget", done=self._forgotten)

    def _forgotten(self, memories: list[Memory]) -> None:
        self.last_archived = [m.id for m in memories]
        self.undo_changed.emit(bool(self.last_archived))
        self._changed(
            memories,
            f"Forgot {fmt.count(len(memories), 'memory')} (archived). Undo brings "
            f"{'it' if len(memories) == 1 else 'them'} back.",
        )

    def undo(self) -> Task | None:
        if not self.last_archived:
            return None
        ids, self.last_archived = self.last_archived, []
        self.undo_changed.emit(False)
        return self._run(
            _restore, ids, name="undo", done=lambda ms: self._changed(ms, f"Restored {fmt.count(len(ms), 'memory')}.")
        )

    def undo_batch(self, batch: str) -> Task | None:
        """Restore every memory one forget batch archived that is still archived (any client's forget)."""
        if not batch:
            return None
        return self._run(lambda e: e.undo_forget(batch), name="undo forget", done=self._batch_restored)

    def _batch_restored(self, memories: list[Memory]) -> None:
        restored = {m.id for m in memories}
        if restored & set(self.last_archived):  # the person's own Undo has nothing left to do there
            self.last_archived = [i for i in self.last_archived if i not in restored]
            self.undo_changed.emit(bool(self.last_archived))
        text = (
            f"Restored {fmt.count(len(memories), 'memory')} archived in that forget."
            if memories
            else "Nothing to restore: that forget's memories were already restored or deleted."
        )
        self._changed(memories, text)

    def restore(self, ids: list[str]) -> Task | None:
        if not ids:
            return None
        return self._run(
            _restore,
            ids,
            name="restore",
            done=lambda ms: self._changed(ms, f"Restored {fmt.count(len(ms), 'memory')}."),
        )

    def purge(self, ids: list[str]) -> Task | None:
        if not ids or not self.confirm(self.parent_widget, len(ids)):
            return None
        return self._run(lambda e: e.forget(ids=ids, purge=True).forgotten, name="purge", done=self._purged)

    def _purged(self, ids: list[str]) -> None:
        self.last_archived = [i for i in self.last_archived if i not in ids]
        self.undo_changed.emit(bool(self.last_archived))
        self.removed.emit(ids)
        self.message.emit(f"Deleted {fmt.count(len(ids), 'memory')} for good.")
        self.backend.memories_changed.emit()

    def _changed(self, memories: list[Memory], text: str) -> None:
        self.changed.emit(memories)
        self.message.emit(text)
        self.backend.memories_changed.emit()
