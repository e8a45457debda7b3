"""The command line's words, run as a person would: a forget says what happened and how to undo it, text
search marks memories a newer one replaced, and `why` names its two scales."""

from __future__ import annotations

import json

from support.mcp import cli, prepare_data_dir


def _add(data_dir, text: str) -> str:
    return json.loads(cli(data_dir, "--json", "add", text).stdout)["id"]


def test_forget_says_what_happened_and_how_to_undo(tmp_path, model_dir):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    first = _add(data_dir, "My dentist is Dr. Alvarez on Elm Street.")
    second = _add(data_dir, "The car insurance renews every April.")
    out = cli(data_dir, "forget", first, second).stdout
    assert "removed:" not in out and "wal_cleared" not in out  # no raw dump
    assert f"Archived 2 memories ({first}, {second})" in out
    batch = json.loads(cli(data_dir, "--json", "show", first).stdout)["history"][0]["detail"]["batch"]  # newest first
    assert f"Undo: hindsight-desktop restore --batch {batch}" in out
    assert f"Restore one: hindsight-desktop restore {first}" in out
    cli(data_dir, "restore", "--batch", batch)  # the printed command works
    assert "Nothing matched" in cli(data_dir, "forget", "--query", "zeppelin quartz").stdout
    purged = cli(data_dir, "forget", second, "--purge").stdout
    assert "Deleted 1 memory for good" in purged and "cannot be undone" in purged and "restore" not in purged


def test_text_search_marks_superseded_memories(tmp_path, model_dir):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    old = _add(data_dir, "I live in Beijing.")
    new = _add(data_dir, "I moved to Shanghai.")
    assert json.loads(cli(data_dir, "--json", "show", old).stdout)["status"] == "superseded", "no supersession"
    old_line = next(x for x in cli(data_dir, "search", "Beijing").stdout.splitlines() if old in x)
    new_line = next(x for x in cli(data_dir, "search", "Shanghai").stdout.splitlines() if new in x)
    assert "[superseded: a newer memory replaced it]" in old_line and "superseded" not in new_line


def test_why_names_both_scales(tmp_path, model_dir):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    memory = _add(data_dir, "My sister Priya lives in Toronto.")
    out = cli(data_dir, "why", "where does Priya live?", memory).stdout
    line = next(x for x in out.splitlines() if x.startswith("5. similarity"))
    assert "raw cosine" in line
    scores = next(x for x in out.splitlines() if "vector" in x and "calibrated" in x)
    assert "vector is the similarity on this scale" in scores
