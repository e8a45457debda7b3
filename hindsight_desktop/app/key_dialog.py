"""The dialog the app shows when the memory file cannot be opened for its key: missing from this keyring,
wrong, locked away, a plain file where the encrypted one was, or kept under a passphrase. It names the
problem and offers to enter the passphrase (passphrase mode) or the recovery key, which puts the key back
exactly as `hindsight-desktop key restore` does, or to quit. The app then opens the memory again. The
problem's own words come from the core and name commands; the dialog says its buttons instead."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from hindsight_desktop.app import theme
from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.keys import manage

RECOVERY_HINT = (
    "If you have the recovery key shown when encryption was set up, enter it below. "
    "Otherwise quit, put the right memory file or keyring back, and start again."
)
# Once restored from the recovery key, the key is in the keyring; a passphrase is set again in Settings.
NEW_PASSPHRASE_HINT = (
    " The passphrase is then no longer needed; to keep the key under a passphrase again, use "
    "Settings → Privacy → “Change key…” and choose a passphrase."
)
HERE = {"key restore": "“Enter recovery key” below"}
PASSPHRASE_HINT = (
    "Your memory's key is kept under a passphrase (this computer has no working keyring). Enter it to open "
    "the memory; assistants reach it through the app while it runs."
)


class KeyProblemDialog(QDialog):
    """Accepted once the memory can open (`saved` says where a restored key went); rejected means Quit.
    With `passphrase`, it asks for the passphrase first and offers the recovery key instead."""

    def __init__(self, db_path: Path, problem: str, parent: QWidget | None = None, *, passphrase: bool = False) -> None:
        super().__init__(parent)
        self.db_path = Path(db_path)
        self.saved: manage.Saved | None = None
        self.asks_passphrase = passphrase
        self.setWindowTitle(
            "Hindsight Desktop: unlock your memory" if passphrase else "Hindsight Desktop cannot open your memory"
        )
        self.problem = QLabel(PASSPHRASE_HINT if passphrase else in_app(problem, HERE))
        self.problem.setWordWrap(True)
        self.hint = QLabel("" if passphrase else RECOVERY_HINT)
        self.hint.setWordWrap(True)
        self.hint.setVisible(not passphrase)
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.EchoMode.Password)  # either opens the memory: not for onlookers
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {theme.error_colour(self.palette()).name()}")
        self.error.hide()
        buttons = QDialogButtonBox()
        self.unlock_button = QPushButton("Unlock")
        self.enter_button = QPushButton("Enter recovery key")
        self.quit_button = QPushButton("Quit")
        if passphrase:
            buttons.addButton(self.unlock_button, QDialogButtonBox.ButtonRole.AcceptRole)
            self.unlock_button.setDefault(True)
        buttons.addButton(self.enter_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.quit_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.unlock_button.clicked.connect(self.unlock)
        self.enter_button.clicked.connect(self.enter)
        self.quit_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.problem, self.hint, self.field, self.error, buttons):
            layout.addWidget(widget)
        self.setMinimumWidth(520)
        self._placeholder()

    def _placeholder(self) -> None:
        self.field.setPlaceholderText("Passphrase" if self.asks_passphrase else "ABCD-EFGH-… (14 groups of four)")

    def _say(self, exc: HindsightError) -> None:
        self.error.setText(in_app(str(exc), HERE))
        self.error.show()

    def unlock(self) -> None:
        """Unlock with the typed passphrase; a wrong one is said here and the dialog stays."""
        try:
            manage.unlock(self.db_path, self.field.text())
        except HindsightError as exc:
            self._say(exc)
            return
        self.accept()

    def enter(self) -> None:
        """Restore the key from the typed recovery key; a mistyped or another file's key is said here.
        Asked for the passphrase, the first press switches the field to the recovery key."""
        if self.asks_passphrase:
            self.asks_passphrase = False
            self.unlock_button.hide()
            self.hint.setText(RECOVERY_HINT + NEW_PASSPHRASE_HINT)
            self.hint.show()
            self.field.clear()
            self.error.hide()
            self._placeholder()
            return
        try:
            self.saved = manage.restore(self.db_path, self.field.text())
        except HindsightError as exc:
            self._say(exc)
            return
        self.accept()
