"""The app started on a memory whose key this keyring lacks: a dialog names the problem and offers the
recovery key (the same restore as `key restore`) or Quit; real Qt widgets offscreen, a real file keyring."""

from __future__ import annotations

import os
from pathlib import Path

import keyring
import pytest
from keyrings.alt.file import PlaintextKeyring
from support.app import FakeIdle
from support.keyrings import file_keyring_env

from hindsight_desktop.app.key_dialog import KeyProblemDialog
from hindsight_desktop.app.shell import Shell
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.config import DB_FILE
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.keys import manage, recovery


def _use_keyring(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in file_keyring_env(home).items():
        monkeypatch.setenv(name, value)
    keyring.set_keyring(PlaintextKeyring())


@pytest.fixture
def lost_key(tmp_path, embedder, monkeypatch):
    """An encrypted memory with one memory in it, made under one home, and its recovery key; the test
    then runs under another home whose keyring has never seen the key (a new computer)."""
    before = keyring.get_keyring()
    _use_keyring(tmp_path / "home", monkeypatch)
    paths = AppPaths(tmp_path / "config", tmp_path / "data")
    with MemoryEngine(paths.data_dir, embedder=embedder) as engine:
        engine.write("Remember: the attic key hangs behind the calendar.", gate=False)
    recovery_key = manage.recovery_key(paths.data_dir / DB_FILE)
    _use_keyring(tmp_path / "new-home", monkeypatch)
    yield paths, recovery_key
    keyring.set_keyring(before)


def _start(qtbot, paths: AppPaths, embedder) -> Shell:
    shell = Shell(
        paths,
        embedder=embedder,
        serve=False,
        tray=True,
        idle_source=FakeIdle(),
        scheduler_interval_ms=3_600_000,
        activity_interval_ms=3_600_000,
    )
    shell.start()
    qtbot.waitUntil(lambda: shell.key_dialog is not None, timeout=30_000)
    return shell


def test_the_recovery_key_entered_in_the_dialog_opens_the_memory(qtbot, lost_key, embedder):
    paths, recovery_key = lost_key
    shell = _start(qtbot, paths, embedder)
    try:
        dialog: KeyProblemDialog = shell.key_dialog
        assert dialog.isVisible() and shell.backend.engine is None
        assert "no key for it" in dialog.problem.text() and "key restore" in dialog.problem.text()
        dialog.recovery.setText(recovery_key[:5] + ("B" if recovery_key[5] != "B" else "C") + recovery_key[6:])
        dialog.enter_button.click()
        assert "typing mistake" in dialog.error.text() and dialog.isVisible()
        dialog.recovery.setText(recovery.encode(os.urandom(32)))  # well-formed, but another file's key
        dialog.enter_button.click()
        assert "that recovery key is not" in dialog.error.text() and dialog.isVisible()
        dialog.recovery.setText(recovery_key.lower())
        dialog.enter_button.click()
        qtbot.waitUntil(lambda: shell.backend.is_ready, timeout=30_000)
        assert shell.key_dialog is None and shell.backend.error is None and shell.backend.state == "running"
        hits = shell.backend.engine.search("where is the attic key?", limit=3).hits
        assert hits and "calendar" in hits[0].memory.content
        assert manage.recovery_key(paths.data_dir / DB_FILE) == recovery_key  # now in this keyring
    finally:
        shell.shutdown()


def test_quit_leaves_the_memory_file_untouched(qtbot, lost_key, embedder, monkeypatch):
    paths, _recovery_key = lost_key
    before = (paths.data_dir / DB_FILE).read_bytes()
    shell = _start(qtbot, paths, embedder)
    quits: list[bool] = []
    monkeypatch.setattr(shell, "quit", lambda: quits.append(True))
    try:
        shell.key_dialog.quit_button.click()
        assert quits == [True] and shell.key_dialog is None and shell.backend.engine is None
        assert (paths.data_dir / DB_FILE).read_bytes() == before
    finally:
        shell.shutdown()
