"""Diagnose on a memory whose keyword index lost a row: the real doctor finds it, the dialog offers
"Run maintenance now" (not `hindsight-desktop maintenance`), the button runs the app's maintenance, and
the checks run again and pass."""

from __future__ import annotations

from PySide6.QtCore import Qt
from support.app import start_shell

from hindsight_desktop.app.in_app_words import has_command
from hindsight_desktop.core.index import coverage


def test_an_index_gap_is_repaired_from_the_diagnose_dialog(qtbot, app_paths, embedder, token_store, monkeypatch):
    monkeypatch.setenv("HOME", str(app_paths.data_dir.parent / "home"))  # no assistant configs of the tester's
    app = start_shell(qtbot, app_paths, embedder, serve=False)
    try:
        engine = app.backend.engine
        engine.write("Remember: the spare tyre is under the boot floor.", gate=False)
        engine.write("Remember: the ferry leaves at seven.", gate=False)
        with engine.store.write() as db:  # a row lost from the keyword index, as after a crash mid-write
            db.execute(
                f"DELETE FROM {coverage.KEYWORD_TABLE} WHERE rowid = (SELECT MIN(rowid) FROM {coverage.KEYWORD_TABLE})"
            )
        settings = app.open_settings()
        dialog = settings.open_diagnose()
        qtbot.waitUntil(lambda: dialog.report is not None, timeout=120_000)
        row = next(r for r in dialog.rows if r.check["name"] == "indexes")
        assert not row.check["ok"] and "1 missing" in row.check["detail"], row.check
        assert "Run maintenance" in row.text() and not has_command(row.text()), row.text()
        button = next(b for b in row.buttons if b.text() == "Run maintenance now")
        first = dialog.report
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dialog.report is not None and dialog.report is not first, timeout=120_000)
        again = next(r for r in dialog.rows if r.check["name"] == "indexes")
        assert again.check["ok"], again.check
    finally:
        app.shutdown()
