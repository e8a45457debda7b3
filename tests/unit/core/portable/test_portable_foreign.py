"""Imports of other tools' memories: through the write pipeline (duplicates merged, secrets redacted),
with a dry run that changes nothing and errors that name the line."""

from __future__ import annotations

import json

import pytest

from hindsight_desktop.core.errors import InvalidInput, PausedError

MCP_MEMORY = [
    {
        "type": "entity",
        "name": "Alice_Chen",
        "entityType": "person",
        "observations": [
            "Prefers green tea over coffee",
            "Works remotely from Lisbon",
            "Her API key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
        ],
    },
    {"type": "entity", "name": "Acme_Robotics", "entityType": "organization", "observations": []},
    {"type": "relation", "from": "Alice_Chen", "to": "Acme_Robotics", "relationType": "works_at"},
]


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_mcp_memory_server_file(engine, tmp_path):
    path = _write(tmp_path / "memory.json", "\n".join(json.dumps(line) for line in MCP_MEMORY) + "\n")
    report = engine.import_file(path)
    assert report.format == "mcp-memory" and report.created == 5 and report.redactions == 1
    contents = {m.content for m in engine.list_memories()}
    assert "Alice Chen: Prefers green tea over coffee" in contents
    assert "Acme Robotics is a organization." in contents and "Alice Chen works at Acme Robotics." in contents
    assert not any("sk-live" in c for c in contents)
    tea = engine.search("what does Alice drink?").hits[0].memory
    assert tea.content.endswith("green tea over coffee") and tea.metadata["entity"] == "Alice_Chen"
    relation = next(m for m in engine.list_memories() if m.content.startswith("Alice Chen works at"))
    types = {link.type for link in engine.links(relation.id)}
    assert "about" in types
    assert any(link.type == "works_at" for m in engine.list_memories() for link in engine.links(m.id))
    again = engine.import_file(path)
    assert again.created == 0 and again.duplicates == 5  # the same file twice: merged, not doubled


def test_older_mcp_layout_and_its_errors(engine, tmp_path):
    whole = {"entities": [MCP_MEMORY[0]], "relations": [MCP_MEMORY[2]]}
    assert engine.import_file(_write(tmp_path / "graph.json", json.dumps(whole)), dry_run=True).created == 4
    bad = _write(
        tmp_path / "memory.json",
        json.dumps(MCP_MEMORY[0])
        + "\n"
        + json.dumps({"type": "relation", "from": "Alice_Chen", "relationType": "knows"})
        + "\n",
    )
    with pytest.raises(InvalidInput, match=r"memory.json, line 2: field 'to' must be non-empty text"):
        engine.import_file(bad)
    assert engine.count() == 0


def test_markdown_and_text_are_one_memory_per_paragraph(engine, tmp_path):
    notes = _write(
        tmp_path / "notes.md",
        "# Travel notes\n\nMy flight to Oslo is SK4415 on 3 March.\nSeat 14C.\n\n"
        "---\n\nThe hotel in Bergen is the Bryggen, near the fish market.\n",
    )
    report = engine.import_file(notes)
    assert report.format == "markdown" and report.created == 2
    flight = engine.search("which seat do I have?").hits[0].memory
    assert flight.content == "My flight to Oslo is SK4415 on 3 March.\nSeat 14C." and flight.metadata["line"] == 3
    text = _write(tmp_path / "journal.txt", "Started learning the cello.\nIt is hard.\n\nBought rosin and strings.\n")
    assert engine.import_file(text).format == "text"
    assert engine.count() == 4


@pytest.mark.parametrize("fmt", ["chatgpt", "claude"])
def test_assistant_memory_lists_are_one_memory_per_line(engine, tmp_path, fmt):
    path = _write(
        tmp_path / "memories.txt",
        "- Is vegetarian\n- Has a dog named Biscuit\n"
        "• Prefers answers in British English\n3. Works as a nurse in Leeds\n- Has a dog named Biscuit\n",
    )
    report = engine.import_file(path, fmt=fmt)
    assert report.format == "lines" and report.read == 5 and report.created == 4 and report.duplicates == 1
    assert engine.search("what is my dog called?").hits[0].memory.content == "Has a dog named Biscuit"
    assert engine.import_file(path).format == "lines"  # detected without --format too


def test_dry_run_reports_what_would_happen(engine, tmp_path):
    engine.write("Is vegetarian", explicit=True)
    path = _write(tmp_path / "memories.txt", "Is vegetarian\nLoves hiking in the Alps\n")
    report = engine.import_file(path, dry_run=True)
    assert (report.created, report.duplicates) == (1, 1)
    assert [i["action"] for i in report.items] == ["duplicate", "create"]
    assert engine.count() == 1 and engine.search("Alps", mode="keyword").hits == []


def test_a_bad_item_names_its_line_and_nothing_is_imported(engine, tmp_path):
    path = _write(tmp_path / "memories.txt", "Likes jazz\nOwns a red bicycle\n" + "x" * 40_000 + "\nPlays chess\n")
    with pytest.raises(InvalidInput, match=r"memories.txt, line 3: content is 40000 bytes"):
        engine.import_file(path)
    assert engine.count() == 0


def test_unreadable_and_unknown_files(engine, tmp_path):
    with pytest.raises(InvalidInput, match="cannot read"):
        engine.import_file(tmp_path / "missing.txt")
    binary = tmp_path / "photo.txt"
    binary.write_bytes(b"hello\nworld\n\xff\xfe\n")
    with pytest.raises(InvalidInput, match=r"photo.txt, line 3: not UTF-8"):
        engine.import_file(binary)
    with pytest.raises(InvalidInput, match="CSV is an export format"):
        engine.import_file(_write(tmp_path / "x.csv", "id,content\n"))
    with pytest.raises(InvalidInput, match="unknown import format"):
        engine.import_file(_write(tmp_path / "x.txt", "hello"), fmt="docx")
    with pytest.raises(InvalidInput, match="no memories found"):
        engine.import_file(_write(tmp_path / "empty.md", "# Only a title\n"))


def test_import_respects_pause_but_a_dry_run_does_not_write(engine, tmp_path):
    path = _write(tmp_path / "memories.txt", "Likes jazz\n")
    engine.set_paused(True)
    with pytest.raises(PausedError):
        engine.import_file(path)
    assert engine.import_file(path, dry_run=True).created == 1
    assert engine.count() == 0
