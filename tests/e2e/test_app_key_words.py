"""The app's key messages name its own buttons, not commands: the key dialog after a recovery key, and
Settings → Privacy → "Change key…", which moves the key under a passphrase and back (the in-app way of
`key rekey --passphrase` / `--keyring`)."""

from __future__ import annotations

import keyring
import pytest
from keyrings.alt.file import PlaintextKeyring
from PySide6.QtWidgets import QInputDialog, QMessageBox
from support.app import start_shell, wait
from support.keyrings import file_keyring_env

from hindsight_desktop.app import privacy_tab
from hindsight_desktop.app.in_app_words import has_command
from hindsight_desktop.app.key_dialog import KeyProblemDialog
from hindsight_desktop.app.privacy_tab import PrivacyTab
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.config import DB_FILE
from hindsight_desktop.core.keys import manage, opener, passphrase

NEW_PASSPHRASE = "seven herons over the weir"


@pytest.fixture
def file_keyring(tmp_path, monkeypatch):
    before = keyring.get_keyring()
    for name, value in file_keyring_env(tmp_path / "home").items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(passphrase.TEST_KDF_ENV, "fast")
    keyring.set_keyring(PlaintextKeyring())
    passphrase._unlocked.clear()
    yield
    passphrase._unlocked.clear()
    keyring.set_keyring(before)


def test_the_key_dialog_names_its_own_button_and_the_privacy_tab(qtbot, tmp_path):
    problem = f"{tmp_path / DB_FILE} cannot be opened: {opener.RESTORE_HINT}"  # the core's real words
    dialog = KeyProblemDialog(tmp_path / DB_FILE, problem)
    qtbot.addWidget(dialog)
    assert "“Enter recovery key” below" in dialog.problem.text()
    assert not has_command(dialog.problem.text()), dialog.problem.text()
    locked = KeyProblemDialog(tmp_path / DB_FILE, "", passphrase=True)
    qtbot.addWidget(locked)
    locked.enter_button.click()  # forgot the passphrase: switch to the recovery key
    hint = locked.hint.text()
    assert "Settings → Privacy → “Change key…”" in hint and not has_command(hint), hint


def _answers(monkeypatch, place: str, typed: list[str]) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: (place, True))
    answers = iter(typed)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: (next(answers), True))


def test_change_key_moves_the_key_under_a_passphrase_and_back(qtbot, tmp_path, embedder, file_keyring, monkeypatch):
    paths = AppPaths(tmp_path / "config", tmp_path / "data")
    path = paths.data_dir / DB_FILE
    shell = start_shell(qtbot, paths, embedder)
    try:
        shell.backend.engine.write("Remember: the canoe paddles hang in the barn.", gate=False)
        tab = PrivacyTab(shell.backend, paths)
        qtbot.addWidget(tab)
        wait(qtbot, tab.refresh())
        assert manage.status(path)["key_mode"] == "keyring"
        _answers(monkeypatch, privacy_tab.PASSPHRASE_PLACE, [NEW_PASSPHRASE, "seven herons over the wear"])
        assert tab._ask_rekey() is None and "differ" in tab.message.text()  # a typo changes nothing
        _answers(monkeypatch, privacy_tab.PASSPHRASE_PLACE, [NEW_PASSPHRASE, NEW_PASSPHRASE])
        wait(qtbot, tab._ask_rekey())
        qtbot.waitUntil(lambda: shell.backend.is_ready, timeout=30_000)
        assert manage.status(path)["key_mode"] == "passphrase", tab.message.text()
        passphrase._unlocked.clear()  # as at the next start: the passphrase opens it
        manage.unlock(path, NEW_PASSPHRASE)
        wait(qtbot, tab.refresh())
        assert "asks for the passphrase" in tab.status_label.text()
        _answers(monkeypatch, privacy_tab.KEYRING_PLACE, [])
        wait(qtbot, tab._ask_rekey())
        qtbot.waitUntil(lambda: shell.backend.is_ready, timeout=30_000)
        assert manage.status(path)["key_mode"] == "keyring", tab.message.text()
        hits = shell.backend.engine.search("where do the canoe paddles hang?", limit=3).hits
        assert hits and "barn" in hits[0].memory.content
    finally:
        shell.shutdown()


def test_the_tray_says_the_app_s_place_in_its_notifications(shell):
    shell.tray.notify("Hindsight Desktop", f"the memory did not open: {opener.RESTORE_HINT}")
    title, text = shell.tray.messages[-1]
    assert "“Enter recovery key”" in text and not has_command(text), text


def test_the_clients_tab_names_its_own_button_when_an_install_cannot_run(qtbot, shell, monkeypatch):
    from hindsight_desktop.mcp import client_config

    monkeypatch.setattr(client_config.shutil, "which", lambda name: None)  # no `claude` command here
    tab = shell.open_settings().clients
    task = tab.install("claude-code")
    qtbot.waitUntil(lambda: task.is_finished, timeout=20_000)
    qtbot.waitUntil(lambda: "claude command is not on PATH" in tab.note.text())
    assert "“Copy set-up” here" in tab.note.text() and not has_command(tab.note.text()), tab.note.text()
