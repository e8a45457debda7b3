"""Export and import from the timeline, through core.portable."""

from __future__ import annotations

import json

import pytest
from support.app import seed, start_shell, wait

from hindsight_desktop.app import transfer
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.core.portable.importer import ImportReport


def test_format_from_the_file_name_or_the_chosen_filter():
    assert transfer.format_for("/x/memories.JSONL") == "jsonl"
    assert transfer.format_for("/x/notes.markdown") == "md"
    assert transfer.format_for("/x/export", "CSV (*.csv)") == "csv"
    assert transfer.format_for("/x/export") == "json"


def test_the_status_line_names_the_counts():
    assert (
        transfer.describe({"format": "json", "memories": 12, "links": 3, "path": "/x"}, "Exported")
        == "Exported: memories 12, links 3."
    )
    report = ImportReport(format="json", source="/x", dry_run=False, created=3, skipped_existing=1)
    assert transfer.describe(report, "Imported").startswith(
        "Imported: read 0, created 3, duplicates 0, skipped existing 1"
    )


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
    assert done[-1].startswith("Exported: memories 2")


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
