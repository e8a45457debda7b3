"""Diagnose: the doctor's checks (data folder, database, sqlite-vec, model, indexes, port, keyring,
each client's config and a tools/list round trip), run on a worker and listed with their fixes.

The running engine is handed to the doctor, so it checks the model the app already has loaded
instead of opening a second copy. Each finding offers the in-app fix as a button (diagnose_actions.py
says which), in place of the doctor's command-line advice. "Copy report" puts the whole list, with the
doctor's own words, on the clipboard, with the versions a bug report needs.
"""

from __future__ import annotations

import platform
import sys
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop import __version__
from hindsight_desktop.app import diagnose_actions as actions
from hindsight_desktop.app import theme
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.client_setup import client_kinds
from hindsight_desktop.app.diagnose_actions import Fix, fixes_for
from hindsight_desktop.app.in_app_words import in_app
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


def shown_lines(check: dict[str, Any], fixes: list[Fix]) -> list[str]:
    """One check as the dialog shows it: the in-app fix's words instead of the command-line advice."""
    words = " ".join(f.words for f in fixes if f.words)
    check = {**check, "detail": in_app(str(check.get("detail", "")))}  # a detail may name a command too
    if not words:
        return check_lines(check)
    lines = check_lines({**check, "fix": ""})
    if state_of(check) != "PASS":
        lines.append(f"      fix: {words}")
    return lines


class CheckRow(QFrame):
    """One finding: its text, and a button for each in-app fix."""

    def __init__(self, check: dict[str, Any], fixes: list[Fix], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.check, self.fixes = check, fixes
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel("\n".join(shown_lines(check, fixes)))
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if state_of(check) == "FAIL":
            palette = self.label.palette()
            palette.setColor(QPalette.ColorRole.WindowText, theme.error_colour(palette))
            self.label.setPalette(palette)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.label)
        self.buttons: list[QPushButton] = []
        self.pressed = [fix for fix in fixes if fix.action != actions.SAY]  # the fixes with a button
        if self.pressed:
            row = QHBoxLayout()
            for fix in self.pressed:
                button = QPushButton(fix.label)
                self.buttons.append(button)
                row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)

    def text(self) -> str:
        return self.label.text()


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

    def __init__(
        self, backend: Backend, paths: AppPaths, parent: QWidget | None = None, *, settings: Any = None
    ) -> None:
        super().__init__(parent)
        self.backend, self.paths = backend, paths
        self.settings = settings  # the Settings dialog it was opened from: the fixes open its fields
        self.report: dict[str, Any] | None = None
        self.task: Task | None = None
        self.fix_task: Task | None = None  # the last fix that runs on a worker (restart, install)
        self.rows: list[CheckRow] = []
        self.key_dialog: Any = None
        self.setWindowTitle("Hindsight Desktop — Diagnose")
        self.setMinimumSize(640, 380)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.checks = QWidget()
        self.checks_layout = QVBoxLayout(self.checks)
        self.checks_layout.setContentsMargins(0, 0, 0, 0)
        self.checks_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.checks)
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
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)

    def start(self) -> Task:
        """Run every check on a worker; a client round trip can take a while (it may start a process)."""
        from hindsight_desktop.cli import doctor_checks as doctor  # looked up now: tests replace the checks

        self.report = None
        self._clear_rows()
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

    def _clear_rows(self) -> None:
        for row in self.rows:
            row.deleteLater()
        self.rows = []

    def _show(self, report: dict[str, Any]) -> None:
        self.report = report
        self._clear_rows()
        kinds = {label: key for key, label in client_kinds()}
        for check in report["checks"]:
            row = CheckRow(check, fixes_for(check, kinds))
            for button, fix in zip(row.buttons, row.pressed, strict=True):
                button.clicked.connect(lambda _checked=False, f=fix, c=check: self.do(f, c))
            self.checks_layout.insertWidget(len(self.rows), row)
            self.rows.append(row)
        failed = sum(state_of(c) == "FAIL" for c in report["checks"])
        self.status.setText(
            "Everything checks out." if not failed else f"{failed} check(s) failed: each says what to do about it."
        )
        self.copy_button.setEnabled(True)
        self.again_button.setEnabled(True)

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(f"The checks could not run: {exc}")
        self.again_button.setEnabled(True)

    def lines(self) -> list[str]:
        """Each finding's text, as shown."""
        return [row.text() for row in self.rows]

    # ---- the fixes -------------------------------------------------------------------------------
    def do(self, fix: Fix, check: dict[str, Any]) -> None:
        """Carry out one in-app fix; those that change something run the checks again when done."""
        if fix.action == actions.OPEN_LOG_FOLDER:
            from hindsight_desktop.app.tray import open_log_folder

            open_log_folder()
        elif fix.action == actions.OPEN_DATA_FOLDER:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.paths.data_dir)))
        elif fix.action == actions.COPY:
            QGuiApplication.clipboard().setText(fix.arg)
            self.status.setText(f"Copied: {fix.arg}. Paste it in a terminal, then check again.")
        elif fix.action in (actions.SETTING, actions.TAB):
            self._open_setting(fix)
        elif fix.action == actions.RESTART_SERVER:
            self._run_then_check(self._restart_server(), "Restarting the MCP server…")
        elif fix.action == actions.INSTALL_CLIENT:
            task = self.settings.clients.install(fix.arg) if self.settings is not None else None
            self._run_then_check(task, f"Installing into {fix.label.removeprefix('Install for ')}…")
        elif fix.action == actions.RESTORE_KEY:
            self._restore_key(check)
        elif fix.action == actions.MAINTAIN:
            maintain = getattr(self.settings, "maintain", None)
            self._run_then_check(maintain() if maintain is not None else None, "Running maintenance…")

    def _open_setting(self, fix: Fix) -> None:
        settings = self.settings
        if settings is None:
            return
        if fix.action == actions.TAB:
            titles = [settings.tabs.tabText(i) for i in range(settings.tabs.count())]
            settings.tabs.setCurrentIndex(titles.index(fix.arg) if fix.arg in titles else 0)
        else:
            widget = settings.model_path if fix.arg == "embedding_model" else settings.inputs[fix.arg].widget
            tab = next(i for i in range(settings.tabs.count()) if settings.tabs.widget(i).isAncestorOf(widget))
            settings.tabs.setCurrentIndex(tab)
            widget.setFocus()
        settings.show()
        settings.raise_()
        settings.activateWindow()

    def _restart_server(self) -> Task | None:
        if self.backend.engine is None:  # the memory never opened: opening it starts the server too
            return self.backend.retry_open()
        return self.backend.restart_server()

    def _run_then_check(self, task: Task | None, words: str) -> None:
        if task is None:
            self.status.setText("The memory is still opening; try again in a moment.")
            return
        self.fix_task = task
        self.status.setText(words)
        task.finished.connect(self.start)

    def _restore_key(self, check: dict[str, Any]) -> None:
        from hindsight_desktop.app.key_dialog import KeyProblemDialog
        from hindsight_desktop.config import DB_FILE

        dialog = KeyProblemDialog(self.paths.data_dir / DB_FILE, str(check.get("detail", "")))
        self.key_dialog = dialog

        def finished(result: int) -> None:
            self.key_dialog = None
            if result == KeyProblemDialog.DialogCode.Accepted:
                self._run_then_check(self.backend.retry_open(), "Opening the memory with the restored key…")

        dialog.finished.connect(finished)
        dialog.open()

    def report_text(self) -> str:
        return report_text(self.report) if self.report is not None else ""

    def copy_report(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(self.report_text())
            self.status.setText("The report is on the clipboard.")
