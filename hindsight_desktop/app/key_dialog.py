"""The dialog the app shows when the memory file cannot be opened for its key (missing from this
keyring, wrong, locked away, or a plain file where the encrypted one was): it names the problem and
offers to enter the recovery key, which puts the key back exactly as `hindsight-desktop key restore`
does, or to quit. The app then opens the memory again."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.keys import manage


class KeyProblemDialog(QDialog):
    """Accepted once a recovery key was put back (`saved` says where); rejected means Quit."""

    def __init__(self, db_path: Path, problem: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.db_path = Path(db_path)
        self.saved: manage.Saved | None = None
        self.setWindowTitle("Hindsight Desktop cannot open your memory")
        self.problem = QLabel(problem)
        self.problem.setWordWrap(True)
        hint = QLabel(
            "If you have the recovery key shown when encryption was set up, enter it below. "
            "Otherwise quit, put the right memory file or keyring back, and start again."
        )
        hint.setWordWrap(True)
        self.recovery = QLineEdit()
        self.recovery.setPlaceholderText("ABCD-EFGH-… (14 groups of four)")
        self.recovery.setEchoMode(QLineEdit.EchoMode.Password)  # it opens every memory: not for onlookers
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020")
        self.error.hide()
        buttons = QDialogButtonBox()
        self.enter_button = QPushButton("Enter recovery key")
        self.enter_button.setDefault(True)
        self.quit_button = QPushButton("Quit")
        buttons.addButton(self.enter_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.quit_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.enter_button.clicked.connect(self.enter)
        self.quit_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.problem, hint, self.recovery, self.error, buttons):
            layout.addWidget(widget)
        self.setMinimumWidth(520)

    def enter(self) -> None:
        """Restore the key from the typed recovery key; a mistyped or another file's key is said here."""
        try:
            self.saved = manage.restore(self.db_path, self.recovery.text())
        except HindsightError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.accept()
