"""Crash safety: `kill -9` the MCP servers in the middle of writes and the maintenance command in the
middle of its run, 20 times, on one small memory file. After every kill, every write the server had
acknowledged is in the file, the indexes agree with the memories, and `PRAGMA integrity_check` is ok.

Real processes throughout: `hindsight-desktop mcp --in-process` (the process that holds the engine and
does the write, not a bridge to one) spoken to in raw JSON-RPC over its pipes,
`hindsight-desktop serve` through the real SDK client, `hindsight-desktop maintenance` with a small batch
so that a run is many short transactions.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import apsw
import pytest
from support.mcp import ServeProcess, env_for, http_client, prepare_data_dir, token_env

from hindsight_desktop.config import DB_FILE, Settings
from hindsight_desktop.core.diagnose.checks import check_indexes
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.mcp.auth import ClientRegistry

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")]

STDIO_KILLS, HTTP_KILLS, MAINTENANCE_KILLS = 7, 7, 6  # 20 in all
SEEDED = 200
FRESH_PER_RUN = 60  # new memories before each maintenance run, so that each run has work to be killed in
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "crash", "version": "1"}},
}
TOPICS = ["coffee", "running", "the dentist", "my sister", "the garden", "chess", "Lisbon", "the piano"]


def note(run: str, n: int) -> str:
    """A distinct, keep-worthy sentence (never a duplicate of another, so each write makes its own memory)."""
    return f"Note {run}-{n}: I decided that on day {n} of project {run} I will think about {TOPICS[n % len(TOPICS)]}."


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory, embedder, model_dir: Path) -> Path:
    """A small memory that maintenance has never seen (so its first runs have every memory to look at)
    and settings that cut a run into many small transactions."""
    root = tmp_path_factory.mktemp("crash")
    data = prepare_data_dir(root / "data", model_dir)
    seed(data, embedder, "seed", SEEDED)
    Settings(maintenance_batch=5).save(root / "config" / "settings.json")
    return data


def seed(data: Path, embedder: Any, run: str, count: int) -> None:
    """Memories maintenance has not looked at yet: its next run has each of them to go through."""
    now = datetime.now(UTC)
    with MemoryEngine(data, embedder=embedder) as engine:
        for n in range(count):
            engine.write(
                f"On day {n} of {run} I talked about {TOPICS[n % len(TOPICS)]} for {n % 13} minutes.",
                importance=0.1 + (n % 8) / 10,
                occurred_at=now - timedelta(days=40 + n % 500),
                gate=False,
            )


def env(data: Path) -> dict[str, str]:
    return env_for(data, HINDSIGHT_CONFIG_DIR=str(data.parent / "config"))


def verify(data: Path, acked: list[str]) -> None:
    """Every acknowledged id is stored; the file and its indexes are whole."""
    db = connect_existing(data / DB_FILE, flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {row[0] for row in db.execute("SELECT id FROM memories")}
    finally:
        db.close()
    missing = [i for i in acked if i not in stored]
    assert not missing, f"{len(missing)} acknowledged writes lost: {missing[:3]}"
    store = Store(data / DB_FILE)
    try:
        finding = check_indexes(store)
        assert finding.ok, finding.detail
    finally:
        store.close()


class StdioWriter:
    """`hindsight-desktop mcp` driven over its pipes: one memory_write in flight at all times."""

    def __init__(self, data: Path, run: str) -> None:
        self.run, self.acked, self.sent = run, [], 0
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hindsight_desktop", "mcp", "--in-process", "--client", "crash-test"],
            env=env(data),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._send(INIT)
        self._answer(0)
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self._write_next()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def _answer(self, request_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            message = json.loads(self.lines.get(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == request_id:
                return message
        raise TimeoutError(f"no answer to request {request_id}")

    def _write_next(self) -> None:
        self.sent += 1
        self._send(
            {
                "jsonrpc": "2.0",
                "id": self.sent,
                "method": "tools/call",
                "params": {"name": "memory_write", "arguments": {"content": note(self.run, self.sent)}},
            }
        )

    def acknowledge(self) -> None:
        """Wait for the write in flight, record its id, and send the next one at once."""
        self._record(self._answer(self.sent))

    def pump(self, seconds: float) -> None:
        """Keep writing for `seconds`: record each answer as it comes and send the next write."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = json.loads(self.lines.get(timeout=left))
            except queue.Empty:
                return
            if message.get("id") == self.sent:
                self._record(message)

    def _record(self, answer: dict[str, Any]) -> None:
        result = answer["result"]
        assert not result.get("isError"), result
        self.acked.append(result["structuredContent"]["id"])
        self._write_next()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def test_kill_the_stdio_server_in_the_middle_of_writes(store_dir: Path):
    rng = random.Random(11)
    for run in range(STDIO_KILLS):
        writer = StdioWriter(store_dir, f"s{run}")
        for _ in range(rng.randint(1, 5)):
            writer.acknowledge()
        time.sleep(rng.uniform(0, 0.05))  # the next write is in flight, at some point of its path
        writer.kill()
        verify(store_dir, writer.acked)


@pytest.fixture(scope="module")
def token(store_dir: Path) -> str:
    with token_env():
        registry = ClientRegistry.open(store_dir)
        token, _ = registry.add("crash-http")
        registry.close()
    return token


def _http_writes(url: str, token: str, run: str, acked: list[str], stop: threading.Event) -> None:
    async def loop() -> None:
        async with http_client(url, token) as client:
            n = 0
            while not stop.is_set():
                n += 1
                result = await client.call_tool("memory_write", {"content": note(run, n)})
                assert not result.is_error, result.content[0].text
                acked.append(result.structured_content["id"])

    with contextlib.suppress(BaseException):  # the server is killed under the client: any error is expected
        anyio.run(loop)


def test_kill_the_http_server_in_the_middle_of_writes(store_dir: Path, token: str):
    rng = random.Random(12)
    for run in range(HTTP_KILLS):
        server = ServeProcess(store_dir)
        acked: list[str] = []
        stop = threading.Event()
        writer = threading.Thread(target=_http_writes, args=(server.url, token, f"h{run}", acked, stop))
        writer.start()
        target = rng.randint(1, 5)
        deadline = time.monotonic() + 90
        while len(acked) < target and writer.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(acked) >= target, "the HTTP writer stopped before the kill"
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        stop.set()
        writer.join(timeout=60)
        assert not writer.is_alive()
        verify(store_dir, list(acked))


def _runs(data: Path, status: str | None = None) -> int:
    """The id of the newest maintenance run (with that status), 0 when none."""
    db = connect_existing(data / DB_FILE, flags=apsw.SQLITE_OPEN_READONLY)
    try:
        db.set_busy_timeout(5000)
        sql = "SELECT coalesce(max(id), 0) FROM maintenance_runs" + (" WHERE status = ?" if status else "")
        return int(db.execute(sql, (status,) if status else ()).fetchone()[0])
    finally:
        db.close()


@pytest.fixture
def maintenance_runs(store_dir: Path) -> Iterator[list[bool]]:
    """Whether each killed maintenance run was still in progress at the kill (reported, not asserted)."""
    mid_run: list[bool] = []
    yield mid_run
    print(f"\nmaintenance kills: {len(mid_run)}, {sum(mid_run)} of them while the run was in progress")


def test_kill_maintenance_and_a_writer_in_the_middle(store_dir: Path, embedder, maintenance_runs: list[bool]):
    rng = random.Random(13)
    for run in range(MAINTENANCE_KILLS):
        seed(store_dir, embedder, f"r{run}", FRESH_PER_RUN)
        writer = StdioWriter(store_dir, f"r{run}")
        writer.acknowledge()
        before = _runs(store_dir)
        maintenance = subprocess.Popen(
            [sys.executable, "-m", "hindsight_desktop", "maintenance"],
            env=env(store_dir),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 90
        while maintenance.poll() is None and _runs(store_dir, "running") <= before and time.monotonic() < deadline:
            writer.pump(0.02)  # writes keep landing while maintenance starts
        writer.pump(rng.uniform(0.02, 0.2))
        maintenance_runs.append(maintenance.poll() is None)
        maintenance.send_signal(signal.SIGKILL)
        writer.kill()
        maintenance.wait()
        verify(store_dir, writer.acked)
    # After all that, maintenance still runs to the end and leaves the indexes whole.
    done = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", "maintenance", "--json"],
        env=env(store_dir),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    # Not "skipped: another maintenance run is in progress": a killed run's lease does not outlive it.
    assert json.loads(done.stdout)["run"]["status"] == "done", done.stdout
    # The killed runs are recorded as failed, not left "running" for ever.
    assert _runs(store_dir, "running") == 0
    verify(store_dir, [])
