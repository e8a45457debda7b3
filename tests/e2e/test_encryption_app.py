"""The app and the memory key, with real Qt widgets offscreen and a real file keyring: started on a memory
whose key this keyring lacks, a dialog names the problem and offers the recovery key (the same restore as
`key restore`) or Quit; Settings → Privacy; a plain file encrypted at the start, with its progress."""

from __future__ import annotations

import os
from pathlib import Path

import keyring
import pytest
from keyrings.alt.file import PlaintextKeyring
from support.app import FakeIdle, start_shell, wait
from support.keyrings import file_keyring_env

from hindsight_desktop.app.key_dialog import KeyProblemDialog
from hindsight_desktop.app.privacy_tab import PrivacyTab
from hindsight_desktop.app.settings_dialog import SettingsDialog
from hindsight_desktop.app.shell import Shell
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.config import DB_FILE, Settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.keys import convert, files, manage, opener, recovery


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
        assert "no key for it" in dialog.problem.text() and "“Enter recovery key” below" in dialog.problem.text()
        dialog.field.setText(recovery_key[:5] + ("B" if recovery_key[5] != "B" else "C") + recovery_key[6:])
        dialog.enter_button.click()
        assert "typing mistake" in dialog.error.text() and dialog.isVisible()
        dialog.field.setText(recovery.encode(os.urandom(32)))  # well-formed, but another file's key
        dialog.enter_button.click()
        assert "that recovery key is not" in dialog.error.text() and dialog.isVisible()
        dialog.field.setText(recovery_key.lower())
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


@pytest.fixture
def file_keyring(tmp_path, monkeypatch):
    before = keyring.get_keyring()
    _use_keyring(tmp_path / "home", monkeypatch)
    yield
    keyring.set_keyring(before)


def test_privacy_shows_the_form_the_key_place_and_the_recovery_key_with_its_warning(
    qtbot, tmp_path, embedder, file_keyring
):
    paths = AppPaths(tmp_path / "config", tmp_path / "data")
    shell = start_shell(qtbot, paths, embedder)
    try:
        dialog = SettingsDialog(shell.backend, shell.paths)
        qtbot.addWidget(dialog)
        tab = dialog.privacy
        wait(qtbot, tab.refresh())
        assert "is encrypted (AEGIS-256" in tab.status_label.text()
        assert "OS keyring (PlaintextKeyring)" in tab.status_label.text()
        assert tab.recovery.isHidden() and tab.warning.isHidden() and tab.recovery.text() == ""
        wait(qtbot, tab.show_recovery())
        assert tab.recovery.text() == manage.recovery_key(paths.data_dir / DB_FILE)
        assert not tab.warning.isHidden() and "gone for good" in tab.warning.text()
        tab.hide_button.click()
        assert tab.recovery.isHidden() and tab.warning.isHidden() and tab.recovery.text() == ""
    finally:
        shell.shutdown()


def test_privacy_names_a_plain_file_and_the_key_file(qtbot, tmp_path, embedder, token_store):
    paths = AppPaths(tmp_path / "config", tmp_path / "data")
    shell = start_shell(qtbot, paths, embedder, settings=Settings(encrypt_memory_file=False))
    try:
        tab = PrivacyTab(shell.backend, paths)
        qtbot.addWidget(tab)
        wait(qtbot, tab.refresh())
        assert "is not encrypted" in tab.status_label.text() and not tab.show_button.isEnabled()
    finally:
        shell.shutdown()
    keyless = AppPaths(tmp_path / "config2", tmp_path / "data2")  # token_store: no keyring works here
    shell = start_shell(qtbot, keyless, embedder)
    try:
        tab = PrivacyTab(shell.backend, keyless)
        qtbot.addWidget(tab)
        wait(qtbot, tab.refresh())
        assert f"file {keyless.data_dir / 'memory-keys.json'}" in tab.status_label.text()
    finally:
        shell.shutdown()


def test_privacy_changes_the_key_and_the_memory_opens_again(qtbot, tmp_path, embedder, file_keyring):
    paths = AppPaths(tmp_path / "config", tmp_path / "data")
    shell = start_shell(qtbot, paths, embedder)
    try:
        shell.backend.engine.write("Remember: the bike shed code is 2718.", gate=False)
        path = paths.data_dir / DB_FILE
        old = manage.recovery_key(path)
        tab = PrivacyTab(shell.backend, paths)
        qtbot.addWidget(tab)
        wait(qtbot, tab.rekey())
        qtbot.waitUntil(lambda: shell.backend.is_ready, timeout=30_000)
        new = manage.recovery_key(path)
        assert new != old and tab.recovery.text() == new and not tab.warning.isHidden()
        assert not opener.opens(path, recovery.decode(old)) and opener.opens(path, recovery.decode(new))
        hits = shell.backend.engine.search("what is the bike shed code?", limit=3).hits
        assert hits and "2718" in hits[0].memory.content
    finally:
        shell.shutdown()


def test_a_plain_file_is_encrypted_at_the_start_with_progress_shown(
    qtbot, tmp_path, embedder, file_keyring, monkeypatch
):
    paths = AppPaths(tmp_path / "config", tmp_path / "data")
    with MemoryEngine(paths.data_dir, embedder=embedder, settings=Settings(encrypt_memory_file=False)) as engine:
        for n in range(40):
            engine.write(f"Remember: crate {n} of periwinkle seeds goes to shelf {n * 3}.", gate=False)
    assert files.state(paths.data_dir / DB_FILE) is files.State.PLAIN
    monkeypatch.setattr(convert, "STEP_PAGES", 4)  # a small file still reports several steps
    seen: list[tuple[int, int, bool]] = []
    original = Shell._encrypting

    def spy(self, done, total):
        original(self, done, total)
        seen.append((done, total, self.migration is not None and self.migration.isVisible()))

    monkeypatch.setattr(Shell, "_encrypting", spy)
    shell = start_shell(qtbot, paths, embedder)
    try:
        assert files.state(paths.data_dir / DB_FILE) is files.State.ENCRYPTED
        steps = [(d, t) for d, t, _ in seen if t]
        assert len(steps) >= 3 and all(visible for *_, visible in seen), seen
        assert [d for d, _ in steps] == sorted(d for d, _ in steps) and steps[-1][0] <= steps[-1][1]
        assert seen[-1][:2] == (0, 0)  # then the check of the copy
        assert shell.migration is None
        assert any("encrypted" in title for title, _ in shell.tray.messages)
        assert shell.backend.engine.count() == 40  # every memory came across
        hits = shell.backend.engine.search("where do crate 17's seeds go?", limit=5).hits
        assert any("crate 17 " in hit.memory.content for hit in hits)
    finally:
        shell.shutdown()
