"""Settings persist in the (injected) config dir, apply without restart where the engine allows it,
and manage clients and start-at-login."""

from __future__ import annotations

import json

import pytest
from support.app import start_shell, wait

from hindsight_desktop.app import autostart
from hindsight_desktop.app.settings_dialog import SettingsDialog
from hindsight_desktop.config import Settings


def test_settings_are_saved_and_read_back(qtbot, shell, tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    dialog = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path / "home")
    qtbot.addWidget(dialog)
    shown = dialog.inputs
    shown["recall_half_life_days"].widget.setValue(30)
    shown["idle_minutes"].widget.setValue(25)
    shown["maintenance_every_hours"].widget.setValue(6)
    shown["archive_after_days"].widget.setValue(90)
    shown["archive_importance_floor"].widget.setValue(0.2)
    shown["capacity_per_client"].widget.setValue(5000)
    shown["write_threshold"].widget.setValue(0.7)
    shown["signal_weights"].boxes["emotion"].setValue(0.05)
    dialog.login.setChecked(True)
    wait(qtbot, dialog.save())
    saved = json.loads(shell.paths.settings_file.read_text())
    assert saved["recall_half_life_days"] == 30 and saved["idle_minutes"] == 25
    assert saved["signal_weights"]["emotion"] == 0.05 and "paused" not in saved  # pause lives in the memory file
    loaded = Settings.load(shell.paths.settings_file)
    assert (loaded.archive_after_days, loaded.capacity_per_client, loaded.write_threshold) == (90, 5000, 0.7)
    # the engine reads these at use: they apply now
    assert shell.backend.engine.settings.recall_half_life_days == 30
    assert shell.backend.engine.settings.archive_importance_floor == 0.2
    assert shell.backend.settings.maintenance_every_hours == 6
    entry = tmp_path / "home" / ".config" / "autostart" / "hindsight-desktop.desktop"
    assert entry.is_file() and "Exec=" in entry.read_text()
    again = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path / "home")
    qtbot.addWidget(again)
    assert again.inputs["recall_half_life_days"].widget.value() == 30 and again.login.isChecked()


def test_saved_settings_are_used_at_the_next_start(qtbot, app_paths, embedder, token_store):
    Settings(idle_minutes=42, recall_half_life_days=3.5).save(app_paths.settings_file)
    app = start_shell(qtbot, app_paths, embedder, settings=app_paths.load_settings())
    try:
        assert app.backend.settings.idle_minutes == 42
        assert app.backend.engine.settings.recall_half_life_days == 3.5
    finally:
        app.shutdown()


def test_invalid_values_are_refused(qtbot, shell):
    dialog = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(dialog)
    dialog.model_file.setChecked(True)
    dialog.model_path.setText("")
    assert dialog.values().embedding_model is None  # an empty path means the built-in model


def test_pause_checkbox_pauses_the_memory_file(qtbot, shell, tmp_path):
    dialog = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path)
    qtbot.addWidget(dialog)
    dialog.pause.setChecked(True)
    wait(qtbot, dialog.save())
    qtbot.waitUntil(lambda: shell.backend.engine.is_paused())
    assert "paused" not in json.loads(shell.paths.settings_file.read_text())  # pause lives in the memory file


def test_assistants_purge_any_is_off_by_default_and_applies_at_once(qtbot, shell, tmp_path):
    from hindsight_desktop.core.errors import InvalidInput

    engine = shell.backend.engine
    mine = engine.write("My bike lock code is in the blue notebook.", explicit=True).id  # the person's
    dialog = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path)
    qtbot.addWidget(dialog)
    purge_any = dialog.inputs["assistants_purge_any"].widget
    assert not purge_any.isChecked()
    assert "only what it wrote, by id" in purge_any.toolTip()
    with pytest.raises(InvalidInput, match="only what it wrote"):
        engine.forget(ids=[mine], purge=True, client="cursor", sees_all=False)
    purge_any.setChecked(True)
    wait(qtbot, dialog.save())
    assert json.loads(shell.paths.settings_file.read_text())["assistants_purge_any"] is True
    assert engine.forget(ids=[mine], purge=True, client="cursor", sees_all=False).forgotten == [mine]
    again = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path)
    qtbot.addWidget(again)
    assert again.inputs["assistants_purge_any"].widget.isChecked()
    with pytest.raises(InvalidInput, match="assistants_purge_any must be true or false"):
        Settings(assistants_purge_any="no").validate()  # type: ignore[arg-type]


def test_clients_tab_refuses_reserved_names_up_front(qtbot, shell):
    dialog = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(dialog)
    tab = dialog.clients
    said = []
    tab.message.connect(said.append)
    for name in ("desktop", "Stdio", "claude-desktop"):
        assert tab.add_client(name) is None  # no worker started, no token minted
        assert "is reserved" in said[-1] and "choose another name" in said[-1]
    assert tab.names() == [] and shell.backend.registry.list() == []


def test_clients_tab_adds_and_revokes(qtbot, shell):
    dialog = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(dialog)
    tab = dialog.clients
    tokens = []
    tab.token_created.connect(lambda name, token: tokens.append((name, token)))
    wait(qtbot, tab.add_client("zed"))
    qtbot.waitUntil(lambda: tab.names() == ["zed"])
    assert tokens[0][0] == "zed" and shell.backend.registry.verify(tokens[0][1]) == "zed"
    wait(qtbot, tab.revoke_client("zed"))
    qtbot.waitUntil(lambda: tab.table.item(0, 1).text().startswith("revoked"))
    assert shell.backend.registry.verify(tokens[0][1]) is None


def test_autostart_entries_per_platform(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    command = ["/opt/hd/bin/hindsight-desktop"]
    linux = autostart.set_enabled(True, platform="linux", home=tmp_path, command=command)
    assert linux == tmp_path / ".config" / "autostart" / "hindsight-desktop.desktop"
    assert "Exec=/opt/hd/bin/hindsight-desktop" in linux.read_text()
    assert autostart.is_enabled(platform="linux", home=tmp_path)
    mac = autostart.set_enabled(True, platform="darwin", home=tmp_path, command=command)
    import plistlib

    plist = plistlib.loads(mac.read_bytes())
    assert plist["ProgramArguments"] == command and plist["RunAtLoad"] is True
    autostart.set_enabled(False, platform="linux", home=tmp_path)
    assert not autostart.is_enabled(platform="linux", home=tmp_path)
    assert (
        autostart.subprocess_line([r"C:\Program Files\hd\hindsight-desktop.exe"])
        == '"C:\\Program Files\\hd\\hindsight-desktop.exe"'
    )
