"""Export and import from the timeline, through core.portable."""

from __future__ import annotations

import dataclasses
import json

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox
from support.app import seed, start_shell, wait

from hindsight_desktop.app import transfer
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.core.portable.importer import ImportReport
from hindsight_desktop.core.records import MemoryFilter


def test_format_from_the_file_name_or_the_chosen_filter():
    assert transfer.format_for("/x/memories.JSONL") == "jsonl"
    assert transfer.format_for("/x/notes.markdown") == "md"
    assert transfer.format_for("/x/export", "CSV (*.csv)") == "csv"
    assert transfer.format_for("/x/export") == "json"


def test_the_result_lines_are_plain_words():
    result = {"format": "json", "memories": 12, "links": 1, "events": 30, "path": "/x/m.json"}
    assert transfer.export_words(result) == "Exported 12 memories, 1 link, 30 history events to /x/m.json."
    report = ImportReport(format="json", source="/x", dry_run=False, read=5, created=3, duplicates=1, dangling_refs=1)
    words = transfer.import_words(report)
    assert words.startswith("Read 5 items.\n3 new memories were added.\n1 item repeat")
    assert "dangling" not in words and "refs" not in words and "that one is not in the file" in words
    preview = transfer.import_words(dataclasses.replace(report, dry_run=True, created=1))
    assert "1 new memory would be added." in preview and preview.endswith("Nothing has been written yet.")
    changed = transfer.import_words(dataclasses.replace(report, dry_run=True, superseded=2, skipped_existing=1))
    assert "2 older statements would be replaced by newer ones." in changed
    assert "1 memory already here (same id): left as it is." in changed
    refused = transfer.refused_words("line 3 is not JSON")
    assert refused == "This file cannot be imported: line 3 is not JSON\nNothing was changed."


def test_export_says_what_it_holds_and_defaults_to_everything(qtbot, shell, tmp_path, monkeypatch):
    engine = shell.backend.engine
    ids = seed(engine)
    engine.link(ids[0], ids[1], "related")
    window = shell.open_timeline()
    window.transfer.filters = lambda: MemoryFilter(types=("fact",))  # the timeline shows the 2 facts only
    stats = engine.stats()
    path = tmp_path / "all.jsonl"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    said = []
    window.transfer.message.connect(said.append)

    wait(qtbot, window.transfer.export_dialog())
    choice = window.transfer.choice
    qtbot.waitUntil(choice.isVisible)
    assert choice.scope() == "everything"
    assert f"Everything: {stats['memories']} memories" in choice.options["everything"].text()
    assert "Only what the timeline shows now: 2 memories" in choice.options["shown"].text()
    choice.accept()  # the default: everything, whatever the filter
    qtbot.waitUntil(lambda: bool(said), timeout=60_000)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert sum(r.get("record") == "memory" for r in records) == stats["memories"] == len(ids)
    assert said[-1].startswith(f"Exported {stats['memories']} memories, {stats['links']} link,")

    wait(qtbot, window.transfer.export_dialog())
    window.transfer.choice.options["shown"].setChecked(True)
    said.clear()
    window.transfer.choice.accept()
    qtbot.waitUntil(lambda: bool(said), timeout=60_000)
    assert said[-1].startswith("Exported 2 memories")


def test_import_previews_before_writing(qtbot, shell, embedder, tmp_path):
    seed(shell.backend.engine)
    path = tmp_path / "memories.json"
    window = shell.open_timeline()
    wait(qtbot, window.transfer.export_to(str(path), "json"), timeout=60_000)
    other = start_shell(qtbot, AppPaths(tmp_path / "c2", tmp_path / "d2"), embedder)
    try:
        engine = other.backend.engine
        transfer_actions = other.open_timeline().transfer
        wait(qtbot, transfer_actions.preview(str(path)), timeout=60_000)
        box = transfer_actions.preview_box
        qtbot.waitUntil(box.isVisible)
        assert "6 new memories would be added." in box.informativeText()
        assert engine.count() == 0  # the preview wrote nothing
        said = []
        transfer_actions.message.connect(said.append)
        box.button(QMessageBox.StandardButton.Cancel).click()
        assert engine.count() == 0 and not said

        wait(qtbot, transfer_actions.preview(str(path)), timeout=60_000)
        qtbot.waitUntil(transfer_actions.preview_box.isVisible)
        next(b for b in transfer_actions.preview_box.buttons() if b.text() == "Import").click()
        qtbot.waitUntil(lambda: engine.count() == 6, timeout=60_000)
        qtbot.waitUntil(lambda: bool(said))
        assert said[-1].startswith("Read ") and "6 new memories were added." in said[-1]

        bad = tmp_path / "bad.jsonl"
        bad.write_text("{not json\n")
        wait(qtbot, transfer_actions.preview(str(bad)), timeout=60_000)
        refused = transfer_actions.preview_box
        qtbot.waitUntil(refused.isVisible)
        assert refused.text().startswith("This file cannot be imported: ") and "Nothing was changed." in refused.text()
        assert engine.count() == 6
    finally:
        other.shutdown()


def test_a_selection_of_several_exports_only_those(qtbot, shell, tmp_path):
    ids = seed(shell.backend.engine)
    window = shell.open_timeline()
    path = tmp_path / "chosen.jsonl"
    done = []
    window.transfer.message.connect(done.append)
    wait(qtbot, window.transfer.export_to(str(path), "jsonl", ids[:2]), timeout=60_000)
    exported = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(r["id"] for r in exported if r.get("record") == "memory") == sorted(ids[:2])
    qtbot.waitUntil(lambda: bool(done))
    assert done[-1].startswith("Exported 2 memories")


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_export_then_import_round_trip(qtbot, shell, embedder, tmp_path, fmt):
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
        assert sorted(m.content for m in engine.list_memories(limit=100)) == originals
    finally:
        other.shutdown()
