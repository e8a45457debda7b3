"""The command line, run as a person would: a real process, a data dir, JSON out, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture
def run(tmp_path, model_dir):
    env = {**os.environ, "HINDSIGHT_DATA_DIR": str(tmp_path / "data")}

    def invoke(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        # Reuse the session's converted model so each process does not convert it again.
        models = tmp_path / "data" / "models"
        if not models.exists():
            models.parent.mkdir(parents=True, exist_ok=True)
            models.symlink_to(model_dir, target_is_directory=True)
        proc = subprocess.run(
            [sys.executable, "-m", "hindsight_desktop", *args], env=env, capture_output=True, text=True, timeout=120
        )
        if check:
            assert proc.returncode == 0, proc.stderr
        return proc

    return invoke


def test_add_search_show_forget_restore_stats(run):
    added = json.loads(run("--json", "add", "ok", "--type", "note").stdout)
    assert added["stored"]  # what a person adds by hand is always kept
    fact = json.loads(run("--json", "add", "My sister Priya lives in Toronto.").stdout)
    found = json.loads(run("--json", "search", "where does Priya live?", "--explain").stdout)
    assert found["results"][0]["id"] == fact["id"] and "scores" in found["results"][0]
    shown = json.loads(run("--json", "show", fact["id"]).stdout)
    assert shown["content"] == "My sister Priya lives in Toronto." and shown["history"][0]["kind"] == "write"
    assert json.loads(run("--json", "forget", fact["id"]).stdout)["mode"] == "archive"
    assert json.loads(run("--json", "search", "Priya Toronto").stdout)["results"] == []
    assert json.loads(run("--json", "search", "Priya Toronto", "--deep").stdout)["results"]
    assert json.loads(run("--json", "restore", fact["id"]).stdout)["status"] == "active"
    link = json.loads(run("--json", "link", fact["id"], added["id"], "mentions").stdout)
    assert link["type"] == "mentions"
    stats = json.loads(run("--json", "stats").stdout)
    assert stats["memories"] == 2 and stats["searches"] == 3
    purged = json.loads(run("--json", "forget", fact["id"], "--purge").stdout)
    assert purged["removed"]["memories"] == 1
    assert "Nothing found." in run("search", "Priya").stdout


def test_errors_are_clear_and_exit_non_zero(run):
    empty = run("add", "   ", check=False)
    assert empty.returncode == 2 and "content is empty" in empty.stderr
    missing = run("show", "mem_nope", check=False)
    assert missing.returncode == 3 and "no memory with id" in missing.stderr
    bad_date = run("--json", "add", "Remember the date", "--when", "someday", check=False)
    assert bad_date.returncode == 2 and json.loads(bad_date.stderr)["error"].startswith("timestamp")
    assert run("--version").stdout.startswith("hindsight-desktop ")


def test_saved_settings_apply_to_the_command_line(run):
    from hindsight_desktop.config import Settings, default_config_dir

    saved = default_config_dir() / "settings.json"
    Settings(redact_personal_ids=True).save(saved)
    try:
        added = json.loads(run("--json", "add", "my passport number is E12345678").stdout)
        assert "E12345678" not in json.loads(run("--json", "show", added["id"]).stdout)["content"]
        saved.write_text(json.dumps({"write_threshold": 2}), encoding="utf-8")
        refused = run("add", "Remember: a bad settings file is named.", check=False)
        assert refused.returncode == 2 and "write_threshold must be between 0 and 1" in refused.stderr
    finally:
        saved.unlink()
    assert run("add", "Remember: the settings file is honoured.").returncode == 0


def test_edit_changes_a_memory_through_the_engine_and_keeps_its_history(run):
    added = json.loads(run("--json", "add", "The spare bike key hangs by the front door.").stdout)
    edited = json.loads(
        run(
            "edit",
            added["id"],
            "--content",
            "The spare bike key hangs by the back door.",
            "--importance",
            "0.9",
            "--type",
            "location",
            "--pin",
            "--json",
        ).stdout
    )
    assert edited["content"] == "The spare bike key hangs by the back door."
    assert (edited["importance"], edited["type"], edited["pinned"]) == (0.9, "location", True)
    shown = json.loads(run("--json", "show", added["id"]).stdout)
    assert [e["kind"] for e in shown["history"]] == ["edit", "write"] and shown["pinned"]  # newest first
    found = json.loads(run("--json", "search", "where is the bike key? back door", "--mode", "keyword").stdout)
    assert found["results"][0]["id"] == added["id"]  # re-indexed from the new text
    assert json.loads(run("--json", "edit", added["id"], "--unpin").stdout)["pinned"] is False
    assert run("edit", added["id"], "--importance", "0.5").stdout.startswith(f"id: {added['id']}")

    nothing = run("edit", added["id"], check=False)
    assert nothing.returncode == 2 and "edit needs at least one of" in nothing.stderr
    unknown = run("--json", "edit", "mem_nope", "--pin", check=False)
    assert unknown.returncode == 3 and json.loads(unknown.stderr)["code"] == 3
    both = run("edit", added["id"], "--pin", "--unpin", check=False)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_edit_changes_who_sees_it_and_when_it_happened(run):
    added = json.loads(run("--json", "add", "The boiler was serviced by Aqua Heating.").stdout)
    edited = json.loads(
        run("--json", "edit", added["id"], "--scope", "private", "--when", "2025-08-03T14:00+02:00").stdout
    )
    assert (edited["scope"], edited["occurred_at"]) == ("private", "2025-08-03T12:00:00.000Z")
    history = json.loads(run("--json", "show", added["id"]).stdout)["history"]
    assert history[0]["kind"] == "edit" and set(history[0]["detail"]) == {"scope", "occurred_at"}
    shown = run("show", added["id"]).stdout
    assert "edited: changed who sees it, changed when it happened" in shown, shown
    assert json.loads(run("--json", "edit", added["id"], "--scope", "shared").stdout)["scope"] == "shared"
    bad = run("edit", added["id"], "--scope", "everyone", check=False)
    assert bad.returncode == 2 and "invalid choice: 'everyone'" in bad.stderr
    late = run("edit", added["id"], "--when", "not a date", check=False)
    assert late.returncode == 2 and "occurred_at" in late.stderr


def test_every_command_has_help_text_and_takes_json():
    from hindsight_desktop import cli
    from hindsight_desktop.cli.registry import SUBCOMMANDS

    def leaves(commands, path=()):
        for command in commands:
            assert command.help.strip(), (*path, command.name)
            if command.subcommands:
                yield from leaves(command.subcommands, (*path, command.name))
            else:
                yield (*path, command.name)

    found = list(leaves(SUBCOMMANDS))
    assert ("edit",) in found and ("clients", "config") in found
    parse = cli.build_parser().parse_args
    for path in found:
        extra = {
            ("add",): ["x"],
            ("search",): ["x"],
            ("show",): ["i"],
            ("edit",): ["i"],
            ("link",): ["a", "b"],
            ("why",): ["q", "i"],
            ("import",): ["f"],
            ("model", "use"): ["p"],
            ("clients", "add"): ["n"],
            ("clients", "revoke"): ["n"],
            ("clients", "config"): ["cursor"],
            ("clients", "install"): ["cursor"],
            ("sync", "setup"): ["folder"],
            ("sync", "join"): ["folder", "--code", "HS1-X"],
            ("sync", "remove-device"): ["d"],
        }.get(path, [])
        assert parse([*path, *extra, "--json"]).json, path
