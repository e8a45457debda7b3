"""stdio clients share one server per data folder: `mcp` bridges to `serve` (or to the shared background
server it starts), stays light, survives the server going away, and loses no write silently."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from support.mcp import INIT_BODY, ServeProcess, call, env_for, prepare_data_dir

from hindsight_desktop.mcp import bridge, runtime

HEAVY = ("numpy", "llama", "PySide6", "Qt6", "libggml")


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "run"
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(path))
    yield path
    for endpoint_file in path.glob("server-*.json"):  # no shared server outlives its test
        with contextlib.suppress(ValueError, OSError):
            os.kill(json.loads(endpoint_file.read_text())["pid"], signal.SIGKILL)


def folder(tmp_path: Path, model_dir: Path, name: str) -> Path:
    return prepare_data_dir(tmp_path / name, model_dir)


def env(data_dir: Path, run_dir: Path, **extra: str) -> dict[str, str]:
    return env_for(data_dir, **{"HINDSIGHT_RUNTIME_DIR": str(run_dir), "HINDSIGHT_IDLE_EXIT": "120", **extra})


def client(data_dir: Path, run_dir: Path, name: str, **extra: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "hindsight_desktop", "mcp", "--client", name],
        env=env(data_dir, run_dir, **extra),
    )
    return Client(params, mode="legacy")


def server_pid(data_dir: Path) -> int:
    endpoint = runtime.read_endpoint(data_dir)
    assert endpoint is not None, "no server publishes for this folder"
    return endpoint.pid


def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):  # a zombie has no command line left
        return bool(Path(f"/proc/{pid}/cmdline").read_bytes())
    return True


class RawBridge:
    """`hindsight-desktop mcp` as a subprocess spoken to line by line (its pid is known)."""

    def __init__(self, data_dir: Path, run_dir: Path, name: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hindsight_desktop", "mcp", "--client", name],
            env=env(data_dir, run_dir),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 120.0) -> dict:
        return json.loads(self.lines.get(timeout=timeout))

    def open(self) -> dict:
        self.send(INIT_BODY)
        first = self.answer()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return first

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def tool_call(message_id: int, name: str, **arguments) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": message_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def test_bridge_to_a_running_serve_is_light_and_acts_as_its_client(tmp_path, embedder, model_dir, run_dir):
    data_dir = folder(tmp_path, model_dir, "data")
    served = ServeProcess(data_dir, "--no-auth")
    try:
        wait_for(lambda: runtime.read_endpoint(data_dir) is not None)
        assert server_pid(data_dir) == served.proc.pid
        raw = RawBridge(data_dir, run_dir, "cursor")
        try:
            assert raw.open()["result"]["serverInfo"]["name"] == "hindsight-desktop"
            raw.send(tool_call(2, "memory_write", content="I keep my passport in the blue drawer."))
            written = raw.answer()["result"]["structuredContent"]
            maps = Path(f"/proc/{raw.proc.pid}/maps").read_text()
            assert not [lib for lib in HEAVY if lib in maps], "the bridge loaded a heavy library"
        finally:
            raw.close()

        async def scenario():
            async with client(data_dir, run_dir, "claude-code") as other:
                found = await call(other, "memory_search", query="where is my passport?")
                top = found["results"][0]
                assert (top["id"], top["client"]) == (written["id"], "cursor")

        anyio.run(scenario)
        assert server_pid(data_dir) == served.proc.pid  # nobody started a second server
    finally:
        served.stop()
    assert runtime.read_endpoint(data_dir) is None  # a server that stops withdraws its endpoint


def test_the_person_name_is_refused_and_a_wrong_secret_gets_nothing(tmp_path, embedder, model_dir, run_dir):
    data_dir = folder(tmp_path, model_dir, "data")
    proc = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", "mcp", "--client", "desktop"],
        env=env(data_dir, run_dir),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and "person" in proc.stderr
    served = ServeProcess(data_dir, "--no-auth")
    try:
        wait_for(lambda: runtime.read_endpoint(data_dir) is not None)
        endpoint = runtime.read_endpoint(data_dir)
        with (
            socket.create_connection(("127.0.0.1", endpoint.port), timeout=10) as sock,
            pytest.raises(bridge.BridgeRefused, match="secret"),
        ):
            bridge._hello(sock, "not-the-secret", "cursor")
        if os.name == "posix":
            assert runtime.endpoint_file(data_dir).stat().st_mode & 0o077 == 0
    finally:
        served.stop()


def test_the_bridge_takes_over_when_the_server_is_killed(tmp_path, embedder, model_dir, run_dir):
    data_dir = folder(tmp_path, model_dir, "data")
    served = ServeProcess(data_dir, "--no-auth")

    async def scenario():
        async with client(data_dir, run_dir, "claude-code") as c:
            written = await call(c, "memory_write", content="My sister Ana lives in Porto.")
            served.proc.kill()
            served.proc.wait()
            found = await call(c, "memory_search", query="where does my sister live?")  # a new server answers
            assert found["results"][0]["id"] == written["id"]
            again = await call(c, "memory_write", content="Ana's birthday is on 3 May.")
            assert again["id"] != written["id"]
            return server_pid(data_dir)

    try:
        wait_for(lambda: runtime.read_endpoint(data_dir) is not None)
        new_pid = anyio.run(scenario)
        assert new_pid != served.proc.pid and alive(new_pid)
    finally:
        served.stop()


def test_a_write_in_flight_when_the_server_dies_is_an_error_and_a_search_is_repeated(
    tmp_path, embedder, model_dir, run_dir
):
    data_dir = folder(tmp_path, model_dir, "data")
    served = ServeProcess(data_dir, "--no-auth")
    raw = None
    try:
        wait_for(lambda: runtime.read_endpoint(data_dir) is not None)
        raw = RawBridge(data_dir, run_dir, "cursor")
        raw.open()
        raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})  # the bridge learns which tools only read
        assert len(raw.answer()["result"]["tools"]) == 5
        os.kill(served.proc.pid, signal.SIGSTOP)  # both calls reach the socket; the server never answers
        raw.send(tool_call(3, "memory_write", content="The spare key is under the third flower pot."))
        raw.send(tool_call(4, "memory_search", query="spare key"))
        time.sleep(0.5)
        served.proc.kill()
        answers = {a["id"]: a for a in (raw.answer(), raw.answer())}
        assert (
            answers[3]["result"]["isError"]
            and "not known whether it took effect" in answers[3]["result"]["content"][0]["text"]
        )
        assert not answers[4]["result"].get("isError")  # repeated on the server that took over
        assert server_pid(data_dir) != served.proc.pid
    finally:
        if raw is not None:
            raw.close()
        served.stop()


def test_racing_clients_start_one_shared_server_and_two_folders_get_two(tmp_path, embedder, model_dir, run_dir):
    one, two = folder(tmp_path, model_dir, "one"), folder(tmp_path, model_dir, "two")

    async def scenario():
        async with client(one, run_dir, "a") as a, client(one, run_dir, "b") as b, client(two, run_dir, "c") as c:
            await call(a, "memory_write", content="The team offsite is in Lisbon in June.")
            found = await call(b, "memory_search", query="where is the offsite?")
            assert found["results"] and found["results"][0]["client"] == "a"
            elsewhere = await call(c, "memory_search", query="where is the offsite?")
            assert elsewhere["results"] == []
            return server_pid(one), server_pid(two)

    first, second = anyio.run(scenario)
    assert first != second and alive(first) and alive(second)
    servers = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _is_shared_server(p)]
    assert sorted(int(p.name) for p in servers) == sorted([first, second])


def _is_shared_server(proc: Path) -> bool:
    with contextlib.suppress(OSError):
        return (
            b"--shared-server" in (proc / "cmdline").read_bytes()
            and str(runtime.runtime_dir()).encode() in (proc / "environ").read_bytes()
        )
    return False


def test_a_shared_server_exits_when_idle(tmp_path, embedder, model_dir, run_dir):
    data_dir = folder(tmp_path, model_dir, "data")

    async def scenario():
        async with client(data_dir, run_dir, "a", HINDSIGHT_IDLE_EXIT="1") as a:
            await call(a, "memory_write", content="I water the plants on Sundays.")
            return server_pid(data_dir)

    pid = anyio.run(scenario)
    wait_for(lambda: not alive(pid))
    assert runtime.read_endpoint(data_dir) is None


def test_serve_takes_the_folder_over_from_a_shared_server(tmp_path, embedder, model_dir, run_dir):
    data_dir = folder(tmp_path, model_dir, "data")

    async def scenario():
        async with client(data_dir, run_dir, "claude-code") as c:
            written = await call(c, "memory_write", content="The boiler service is due in October.")
            shared = server_pid(data_dir)
            served = ServeProcess(data_dir, "--no-auth")  # arrives after the stdio client started a server
            try:
                wait_for(
                    lambda: runtime.read_endpoint(data_dir) is not None and server_pid(data_dir) == served.proc.pid
                )
                wait_for(lambda: not alive(shared))  # one engine for the folder again
                found = await call(c, "memory_search", query="when is the boiler service?")
                assert found["results"][0]["id"] == written["id"]
            finally:
                served.stop()

    anyio.run(scenario)


def test_stdio_clients_bridge_to_the_running_app(qtbot, app_paths, embedder, token_store, run_dir):
    from support.app import start_shell
    from support.mcp import free_port

    from hindsight_desktop.config import Settings

    shell = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=free_port()))
    try:
        data_dir = app_paths.data_dir
        assert server_pid(data_dir) == os.getpid()  # the app itself serves the bridges

        async def scenario():
            async with client(data_dir, run_dir, "cursor") as c:
                return await call(c, "memory_write", content="I take the 7:40 train on weekdays.")

        written = anyio.run(scenario)
        assert shell.backend.engine.get(written["id"]).client == "cursor"  # the app's own engine wrote it
        assert server_pid(data_dir) == os.getpid()
        window = shell.open_timeline()
        qtbot.waitUntil(lambda: written["id"] in {m.id for m in window.timeline.memories()}, timeout=20_000)
    finally:
        shell.shutdown()
    assert runtime.read_endpoint(app_paths.data_dir) is None
