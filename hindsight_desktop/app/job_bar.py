"""A strip for the status bar: what long job is running, its progress, and a Cancel button."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from hindsight_desktop.app.workers import Task


class JobBar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.task: Task | None = None
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setFixedWidth(180)
        self.bar.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.hide()

    def follow(self, task: Task, text: str) -> None:
        """Show `task` until it ends; a job that reports no total shows a busy bar."""
        self.task = task
        self.label.setText(text)
        self.bar.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        task.progress.connect(self._progress)
        task.finished.connect(self._finished)
        self.show()

    def _progress(self, done: int, total: int) -> None:
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))

    def _finished(self) -> None:
        self.task = None
        self.hide()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.cancel_button.setEnabled(False)
            self.label.setText(self.label.text() + " (stopping…)")
