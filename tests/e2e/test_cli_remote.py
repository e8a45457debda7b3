"""The command line with a server running for its data folder: `add`, `search`, `why`, `show` and `stats` are
made by that server (the command loads neither the engine nor numpy), print exactly what they print
in-process, exit with the same codes, and act as the person; with no server they run in-process as before."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.mcp import ServeProcess, env_for, prepare_data_dir

from hindsight_desktop.mcp import runtime

# Runs the command line as `python -m hindsight_desktop` would, then records which heavy modules it
# imported (in a file, so stdout and stderr stay exactly the command's).
_RUN = """
import atexit, json, sys
report, *argv = sys.argv[1:]
HEAVY = ("numpy", "llama_cpp", "hindsight_desktop.core.engine")
def record():
    with open(report, "w") as handle:
        json.dump(sorted(m for m in HEAVY if m in sys.modules), handle)
atexit.register(record)
from hindsight_desktop.cli import main
sys.exit(main(argv))
"""


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "run"
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(path))
    yield path
    for endpoint_file in path.glob("server-*.json"):  # no server outlives its test
        with contextlib.suppress(ValueError, OSError):
            os.kill(json.loads(endpoint_file.read_text())["pid"], signal.SIGKILL)


class Cli:
    def __init__(self, data_dir: Path, tmp_path: Path) -> None:
        self.data_dir, self.report = data_dir, tmp_path / "imports.json"

    def __call__(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", _RUN, str(self.report), *args],
            env=env_for(self.data_dir),
            capture_output=True,
            text=True,
            timeout=180,
        )

    def heavy(self) -> list[str]:
        """The heavy modules the last command imported."""
        return json.loads(self.report.read_text())


@pytest.fixture
def cli(tmp_path: Path, model_dir: Path, embedder, run_dir: Path) -> Cli:
    return Cli(prepare_data_dir(tmp_path / "data", model_dir), tmp_path)


class Ids:
    """A folder's output with what differs between two folders by nature put in order: a new memory's
    id (numbered as it first appears), the time it was written, the folder's own path."""

    ID, TIME = re.compile(r"mem_[0-9a-f]+"), re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")

    def __init__(self, folder: Path) -> None:
        self.folder, self.seen = str(folder), {}

    def same(self, text: str) -> str:
        text = text.replace(self.folder, "<folder>")
        text = self.ID.sub(lambda m: self.seen.setdefault(m.group(), f"<id {len(self.seen)}>"), text)
        return self.TIME.sub("<time>", text)


def serve(data_dir: Path) -> ServeProcess:
    """`serve`, once it publishes its endpoint (its HTTP port may answer a moment before)."""
    served = ServeProcess(data_dir, "--no-auth")
    deadline = time.monotonic() + 60
    while runtime.read_endpoint(data_dir) is None:
        assert time.monotonic() < deadline, "serve never published its endpoint"
        time.sleep(0.05)
    return served


def test_add_search_and_why_go_through_the_running_server_and_print_the_same(cli, tmp_path):
    first = cli("--json", "add", "My sister Priya lives in Toronto.")  # nothing runs: in-process
    assert first.returncode == 0, first.stderr
    fact = json.loads(first.stdout)["id"]
    assert "llama_cpp" in cli.heavy()
    # The same memory in a second folder, where no server runs: each command is made there in-process
    # right after it is made through the server here, so both see the same memory in the same state.
    alone = Cli(tmp_path / "copy", tmp_path)
    shutil.copytree(cli.data_dir, alone.data_dir, symlinks=True)
    commands = [
        ("--json", "search", "where does Priya live?", "--explain"),
        ("search", "Priya Toronto", "--mode", "keyword"),
        ("--json", "why", "where does Priya live?", fact),
        ("why", "Priya", "mem_nope"),
        ("search", "   "),  # refused, exit 2
        ("--json", "why", "", fact),
        ("--json", "add", "I keep my bike key in the blue bowl.", "--type", "note", "--when", "2026-01-02"),
        ("add", "thanks!"),  # the person's own words are kept, whatever an assistant's gate would say
        ("--json", "add", "Remember the date", "--when", "someday"),
        ("add", "   "),
        ("--json", "search", "bike key", "--limit", "1"),
        ("show", fact),
        ("--json", "show", "mem_nope"),
        ("--json", "stats"),
        ("stats",),
    ]
    served_ids, copied_ids = Ids(cli.data_dir), Ids(alone.data_dir)
    served = serve(cli.data_dir)
    try:
        for command in commands:
            through = cli(*command)
            assert cli.heavy() == [], f"{command} loaded {cli.heavy()} with the server running"
            here = alone(*command)
            assert "numpy" in alone.heavy()
            assert through.returncode == here.returncode, command
            for a, b in ((through.stdout, here.stdout), (through.stderr, here.stderr)):
                assert served_ids.same(a) == copied_ids.same(b), command
    finally:
        served.stop()
    codes = [cli(*c).returncode for c in commands]  # the server gone: in-process again
    assert codes == [0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0, 0, 3, 0, 0] and "numpy" in cli.heavy()
    key = json.loads(cli("--json", "search", "bike key", "--limit", "1").stdout)["results"][0]["id"]
    shown = json.loads(cli("--json", "show", key).stdout)
    # The person's own command: kept as asked, written by the person, not by an assistant.
    assert shown["content"] == "I keep my bike key in the blue bowl." and shown["type"] == "note"
    assert shown["client"] == json.loads(cli("--json", "show", fact).stdout)["client"] == "desktop"
    assert cli.heavy() == ["hindsight_desktop.core.engine", "numpy"]  # `show` opens the memory, not the model


def test_searches_made_by_the_server_are_counted_at_once(cli):
    assert cli("add", "My sister Priya lives in Toronto.").returncode == 0
    served = serve(cli.data_dir)
    try:
        for _ in range(3):
            assert cli("search", "Priya").returncode == 0
        stats = cli("--json", "stats")
        assert stats.returncode == 0 and cli.heavy() == []
        assert json.loads(stats.stdout)["searches"] == 3
    finally:
        served.stop()
