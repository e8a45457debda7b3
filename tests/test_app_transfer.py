"""Export and import from the timeline, through core.portable when it exists."""

from __future__ import annotations

import pytest
import test_app_support as support
from PySide6.QtWidgets import QMessageBox
from test_app_support import seed, start_shell, wait

from hindsight_desktop.app import transfer
from hindsight_desktop.app.state import AppPaths

app_paths, shell, token_store = support.app_paths, support.shell, support.token_store  # shared fixtures


def test_format_from_the_file_name_or_the_chosen_filter():
    assert transfer.format_for("/x/memories.JSONL") == "jsonl"
    assert transfer.format_for("/x/notes.markdown") == "md"
    assert transfer.format_for("/x/export", "CSV (*.csv)") == "csv"
    assert transfer.format_for("/x/export") == "json"


def test_progress_is_relayed_whatever_the_exporter_reports():
    seen = []
    relay = transfer._relay(lambda done, total: seen.append((done, total)))
    relay(5)
    relay(6, 10)
    relay(done=7, total=10)
    assert seen == [(5, 0), (6, 10), (7, 10)]
    assert transfer.describe(12, "Exported") == "Exported 12 memories."
    assert transfer.describe({"imported": 3, "skipped": 1}, "Imported") == "Imported: imported 3, skipped 1."


def test_actions_explain_when_export_is_not_available(qtbot, shell, monkeypatch):
    monkeypatch.setattr(transfer, "portable", lambda: None)
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: told.append(text))
    window = shell.open_timeline()
    window.act_export.trigger()
    window.act_import.trigger()
    assert told == [transfer.NOT_AVAILABLE] * 2
    with pytest.raises(RuntimeError):
        transfer.export_job(shell.backend.engine, "json", "/dev/null", None)


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_export_then_import_round_trip(qtbot, shell, embedder, tmp_path, fmt):
    pytest.importorskip("hindsight_desktop.core.portable")
    ids = seed(shell.backend.engine)
    window = shell.open_timeline()
    path = tmp_path / f"memories.{fmt}"
    wait(qtbot, window.transfer.export_to(str(path), fmt), timeout=60_000)
    assert path.stat().st_size > 0
    other = start_shell(qtbot, AppPaths(tmp_path / "c2", tmp_path / "d2"), embedder)
    try:
        other_window = other.open_timeline()
        wait(qtbot, other_window.transfer.import_from(str(path)), timeout=60_000)
        engine = other.backend.engine
        originals = sorted(shell.backend.engine.get(i).content for i in ids)
        assert sorted(m.content for m in engine.list(limit=100)) == originals
    finally:
        other.shutdown()
