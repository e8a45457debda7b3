"""What stdio clients cost: memory, start-up and search latency, through real MCP SDK stdio clients.

    python bench/stdio_clients.py                      # 1,000 memories, 3 runs of each
    python bench/stdio_clients.py --runs 5 --searches 100
    python bench/stdio_clients.py --in-process --clients 1   # this version without the bridge

Run it from an older checkout's root with PYTHONPATH pointing there to get that version's figures: it
only spawns `python -m hindsight_desktop mcp|serve` and counts processes, whatever `mcp` does inside.

1. Nothing running: spawn one client; time spawn -> `initialize` answered and -> first search; the RSS of
   every process the client caused (its `mcp` process, and a background server it started).
2. `serve` running on the same folder: 1, 3 and 5 clients at once; each one's start-up times; the RSS
   of the server plus all of them; one client's RSS alone; search p50 over one client.
Medians over the runs. Prints numbers, asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).parent))
from mcp_load import corpus, seed  # noqa: E402  (the load bench's seeded corpus: same texts, same queries)

ENV = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "HINDSIGHT_TOKEN_STORE": "file"}


def rss_mb(pid: int) -> float:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def processes_of(data_dir: Path) -> dict[int, str]:
    """Every hindsight_desktop process on this folder: pid -> its role ('mcp', 'shared', 'serve')."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            if b"hindsight_desktop" not in cmd:
                continue
            if f"HINDSIGHT_DATA_DIR={data_dir}".encode() not in (proc / "environ").read_bytes().split(b"\0"):
                continue
            role = "shared" if b"--shared-server" in cmd else "serve" if b"serve" in cmd else "mcp"
            found[int(proc.name)] = role
    return found


def stop_servers(data_dir: Path) -> None:
    for pid, role in processes_of(data_dir).items():
        if role in ("shared", "serve"):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    while processes_of(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)


MCP_ARGS: list[str] = []  # --in-process: the same code serving each client in its own process


def params(data_dir: Path, env: dict[str, str], name: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "hindsight_desktop", "mcp", "--client", name, *MCP_ARGS],
        env={**env, "HINDSIGHT_DATA_DIR": str(data_dir)},
    )


async def open_clients(
    stack: AsyncExitStack, data_dir: Path, env: dict[str, str], n: int, query: str
) -> list[tuple[Client, float, float]]:
    """n clients, started one after another: (client, s to initialize, s to first search answered)."""
    out = []
    for i in range(n):
        start = time.perf_counter()
        client = await stack.enter_async_context(Client(params(data_dir, env, f"bench-{i}"), mode="legacy"))
        ready = time.perf_counter() - start
        result = await client.call_tool("memory_search", {"query": query, "limit": 5})
        if result.is_error:
            raise SystemExit(f"search failed: {result.content[0].text}")
        out.append((client, ready, time.perf_counter() - start))
    return out


async def search_p50(client: Client, queries: list[str]) -> float:
    times = []
    for query in queries:
        start = time.perf_counter()
        result = await client.call_tool("memory_search", {"query": query, "limit": 5})
        times.append(time.perf_counter() - start)
        if result.is_error:
            raise SystemExit(f"search failed: {result.content[0].text}")
    return statistics.median(times)


def memory(data_dir: Path) -> dict[str, float]:
    roles = processes_of(data_dir)
    by_role: dict[str, list[float]] = {}
    for pid, role in roles.items():
        by_role.setdefault(role, []).append(rss_mb(pid))
    clients = by_role.get("mcp", [])
    return {
        "total": sum(sum(v) for v in by_role.values()),
        "server": sum(by_role.get("serve", []) + by_role.get("shared", [])),
        "clients": sum(clients),
        "one_client": statistics.median(clients) if clients else 0.0,
    }


async def cold(data_dir: Path, env: dict[str, str], query: str) -> dict[str, float]:
    stop_servers(data_dir)
    async with AsyncExitStack() as stack:
        [(client, ready, first)] = await open_clients(stack, data_dir, env, 1, query)
        mem = memory(data_dir)
    return {"init": ready, "first_search": first, **mem}


async def with_server(data_dir: Path, env: dict[str, str], n: int, queries: list[str]) -> dict[str, float]:
    async with AsyncExitStack() as stack:
        opened = await open_clients(stack, data_dir, env, n, queries[0])
        mem = memory(data_dir)
        p50 = await search_p50(opened[0][0], queries)
    return {
        "init": statistics.median(o[1] for o in opened),
        "first_search": statistics.median(o[2] for o in opened),
        "search_p50": p50,
        **mem,
    }


def start_serve(data_dir: Path, env: dict[str, str]) -> subprocess.Popen:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "hindsight_desktop", "serve", "--no-auth", "--port", str(port)],
        env={**env, "HINDSIGHT_DATA_DIR": str(data_dir)},
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            time.sleep(3)  # the model and the listener for bridges are up a moment after HTTP
            return proc
        time.sleep(0.2)
    raise SystemExit("serve did not start")


def median_of(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in rows) for key in rows[0]}


def show(label: str, row: dict[str, float]) -> None:
    parts = [
        f"{k} {v * 1000:.0f} ms" if k in ("init", "first_search", "search_p50") else f"{k} {v:.0f} MB"
        for k, v in row.items()
    ]
    print(f"{label:<24} " + ", ".join(parts), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--searches", type=int, default=50)
    parser.add_argument("--data-dir", type=Path, help="a folder to seed (kept); default: a fresh temporary one")
    parser.add_argument("--clients", default="1,3,5", help="how many clients at once beside serve (default 1,3,5)")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="start each client as `mcp --in-process` (this version's own engine per client)",
    )
    args = parser.parse_args()
    if args.in_process:
        MCP_ARGS.append("--in-process")
    work = Path(tempfile.mkdtemp(prefix="stdio-bench-"))
    data_dir = (args.data_dir or work / "data").resolve()
    # One environment for this process (it seeds) and every child: the same key store, runtime folder.
    os.environ.update({**ENV, "HINDSIGHT_RUNTIME_DIR": str(work / "run"), "HINDSIGHT_IDLE_EXIT": "30"})
    env = dict(os.environ)
    texts = corpus(args.memories, seed=1)
    seed(data_dir, texts)
    rng = random.Random(5)
    queries = [who for _, who in rng.sample(texts, args.searches)]
    try:
        show("nothing running, 1", median_of([anyio.run(cold, data_dir, env, queries[0]) for _ in range(args.runs)]))
        stop_servers(data_dir)
        serve = start_serve(data_dir, env)
        try:
            print(f"{'serve alone':<24} server {rss_mb(serve.pid):.0f} MB", flush=True)
            for n in (int(c) for c in args.clients.split(",")):
                show(
                    f"serve running, {n}",
                    median_of([anyio.run(with_server, data_dir, env, n, queries) for _ in range(args.runs)]),
                )
        finally:
            serve.terminate()
            serve.wait(timeout=30)
    finally:
        stop_servers(data_dir)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
