"""The Settings window's Diagnose button: the doctor's real checks, run on a worker with the app's
own engine, listed one per line with their fixes, and copied as a report."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from hindsight_desktop.app.diagnose_dialog import check_lines, report_text
from hindsight_desktop.app.settings_dialog import SettingsDialog
from hindsight_desktop.cli import doctor_checks as doctor


def _lines(dialog) -> list[str]:
    return dialog.lines()


def test_diagnose_button_lists_the_real_checks(qtbot, shell, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no real assistant configs are read
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    settings = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path / "home")
    qtbot.addWidget(settings)
    qtbot.mouseClick(settings.diagnose_button, Qt.MouseButton.LeftButton)
    dialog = settings.diagnose_dialog
    assert dialog is not None and dialog.isVisible()
    assert not dialog.copy_button.isEnabled()  # nothing to copy while the checks run
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60_000)

    lines = _lines(dialog)
    assert any(line.startswith(f"PASS  data dir: {shell.paths.data_dir}") for line in lines), lines
    assert any(line.startswith("PASS  sqlite-vec") for line in lines), lines
    # The app's engine was handed over: the model is the loaded one, and it was not loaded again.
    model_line = next(line for line in lines if line.startswith("PASS  embedding model"))
    assert shell.backend.engine.embedder.model_id in model_line and "loads in" not in model_line
    assert any(line.startswith("PASS  indexes") for line in lines), lines
    assert len(lines) == len(dialog.report["checks"]) >= 6

    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("Hindsight Desktop ") and model_line in copied
    assert copied.rstrip().endswith(("All checks passed.", "check(s) failed."))


def test_a_failed_check_shows_its_fix(qtbot, shell, monkeypatch):
    failing = {
        "ok": False,
        "checks": [
            {"name": "data dir", "ok": True, "detail": "writable", "fix": "", "skipped": False},
            {
                "name": "http port",
                "ok": False,
                "detail": "port 8765 is held by another program",
                "fix": "choose another port in Settings",
                "skipped": False,
            },
            {
                "name": "client configs",
                "ok": True,
                "detail": "skipped: none found",
                "fix": "install one",
                "skipped": True,
            },
        ],
    }
    monkeypatch.setattr(doctor, "run_doctor", lambda *args, **kwargs: failing)
    settings = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(settings)
    dialog = settings.open_diagnose()
    qtbot.waitUntil(lambda: dialog.report is not None)
    lines = _lines(dialog)
    assert lines[1].startswith("FAIL  http port: port 8765 is held by another program\n      fix: Another program")
    assert "choose another one in Settings" in lines[1]  # the in-app fix, with its button
    assert lines[2].startswith("SKIP  client configs") and "fix: install one" in lines[2]
    assert "1 check(s) failed" in dialog.status.text()
    assert report_text(failing).rstrip().endswith("1 check(s) failed.")


def test_an_error_in_the_checks_is_shown_not_raised(qtbot, shell, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the keyring exploded")

    monkeypatch.setattr(doctor, "run_doctor", broken)
    settings = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(settings)
    dialog = settings.open_diagnose()
    qtbot.waitUntil(lambda: "could not run" in dialog.status.text())
    assert "the keyring exploded" in dialog.status.text()
    assert dialog.again_button.isEnabled() and not dialog.copy_button.isEnabled()


def test_passing_checks_show_no_fix():
    assert check_lines({"name": "keyring", "ok": True, "detail": "file", "fix": "unused", "skipped": False}) == [
        "PASS  keyring: file"
    ]
