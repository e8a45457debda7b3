"""Export and import from the timeline. Export first says what it will write (everything, by default; or
only what the timeline shows, or the selection); import first shows the dry run's account and writes only
when the person says so. Both then run on a worker with progress and Cancel."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop.app import transfer
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.job_bar import JobBar
from hindsight_desktop.app.workers import Cancelled, Task
from hindsight_desktop.core.records import MemoryFilter

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import ImportPlan, ImportReport

IMPORT_FILES = "Memory files (*.json *.jsonl *.md *.markdown *.txt);;All files (*)"
EVERYTHING, SHOWN, SELECTED = "everything", "shown", "selected"


class ExportChoice(QDialog):
    """What the export will hold, said before the file is chosen: everything unless the person picks less."""

    def __init__(self, sizes: tuple[int, int, int], selected: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export memories")
        total, links, shown = sizes
        self.options = {
            EVERYTHING: QRadioButton(
                f"Everything: {total:,} memories (history included), {links:,} links and the change history"
            ),
            SHOWN: QRadioButton(f"Only what the timeline shows now: {shown:,} memories (the current filter)"),
        }
        if selected > 1:
            self.options[SELECTED] = QRadioButton(f"Only the {selected:,} selected memories")
        self.options[EVERYTHING].setChecked(True)
        group = QButtonGroup(self)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("What should the file hold?"))
        for button in self.options.values():
            group.addButton(button)
            layout.addWidget(button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton("Choose file…", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def scope(self) -> str:
        return next(key for key, button in self.options.items() if button.isChecked())


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
        self.choice: ExportChoice | None = None  # the open export question, if any
        self.preview_box: QMessageBox | None = None  # the open import preview, if any

    def export_dialog(self) -> Task:
        """Count what there is, then ask what to export (see `ExportChoice`)."""
        shown = self.filters()
        return self.backend.call(
            transfer.export_sizes, shown, name="count", on_done=self._ask_scope, on_error=self._failed
        )

    def _ask_scope(self, sizes: tuple[int, int, int]) -> None:
        chosen_ids = self.selection()
        choice = self.choice = ExportChoice(sizes, len(chosen_ids), self.window)
        choice.accepted.connect(lambda: self._pick_file(choice.scope(), chosen_ids))
        choice.open()

    def _pick_file(self, scope: str, chosen_ids: list[str]) -> Task | None:
        path, chosen = QFileDialog.getSaveFileName(
            self.window, "Export memories", "memories.json", ";;".join(transfer.FORMATS.values())
        )
        if not path:
            return None
        ids = chosen_ids if scope == SELECTED else None
        return self.export_to(path, transfer.format_for(path, chosen), ids, shown=scope == SHOWN)

    def export_to(self, path: str, fmt_key: str, ids: list[str] | None = None, *, shown: bool = False) -> Task:
        """Everything, or (`shown`) what the current filters show, or only the given ids."""
        task = self.backend.call(
            transfer.export_job,
            fmt_key,
            path,
            self.filters() if shown else None,
            ids,
            name="export",
            progress=True,
            on_error=self._failed,
            on_done=lambda r: self.message.emit(transfer.export_words(r)),
        )
        self.job_bar.follow(task, f"Exporting to {path}…")
        return task

    def import_dialog(self) -> Task | None:
        path, _chosen = QFileDialog.getOpenFileName(self.window, "Import memories", "", IMPORT_FILES)
        return self.preview(path) if path else None

    def preview(self, path: str) -> Task:
        """The dry run first: what the import would do (or why the file is refused); nothing is written."""
        task = self.backend.call(
            transfer.preview_job,
            path,
            name="preview the import",
            progress=True,
            on_done=lambda planned: self._show_preview(path, planned),
            on_error=self._failed,
        )
        self.job_bar.follow(task, f"Reading {path}…")
        return task

    def _show_preview(self, path: str, planned: tuple[ImportPlan, ImportReport] | str) -> None:
        box = QMessageBox(self.window)
        box.setWindowTitle("Import memories")
        if isinstance(planned, str):
            box.setIcon(QMessageBox.Icon.Warning)
            box.setText(transfer.refused_words(planned))
            box.setStandardButtons(QMessageBox.StandardButton.Close)
            self.message.emit("Import refused; nothing was changed.")
        else:
            plan, report = planned
            box.setText(f"Import {path}?")
            box.setInformativeText(transfer.import_words(report))
            box.addButton("Import", QMessageBox.ButtonRole.AcceptRole)
            box.addButton(QMessageBox.StandardButton.Cancel)
            box.accepted.connect(lambda: self.import_planned(plan))
        self.preview_box = box
        box.open()

    def import_from(self, path: str) -> Task:
        """Import without a preview (the file is read and parsed here)."""
        task = self.backend.call(
            lambda engine, progress=None: engine.import_file(path, progress=progress),
            name="import",
            progress=True,
            on_done=self._imported,
            on_error=self._failed,
        )
        self.job_bar.follow(task, f"Importing {path}…")
        return task

    def import_planned(self, plan: ImportPlan) -> Task:
        """Import what the preview showed, reusing its parse and embeddings."""
        task = self.backend.call(
            transfer.import_job, plan, name="import", progress=True, on_done=self._imported, on_error=self._failed
        )
        self.job_bar.follow(task, f"Importing {plan.source}…")
        return task

    def _imported(self, result: ImportReport) -> None:
        self.message.emit(transfer.import_words(result).replace("\n", " "))
        self.imported.emit()
        self.backend.memories_changed.emit()

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):
            self.message.emit("Cancelled.")
            self.imported.emit()  # an import may have stored part of the file: show what is there
        else:
            self.message.emit(f"Something went wrong: {exc}")
