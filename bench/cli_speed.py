"""How long a command-line command takes, as a person runs it: a fresh process each time, wall time.

    python bench/cli_speed.py                          # this checkout, 5 runs of each command
    python bench/cli_speed.py --before /tmp/cli-base   # and an older checkout beside it (a git worktree)

Commands: `--help`, `stats`, `show ID`, `search QUERY`, `add TEXT` (a new text each run), each with
`--json`, on a folder of `--memories` memories imported by the version measured (so each version reads
a file of its own schema). Twice: with nothing running, and with `serve` running on the same folder.
One untimed run of each command first (what a version keeps between processes is then in place, as
on a computer that has run it before). Medians over the runs; prints a table, asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_load import corpus  # noqa: E402  (the load bench's generated memories)

REPO = Path(__file__).resolve().parents[1]
COMMANDS = ("--help", "stats", "show", "search", "add")


def built_cache() -> Path | None:
    """A cache folder that holds the converted default model (and the cross-language lexicon) already,
    so no version builds them again (each version gets its own cache folder, linking to these)."""
    import platformdirs

    for base in (
        os.environ.get("HINDSIGHT_CACHE_DIR"),
        platformdirs.user_cache_dir("hindsight-desktop", appauthor=False),
        platformdirs.user_cache_dir("hindsight-desktop-tests"),
    ):
        if base and (Path(base) / "models" / "multilingual-e5-small-q4_0.gguf").is_file():
            return Path(base)
    return None


class Version:
    """One checkout's command line on its own folders (data, settings, cache, runtime files)."""

    def __init__(self, label: str, checkout: Path, work: Path, built: Path | None) -> None:
        self.label, self.checkout, self.root = label, checkout, work / label
        self.data = self.root / "data"
        for sub in ("data", "config", "cache", "run"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        if built is not None:
            (self.data / "models").symlink_to(built / "models", target_is_directory=True)
            for path in [built / "models", *built.glob("lexicon-*.sqlite")]:
                (self.root / "cache" / path.name).symlink_to(path)
        self.env = {
            **os.environ,
            "PYTHONPATH": str(checkout),
            "HINDSIGHT_DATA_DIR": str(self.data),
            "HINDSIGHT_CONFIG_DIR": str(self.root / "config"),
            "HINDSIGHT_CACHE_DIR": str(self.root / "cache"),
            "HINDSIGHT_RUNTIME_DIR": str(self.root / "run"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "HINDSIGHT_TOKEN_STORE": "file",
        }

    def run(self, *args: str) -> tuple[float, subprocess.CompletedProcess]:
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "hindsight_desktop", *args],
            env=self.env,
            cwd=self.checkout,
            capture_output=True,
            text=True,
            timeout=300,
        )
        elapsed = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(f"{self.label}: {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        return elapsed, proc

    def seed(self, n: int) -> str:
        """Import n memories; returns the id of one of them."""
        texts = corpus(n, seed=7)
        file = self.root / "seed.jsonl"
        file.write_text(
            "\n".join(
                json.dumps({"type": "entity", "name": f"seed-{i}", "entityType": "memory", "observations": [t]})
                for i, (t, _) in enumerate(texts)
            ),
            encoding="utf-8",
        )
        self.run("import", str(file), "--format", "mcp-memory")
        found = json.loads(self.run("--json", "search", texts[0][0], "--limit", "1")[1].stdout)
        return found["results"][0]["id"]

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """`serve` on the folder, once it answers and its bridge endpoint is published."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen(
            [sys.executable, "-m", "hindsight_desktop", "serve", "--no-auth", "--port", str(port)],
            env=self.env,
            cwd=self.checkout,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 180
            while not list((self.root / "run").glob("server-*.json")):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{self.label}: serve did not start")
                time.sleep(0.1)
            self.run("--json", "search", "warm up")  # the server's engine is open and its model warm
            yield
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def measure(version: Version, memory_id: str, runs: int, tag: str) -> dict[str, float]:
    """Median seconds of each command; the first run of each is untimed."""
    args = {
        "--help": lambda i: ("--help",),
        "stats": lambda i: ("--json", "stats"),
        "show": lambda i: ("--json", "show", memory_id),
        "search": lambda i: ("--json", "search", "who lives in Lisbon?"),
        "add": lambda i: ("--json", "add", f"Benchmark note {tag} {i}: the spare key is in drawer {i}."),
    }
    medians = {}
    for command in COMMANDS:
        times = [version.run(*args[command](i))[0] for i in range(runs + 1)][1:]
        medians[command] = statistics.median(times)
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="an older checkout (a git worktree) to measure beside this one")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memories", type=int, default=300)
    opts = parser.parse_args()
    versions = [("after", REPO)] + ([("before", opts.before.resolve())] if opts.before else [])
    built = built_cache()
    work = Path(tempfile.mkdtemp(prefix="cli-speed-"))
    table: dict[tuple[str, str], dict[str, float]] = {}
    try:
        for label, checkout in versions:
            version = Version(label, checkout, work, built)
            memory_id = version.seed(opts.memories)
            table[(label, "nothing running")] = measure(version, memory_id, opts.runs, "alone")
            with version.serving():
                table[(label, "serve running")] = measure(version, memory_id, opts.runs, "served")
            print(f"{label}: done", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    columns = list(table)
    print(f"median wall time of a fresh process, seconds ({opts.runs} runs, {opts.memories} memories)")
    print("command".ljust(10) + "".join(f"{label} / {mode}".rjust(28) for label, mode in columns))
    for command in COMMANDS:
        print(command.ljust(10) + "".join(f"{table[c][command]:.2f}".rjust(28) for c in columns))


if __name__ == "__main__":
    main()
