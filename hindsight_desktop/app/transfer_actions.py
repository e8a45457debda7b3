"""Export and import from the timeline: the file dialogs, then a worker with progress and Cancel."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from hindsight_desktop.app import transfer
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.job_bar import JobBar
from hindsight_desktop.app.workers import Cancelled, Task
from hindsight_desktop.core.records import MemoryFilter

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import ImportReport

IMPORT_FILES = "Memory files (*.json *.jsonl *.md *.markdown *.txt);;All files (*)"


class TransferActions(QObject):
    message = Signal(str)  # for the status bar
    imported = Signal()  # memories arrived: views reload

    def __init__(
        self,
        backend: Backend,
        window: QWidget,
        job_bar: JobBar,
        filters: Callable[[], MemoryFilter],
        selection: Callable[[], list[str]],
    ) -> None:
        super().__init__(window)
        self.backend, self.window, self.job_bar = backend, window, job_bar
        self.filters, self.selection = filters, selection

    def export_dialog(self) -> Task | None:
        path, chosen = QFileDialog.getSaveFileName(
            self.window, "Export memories", "memories.json", ";;".join(transfer.FORMATS.values())
        )
        if not path:
            return None
        chosen_ids = self.selection()
        ids = chosen_ids if len(chosen_ids) > 1 else None
        return self.export_to(path, transfer.format_for(path, chosen), ids)

    def export_to(self, path: str, fmt_key: str, ids: list[str] | None = None) -> Task:
        """Everything the current filters show, or only the given ids."""
        task = self.backend.call(
            transfer.export_job,
            fmt_key,
            path,
            self.filters(),
            ids,
            name="export",
            progress=True,
            on_error=self._failed,
            on_done=lambda r: self.message.emit(transfer.describe(r, "Exported")),
        )
        self.job_bar.follow(task, f"Exporting to {path}…")
        return task

    def import_dialog(self) -> Task | None:
        path, _chosen = QFileDialog.getOpenFileName(self.window, "Import memories", "", IMPORT_FILES)
        return self.import_from(path) if path else None

    def import_from(self, path: str) -> Task:
        task = self.backend.call(
            transfer.import_job, path, name="import", progress=True, on_done=self._imported, on_error=self._failed
        )
        self.job_bar.follow(task, f"Importing {path}…")
        return task

    def _imported(self, result: ImportReport) -> None:
        self.message.emit(transfer.describe(result, "Imported"))
        self.imported.emit()
        self.backend.memories_changed.emit()

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):
            self.message.emit("Cancelled.")
            self.imported.emit()  # an import may have stored part of the file: show what is there
        else:
            self.message.emit(f"Something went wrong: {exc}")
