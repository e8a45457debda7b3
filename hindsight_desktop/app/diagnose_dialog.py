"""Diagnose: the doctor's checks (data folder, database, sqlite-vec, model, indexes, port, keyring,
each client's config and a tools/list round trip), run on a worker and listed with their fixes.

The running engine is handed to the doctor, so it checks the model the app already has loaded
instead of opening a second copy. "Copy report" puts the whole list on the clipboard, with the
versions a bug report needs.
"""

from __future__ import annotations

import platform
import sys
from datetime import UTC, datetime
from typing import Any

from PySide6.QtGui import QBrush, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop import __version__
from hindsight_desktop.app import theme
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.app.workers import Task


def state_of(check: dict[str, Any]) -> str:
    return "SKIP" if check.get("skipped") else "PASS" if check.get("ok") else "FAIL"


def check_lines(check: dict[str, Any]) -> list[str]:
    """One check as text: `PASS  name: detail`, then the fix when it did not pass."""
    lines = [f"{state_of(check)}  {check['name']}: {check['detail']}"]
    if check.get("fix") and state_of(check) != "PASS":
        lines.append(f"      fix: {check['fix']}")
    return lines


def report_text(report: dict[str, Any]) -> str:
    """The report as plain text, headed by what a bug report needs to know."""
    frozen = "installed app" if getattr(sys, "frozen", False) else "Python package"
    head = [
        f"Hindsight Desktop {__version__} ({frozen}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()} {platform.machine()}",
        f"Checked {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        "",
    ]
    body = [line for check in report["checks"] for line in check_lines(check)]
    failed = sum(state_of(c) == "FAIL" for c in report["checks"])
    tail = ["", "All checks passed." if not failed else f"{failed} check(s) failed."]
    return "\n".join(head + body + tail)


class DiagnoseDialog(QDialog):
    """Runs the checks when shown (and again on request) and lists each one."""

    def __init__(self, backend: Backend, paths: AppPaths, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend, self.paths = backend, paths
        self.report: dict[str, Any] | None = None
        self.task: Task | None = None
        self.setWindowTitle("Hindsight Desktop — Diagnose")
        self.setMinimumSize(640, 380)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.checks = QListWidget()
        self.checks.setWordWrap(True)
        self.checks.setAlternatingRowColors(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.copy_button = QPushButton("Copy report")
        self.copy_button.clicked.connect(self.copy_report)
        self.again_button = QPushButton("Check again")
        self.again_button.clicked.connect(self.start)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.again_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.checks, 1)
        layout.addWidget(buttons)

    def start(self) -> Task:
        """Run every check on a worker; a client round trip can take a while (it may start a process)."""
        from hindsight_desktop.cli import doctor_checks as doctor  # looked up now: tests replace the checks

        self.report = None
        self.checks.clear()
        self.copy_button.setEnabled(False)
        self.again_button.setEnabled(False)
        self.status.setText("Checking the memory, the model, the server and each assistant's set-up…")
        # Before the memory has opened (or when it failed to) the doctor opens its own: that is
        # exactly when a diagnosis is wanted.
        self.task = self.backend.workers.submit(
            doctor.run_doctor,
            self.paths.data_dir,
            self.backend.settings,
            engine=self.backend.engine,
            name="diagnose",
            on_done=self._show,
            on_error=self._failed,
        )
        return self.task

    def _show(self, report: dict[str, Any]) -> None:
        self.report = report
        for check in report["checks"]:
            item = QListWidgetItem("\n".join(check_lines(check)))
            if state_of(check) == "FAIL":
                item.setForeground(QBrush(theme.error_colour(self.checks.palette())))
            self.checks.addItem(item)
        failed = sum(state_of(c) == "FAIL" for c in report["checks"])
        self.status.setText(
            "Everything checks out." if not failed else f"{failed} check(s) failed: each says what to do about it."
        )
        self.copy_button.setEnabled(True)
        self.again_button.setEnabled(True)

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(f"The checks could not run: {exc}")
        self.again_button.setEnabled(True)

    def report_text(self) -> str:
        return report_text(self.report) if self.report is not None else ""

    def copy_report(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(self.report_text())
            self.status.setText("The report is on the clipboard.")
