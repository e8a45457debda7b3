"""Settings → Privacy: whether the memory file is encrypted and where its key is kept, its recovery key
on request, and a change of key. Every key operation goes through core/keys/manage.py, as the `key`
commands do, on a worker (a keyring may take a moment to answer)."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.app.workers import Task
from hindsight_desktop.config import DB_FILE

LOSS_WARNING = (
    "Write it down and keep it apart from this computer. With it and a copy of the memory file, anyone can read "
    "every memory. If both this keyring entry and the recovery key are lost, the memory is gone for good: "
    "nobody can open it."
)
PLAIN_NOTE = (
    "The memory file is not encrypted: anything that can read the data folder (other programs, a backup, a "
    "copy of the home folder) can read every memory. Turn on “Encrypt the memory file” under Memory and "
    "restart to encrypt it."
)
# Where "Change key…" keeps the new key; a passphrase is asked at each start (for a computer without a
# working keyring, or a person who wants it).
KEYRING_PLACE = "In this computer's keyring"
PASSPHRASE_PLACE = "Under a passphrase (asked at each start)"


def describe(status: dict[str, Any]) -> str:
    """The tab's first lines, from manage.status()."""
    if status["form"] == "encrypted":
        return (
            f"The memory file is encrypted ({status['cipher']}). Its key is kept in: {status['key_kept_in']}.\n"
            "A copy of the file or a backup cannot be read without that key. Anything running as you while the "
            "key is reachable (the keyring unlocked) can still read it."
            + ("\nThe app asks for the passphrase at each start." if status.get("key_mode") == "passphrase" else "")
        )
    if status["form"] == "plain":
        return PLAIN_NOTE
    return "There is no memory file yet; it is made encrypted when the memory first opens."


HERE = {"key rekey": "“Change key…”"}  # this tab's own button


class PrivacyTab(QWidget):
    def __init__(self, backend: Backend, paths: AppPaths, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.db_path = paths.data_dir / DB_FILE
        self.status_label = QLabel("Reading…")
        self.status_label.setWordWrap(True)
        self.show_button = QPushButton("Show recovery key")
        self.show_button.clicked.connect(self.show_recovery)
        self.rekey_button = QPushButton("Change key…")
        self.rekey_button.setToolTip("A new key and recovery key; the old recovery key stops opening the file")
        self.rekey_button.clicked.connect(self._ask_rekey)
        row = QHBoxLayout()
        row.addWidget(self.show_button)
        row.addWidget(self.rekey_button)
        row.addStretch(1)
        self.recovery = QLineEdit()
        self.recovery.setReadOnly(True)
        self.warning = QLabel(LOSS_WARNING)
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("font-weight: bold")
        self.hide_button = QPushButton("I have written it down: hide it")
        self.hide_button.clicked.connect(self.hide_recovery)
        self.message = QLabel()
        self.message.setWordWrap(True)
        layout = QVBoxLayout(self)
        for widget in (self.status_label, self.warning, self.recovery, self.hide_button, self.message):
            layout.addWidget(widget)
        layout.insertLayout(1, row)
        layout.addStretch(1)
        self.status: dict[str, Any] | None = None
        self.hide_recovery()

    # ---- reading ---------------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()  # another process (`key rekey`, `key restore`) may have changed it

    def refresh(self) -> Task:
        from hindsight_desktop.core.keys import manage

        return self.backend.workers.submit(
            manage.status, self.db_path, name="key status", on_done=self._show_status, on_error=self._failed
        )

    def _show_status(self, status: dict[str, Any]) -> None:
        self.status = status
        self.status_label.setText(describe(status))
        encrypted = status["form"] == "encrypted"
        self.show_button.setEnabled(encrypted)
        self.rekey_button.setEnabled(encrypted)

    def _failed(self, exc: BaseException) -> None:
        self.message.setText(in_app(str(exc), HERE))

    # ---- the recovery key ------------------------------------------------------------------------
    def show_recovery(self) -> Task:
        from hindsight_desktop.core.keys import manage

        return self.backend.workers.submit(
            manage.recovery_key, self.db_path, name="recovery key", on_done=self._reveal, on_error=self._failed
        )

    def _reveal(self, text: str) -> None:
        """The key and the warning come together; the warning stays in view until the key is hidden."""
        self.recovery.setText(text)
        for widget in (self.warning, self.recovery, self.hide_button):
            widget.show()

    def hide_recovery(self) -> None:
        self.recovery.clear()
        for widget in (self.warning, self.recovery, self.hide_button):
            widget.hide()

    # ---- a new key ---------------------------------------------------------------------------------
    def _ask_rekey(self) -> Task | None:
        """Asks to go on, where to keep the new key (the keyring or a passphrase, the current place first)
        and, for a passphrase, the passphrase twice; then changes the key."""
        answer = QMessageBox.question(
            self,
            "Change the memory key",
            "The memory closes for a moment (assistants get an error meanwhile), is copied under a new key and "
            "checked, then opens again. The old recovery key stops working and a new one is shown. Go on?",
        )
        if answer != QMessageBox.StandardButton.Yes:
            return None
        passphrase_now = bool(self.status and self.status.get("key_mode") == "passphrase")
        places = [KEYRING_PLACE, PASSPHRASE_PLACE]
        first = places.index(PASSPHRASE_PLACE if passphrase_now else KEYRING_PLACE)
        place, ok = QInputDialog.getItem(self, "Change the memory key", "Keep the new key:", places, first, False)
        if not ok:
            return None
        if place == KEYRING_PLACE:
            return self.rekey(to_keyring=True)
        chosen, ok = QInputDialog.getText(
            self, "New passphrase", "The passphrase for the new key:", QLineEdit.EchoMode.Password
        )
        again, ok_again = QInputDialog.getText(
            self, "New passphrase", "The same passphrase again:", QLineEdit.EchoMode.Password
        )
        if not (ok and ok_again):
            return None
        if chosen != again:
            self.message.setText("The two passphrases differ; the key was not changed.")
            return None
        return self.rekey(chosen)

    def rekey(self, new_passphrase: str | None = None, *, to_keyring: bool = False) -> Task | None:
        """Close the memory, give the file a new key (manage.rekey, as `key rekey`), open it again. The
        new key is kept under `new_passphrase`, or in the keyring (`to_keyring`, or when the file was not
        under a passphrase)."""
        from hindsight_desktop.core.keys import manage

        problem = self.backend.close_memory()
        if problem:
            self.message.setText(problem)
            return None
        self.rekey_button.setEnabled(False)
        self.message.setText("Changing the key…")
        return self.backend.workers.submit(
            lambda: manage.recovery_text(
                manage.rekey(self.db_path, new_passphrase=new_passphrase, to_keyring=to_keyring)[0]
            ),
            name="change key",
            on_done=self._rekeyed,
            on_error=self._rekey_failed,
        )

    def _rekeyed(self, recovery_text: str) -> None:
        self.message.setText("The key is changed. The old recovery key no longer opens the file; here is the new one.")
        self._reveal(recovery_text)
        self.backend.retry_open()
        self.refresh()

    def _rekey_failed(self, exc: BaseException) -> None:
        self.message.setText(in_app(f"The key was not changed: {exc}", HERE))
        self.backend.retry_open()
        self.refresh()
