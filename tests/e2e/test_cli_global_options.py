"""The global options (`--json`, `--data-dir`) work before and after the command, as people type them,
on the real CLI in a real process; an unknown option still fails with argparse's message and exit 2."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.mcp import env_for, prepare_data_dir

from hindsight_desktop import cli

GLOBALS = ("--data-dir", "--json")


@pytest.fixture
def run(tmp_path: Path, model_dir: Path):
    """The CLI in a process whose HINDSIGHT_DATA_DIR is a decoy: only `--data-dir` can reach the real data."""
    decoy = tmp_path / "decoy"
    home = tmp_path / "home"  # the doctor reads the clients' config files under HOME
    home.mkdir()

    def invoke(*args: str, codes: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-m", "hindsight_desktop", *args],
            capture_output=True,
            text=True,
            env=env_for(decoy, HOME=str(home)),
            timeout=120,
        )
        assert proc.returncode in codes, (args, proc.returncode, proc.stderr)
        return proc

    invoke.decoy = decoy
    return invoke


@pytest.fixture
def data(tmp_path: Path, model_dir: Path) -> Path:
    return prepare_data_dir(tmp_path / "data", model_dir)


def both_positions(data: Path, *command: str) -> tuple[list[str], list[str]]:
    """The same command with the globals before it and after it."""
    globals_ = ["--json", "--data-dir", str(data)]
    return [*globals_, *command], [*command, *globals_]


@pytest.mark.parametrize(
    "command", [("search", "where does Priya live?"), ("stats",), ("model", "show"), ("clients", "list")]
)
def test_json_and_data_dir_before_or_after_the_command(run, data, command):
    outputs = [json.loads(run(*argv).stdout) for argv in both_positions(data, *command)]
    assert type(outputs[0]) is type(outputs[1])
    if command[0] == "model":  # read-only: the same answer from either position
        assert outputs[0] == outputs[1] and outputs[0]["active"]["model_id"].startswith("multilingual-e5-small")
    assert not run.decoy.exists()  # HINDSIGHT_DATA_DIR was never used: --data-dir applied in both positions


def test_search_finds_what_was_added_with_the_options_placed_differently(run, data):
    added = json.loads(run("add", "My sister Priya lives in Toronto.", "--data-dir", str(data), "--json").stdout)
    found = json.loads(run("--data-dir", str(data), "search", "where does Priya live?", "--json").stdout)
    assert found["results"][0]["id"] == added["id"]
    # Without --json the same command prints text, wherever --data-dir stands.
    assert run("search", "Priya", "--data-dir", str(data)).stdout.startswith("1. [")


def test_doctor_and_export_take_the_globals_after_the_command(run, data, tmp_path):
    reports = [json.loads(run(*argv, codes=(0, 1)).stdout) for argv in both_positions(data, "doctor")]
    for report in reports:
        checks = {check["name"]: check for check in report["checks"]}
        assert checks["data dir"]["ok"] and checks["database"]["ok"]
    assert reports[0]["ok"] == reports[1]["ok"]

    target = tmp_path / "out.json"
    for argv in both_positions(data, "export", "--output", str(target)):
        target.unlink(missing_ok=True)
        summary = json.loads(run(*argv).stdout)  # with --output the summary is on stdout
        assert summary["memories"] == 0 and summary["path"] == str(target) and target.is_file()


def test_the_later_data_dir_wins(run, tmp_path):
    first, later = tmp_path / "first", tmp_path / "later"
    run("--data-dir", str(first), "clients", "add", "cursor", "--data-dir", str(later))
    assert [c["name"] for c in json.loads(run("clients", "list", "--json", "--data-dir", str(later)).stdout)] == [
        "cursor"
    ]
    assert not first.exists()


def test_errors_honour_json_after_the_command(run, tmp_path):
    missing = run("clients", "revoke", "nobody", "--data-dir", str(tmp_path / "data"), "--json", codes=(3,))
    error = json.loads(missing.stderr)
    assert error["code"] == 3 and "no active client named 'nobody'" in error["error"]
    assert run("clients", "revoke", "nobody", "--data-dir", str(tmp_path / "data"), codes=(3,)).stderr.startswith(
        "error: no active client"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("search", "x", "--json", "--bogus"),
        ("--bogus", "search", "x"),
        ("model", "show", "--json", "--bogus"),
    ],
)
def test_an_unknown_option_still_fails_clearly(run, argv):
    proc = run(*argv, codes=(2,))
    assert "error: unrecognized arguments: --bogus" in proc.stderr and proc.stdout == ""


def test_a_global_option_missing_its_value_names_itself(run):
    proc = run("search", "x", "--data-dir", codes=(2,))
    assert "argument --data-dir: expected one argument" in proc.stderr


def test_parsed_values_by_position():
    parse = cli.build_parser().parse_args
    assert parse(["stats"]).json is False and parse(["stats"]).data_dir is None
    assert parse(["--json", "stats"]).json and parse(["stats", "--json"]).json
    assert parse(["--json", "model", "show"]).json and parse(["model", "--json", "show"]).json
    # Given in both places, the later one (after the command) wins.
    assert parse(["--data-dir", "a", "stats", "--data-dir", "b"]).data_dir == Path("b")
    assert parse(["--data-dir", "a", "clients", "list"]).data_dir == Path("a")
    assert parse(["--data-dir", "a", "model", "--data-dir", "b", "show", "--data-dir", "c"]).data_dir == Path("c")


def subcommand_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every (sub)command's parser, nested ones included, with the words that reach it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield (*path, name), child
                yield from subcommand_parsers(child, (*path, name))


def test_every_command_help_lists_the_global_options():
    found = dict(subcommand_parsers(cli.build_parser()))
    assert {("search",), ("model", "show"), ("clients", "list"), ("doctor",), ("export",)} <= set(found)
    for path, parser in found.items():
        text = parser.format_help()
        assert "global options" in text and all(option in text for option in GLOBALS), path


def test_help_after_a_command_prints_the_global_options(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["model", "show", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: hindsight-desktop model show") and all(option in out for option in GLOBALS)


def test_clients_config_honours_json_like_every_command(run, tmp_path):
    where = ("--data-dir", str(tmp_path / "data"))
    shown = json.loads(run("clients", "config", "claude-code", "--json", *where).stdout)
    assert shown["client"] == "claude-code" and shown["snippet"].startswith("claude mcp add ")
    assert shown["note"].startswith("Claude Code: run this command")
    plain = run("clients", "config", "claude-code", *where)  # without --json: exactly what to paste
    assert plain.stdout.strip() == shown["snippet"] and "Claude Code: run this command" in plain.stderr
