"""Load and speed of the MCP server, measured through real MCP clients. Prints numbers, asserts nothing.

    python bench/mcp_load.py            # 10,000 memories, 60 s of load
    python bench/mcp_load.py --quick    # 1,000 memories, 10 s of load
    python bench/mcp_load.py --load-only --memories 1000 --duration 30   # phase 4 alone, shorter
    python bench/mcp_load.py --quick --load-only --repeats 3 --variants auto,threads1,threads2

1. Seed N memories through the engine (a reused --data-dir that already holds them is not seeded again).
2. Start `hindsight-desktop serve` and time memory_search over HTTP, one client, at N memories.
3. Side by side: the same writes, then the same searches, against this server (HTTP and stdio) and the
   MCP reference memory server (@modelcontextprotocol/server-memory from npm, stdio) seeded with the
   same N texts; report each p50 and the ratio.
4. Load: 20 HTTP clients and 3 stdio processes on the same data dir write and search for the duration;
   then every acknowledged id is read back (a missing one is a lost write). Errors, lost writes,
   p50/p95 per operation and throughput. With `serve` running, each stdio process is a bridge to it
   (their RSS is printed to show it), so every call runs in the one server process. Before the load,
   the server's CPU time of one search and one write is measured alone (one client, calls in turn):
   the machine's limit is cores / that CPU time, and throughput under load is reported against it,
   with the p50s of HTTP and bridged stdio searches and their ratio (fairness).

Each load run starts a fresh server. `--variants` runs the server in several ways (llama.cpp's thread
count fixed, OpenMP's spin-waiting changed), `--repeats` runs each that many times, alternating the
variants so a change in the machine's load falls on all of them; the summary gives medians. On a
machine shared with others the numbers are noisy: compare variants within one alternated run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import NotFound
from hindsight_desktop.mcp.auth import ClientRegistry

REFERENCE = "@modelcontextprotocol/server-memory"
FIRST = [
    "Amara",
    "Bruno",
    "Chen",
    "Dana",
    "Elif",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Kaito",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zara",
    "Anke",
    "Bilal",
    "Carmen",
    "Dmitri",
    "Esme",
    "Felix",
    "Gita",
    "Hana",
    "Ivo",
    "Jana",
    "Kofi",
    "Lucia",
    "Malik",
    "Noor",
]
LAST = [
    "Abbott",
    "Barros",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Haddad",
    "Ivanova",
    "Jensen",
    "Kowalski",
    "Laine",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Petrov",
    "Quinn",
    "Rossi",
    "Santos",
    "Tanaka",
    "Ueda",
    "Varga",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhou",
    "Alvarez",
    "Brandt",
    "Castillo",
    "Dalton",
    "Ekström",
    "Fontaine",
    "Gupta",
    "Horvat",
    "Iqbal",
    "Jovanovic",
    "Kim",
    "Lindqvist",
    "Mensah",
    "Novak",
]
CITIES = [
    "Lisbon",
    "Toronto",
    "Osaka",
    "Nairobi",
    "Lyon",
    "Krakow",
    "Austin",
    "Hanoi",
    "Porto",
    "Bergen",
    "Quito",
    "Tbilisi",
    "Leeds",
    "Cork",
    "Perth",
    "Seville",
    "Utrecht",
    "Malmo",
    "Tartu",
    "Valencia",
]
TEMPLATES = (
    "{who} lives in {city} and works as a {thing}.",
    "{who} prefers {thing} for lunch on Fridays.",
    "{who}'s birthday is on {day} {month}.",
    "I am meeting {who} in {city} on {day} {month}.",
    "{who} taught me about {thing}.",
    "My neighbour {who} plays {thing} every weekend.",
    "{who} recommended the {thing} class in {city}.",
    "{who} and I are planning a trip to {city} in {month}.",
)
THINGS = [
    "nurse",
    "pilot",
    "ramen",
    "falafel",
    "chess",
    "tennis",
    "sourdough",
    "bake",
    "tango",
    "cello",
    "salad",
    "carpentry",
    "knit",
    "pho",
    "violin",
    "architect",
    "editor",
    "surfing",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def corpus(n: int, seed: int) -> list[tuple[str, str]]:
    """n distinct (text, person) pairs: every person/template pair at most once."""
    rng = random.Random(seed)
    pairs = [(f"{f} {last}", t) for f in FIRST for last in LAST for t in TEMPLATES]
    if n > len(pairs):
        raise SystemExit(f"at most {len(pairs)} distinct memories can be generated")
    rng.shuffle(pairs)
    out = []
    for who, template in pairs[:n]:
        out.append(
            (
                template.format(
                    who=who,
                    city=rng.choice(CITIES),
                    thing=rng.choice(THINGS),
                    day=rng.randint(1, 28),
                    month=rng.choice(MONTHS),
                ),
                who,
            )
        )
    return out


def booking(rng: random.Random, tag: str, i: int) -> str:
    """A text no seed contains (distinct numbers), so a write is never a repeat of an existing memory."""
    return (
        f"{rng.choice(FIRST)} {rng.choice(LAST)} from {tag} booked table {i} at {rng.choice(CITIES)} "
        f"restaurant number {rng.randint(100, 999_999)} for {rng.randint(2, 12)} people."
    )


def fresh_texts(tag: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [booking(rng, tag, i) for i in range(count)]


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] * 1000


def summary(values: list[float]) -> str:
    return f"p50 {pct(values, 0.5):7.1f} ms  p95 {pct(values, 0.95):7.1f} ms  (n={len(values)})"


# ---- servers and clients --------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# How the server runs: extra environment, and Python run in the server before it starts (the bench's way
# to fix llama.cpp's thread count or the interpreter's switch interval; neither is a product option).
FIX_THREADS = (
    "from hindsight_desktop.core.model import thread_choice\n"
    "thread_choice.ThreadChooser.choose = lambda self, waiting=0: {n}\n"
)
VARIANTS: dict[str, tuple[dict[str, str], str]] = {
    "auto": ({}, ""),
    "threads1": ({}, FIX_THREADS.format(n=1)),
    "threads2": ({}, FIX_THREADS.format(n=2)),
    "passive": ({"OMP_WAIT_POLICY": "PASSIVE"}, ""),  # ggml's threads sleep at once at each barrier
    "active": ({"OMP_WAIT_POLICY": "ACTIVE"}, ""),  # and spin for long (OpenMP's own default)
    "switch1ms": ({}, "import sys\nsys.setswitchinterval(0.001)\n"),
    "switch5ms": ({}, "import sys\nsys.setswitchinterval(0.005)\n"),  # CPython's default
}
LAUNCH = (
    "import runpy, sys\n"
    "sys.argv = ['hindsight-desktop', *sys.argv[1:]]\n"
    "runpy.run_module('hindsight_desktop', run_name='__main__')\n"
)


def start_server(data_dir: Path, env: dict[str, str], variant: str = "auto") -> tuple[subprocess.Popen, str]:
    port = free_port()
    extra, prelude = VARIANTS[variant]
    launcher = ["-c", prelude + LAUNCH] if prelude else ["-m", "hindsight_desktop"]
    proc = subprocess.Popen(
        [sys.executable, *launcher, "serve", "--port", str(port)],
        env={**env, **extra},
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: {proc.stderr.read() if proc.stderr else ''}")
        with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return proc, f"http://127.0.0.1:{port}/mcp"
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


@asynccontextmanager
async def http_client(url: str, token: str):
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        yield client


def stdio_params(data_dir: Path, env: dict[str, str], name: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "hindsight_desktop", "mcp", "--client", name],
        env={**env, "HINDSIGHT_DATA_DIR": str(data_dir)},
    )


async def timed(client: Client, tool: str, args: dict) -> tuple[float, object]:
    start = time.perf_counter()
    result = await client.call_tool(tool, args)
    return time.perf_counter() - start, result


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, every thread counted."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pids_running(fragment: str) -> list[int]:
    """Processes whose command line holds `fragment` (the stdio bridges of one client name)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with suppress(OSError):
                if fragment in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    found.append(int(entry.name))
    return [pid for pid in found if pid != os.getpid()]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, from /proc/stat (every process, others' too)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def cores() -> int:
    return len(os.sched_getaffinity(0))


# ---- phases ---------------------------------------------------------------------------------------------
def seed(data_dir: Path, texts: list[tuple[str, str]]) -> None:
    with MemoryEngine(data_dir) as engine:
        have = engine.stats()["memories"]
        if have >= len(texts):
            print(f"seed: {have} memories already in {data_dir}")
            return
        start = time.perf_counter()
        for i, (text, _) in enumerate(texts[have:], have + 1):
            engine.write(text, client="seed", gate=False)
            if i % 1000 == 0:
                print(f"seed: {i}/{len(texts)} ({time.perf_counter() - start:.0f} s)", flush=True)
        print(f"seed: {len(texts)} memories in {time.perf_counter() - start:.0f} s")


async def search_latency(url: str, token: str, queries: list[str]) -> list[float]:
    async with http_client(url, token) as client:
        await client.call_tool("memory_search", {"query": queries[0]})  # warm-up
        times = []
        for query in queries:
            took, result = await timed(client, "memory_search", {"query": query, "limit": 5})
            if result.is_error:
                raise SystemExit(f"search failed: {result.content[0].text}")
            times.append(took)
    return times


async def same_ops(client: Client, writes: list[str], queries: list[str], *, reference: bool) -> dict:
    out: dict[str, list[float]] = {"write": [], "search": []}
    for i, text in enumerate(writes):
        if reference:
            args = {"entities": [{"name": f"bench-{i}", "entityType": "memory", "observations": [text]}]}
            took, result = await timed(client, "create_entities", args)
        else:
            took, result = await timed(client, "memory_write", {"content": text})
        assert not result.is_error, result.content
        out["write"].append(took)
    for query in queries:
        took, result = await timed(client, "search_nodes" if reference else "memory_search", {"query": query})
        assert not result.is_error, result.content
        out["search"].append(took)
    return out


def install_reference(where: Path) -> Path | str:
    """The reference server's entry point, or the reason it could not be installed."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    done = subprocess.run(
        [npm, "install", "--prefix", str(where), "--no-audit", "--no-fund", REFERENCE],
        capture_output=True,
        text=True,
        timeout=600,
    )
    entry = where / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    if done.returncode != 0 or not entry.is_file():
        return f"npm install {REFERENCE} failed: {(done.stderr or done.stdout).strip()[-300:]}"
    return entry


def seed_reference(path: Path, texts: list[tuple[str, str]]) -> None:
    """The reference server's own JSONL format, written directly (as ours was seeded through its engine)."""
    lines = [
        json.dumps({"type": "entity", "name": f"seed-{i}", "entityType": "memory", "observations": [t]})
        for i, (t, _) in enumerate(texts)
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


async def side_by_side(
    url: str, token: str, data_dir: Path, env: dict[str, str], texts: list[tuple[str, str]], ops: int, work: Path
) -> dict:
    rng = random.Random(7)
    queries = [who for _, who in rng.sample(texts, ops)]  # a full name: both servers can answer it
    report: dict = {}
    async with http_client(url, token) as client:
        report["ours_http"] = await same_ops(client, fresh_texts("http", ops, 1), queries, reference=False)
    async with Client(stdio_params(data_dir, env, "bench-stdio"), mode="legacy") as client:
        report["ours_stdio"] = await same_ops(client, fresh_texts("stdio", ops, 2), queries, reference=False)
    entry = install_reference(work / "reference")
    if isinstance(entry, str):
        report["reference_skipped"] = entry
        return report
    graph = work / "reference-memory.jsonl"
    seed_reference(graph, texts)
    params = StdioServerParameters(
        command=shutil.which("node") or "node", args=[str(entry)], env={**os.environ, "MEMORY_FILE_PATH": str(graph)}
    )
    async with Client(params, mode="legacy") as client:
        report["reference_stdio"] = await same_ops(client, fresh_texts("ref", ops, 3), queries, reference=True)
    return report


class Tally:
    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.acked: list[str] = []

    def add(self, label: str, took: float, result: object, tool: str) -> None:
        self.times[label].append(took)
        if result.is_error:
            self.errors.append(f"{label}: {result.content[0].text[:200]}")
        elif tool == "memory_write":
            self.acked.append(result.structured_content["id"])


async def worker(client: Client, kind: str, tag: str, queries: list[str], end: float, tally: Tally) -> None:
    rng = random.Random(tag)
    i = 0
    while time.monotonic() < end:
        for tool, args in (
            ("memory_write", {"content": booking(rng, tag, i), "importance": 0.7}),
            ("memory_search", {"query": rng.choice(queries)}),
        ):
            try:
                took, result = await timed(client, tool, args)
            except Exception as exc:  # a transport failure counts as an error, and the worker goes on
                tally.errors.append(f"{kind} {tool}: {type(exc).__name__}: {exc}")
                continue
            tally.add(f"{kind} {tool.removeprefix('memory_')}", took, result, tool)
        i += 1


async def cpu_per_call(client: Client, tool: str, calls: list[dict], server: int, bridges: Sequence[int] = ()) -> dict:
    """Calls in turn from one client: their p50 wall time, and the CPU time the server (and the bridge
    processes, when given) spent per call."""
    before = cpu_seconds(server), sum(cpu_seconds(pid) for pid in bridges)
    times = []
    for args in calls:
        took, result = await timed(client, tool, args)
        if result.is_error:
            raise SystemExit(f"{tool} failed: {result.content[0].text}")
        times.append(took)
    await anyio.sleep(0.5)  # the access statistics of the last searches are written after the answer
    spent = cpu_seconds(server) - before[0], sum(cpu_seconds(pid) for pid in bridges) - before[1]
    return {
        "cpu_ms": spent[0] / len(calls) * 1000,
        "bridge_cpu_ms": spent[1] / len(calls) * 1000,
        "p50_ms": pct(times, 0.5),
    }


async def alone(url: str, token: str, data_dir: Path, env: dict[str, str], server: int, queries: list[str]) -> dict:
    """What one search and one write cost the server with nothing else running, over HTTP and bridged stdio.
    Each transport gets its own questions (a question asked again costs less: its pages are in memory)."""
    half = len(queries) // 2
    out: dict = {}
    async with (
        http_client(url, token) as http,
        Client(stdio_params(data_dir, env, "alone-stdio"), mode="legacy") as stdio,
    ):
        for client in (http, stdio):
            await cpu_per_call(client, "memory_search", [{"query": "warm up"}] * 3, server)
        bridges = pids_running("--client alone-stdio")
        out["http_search"] = await cpu_per_call(
            http, "memory_search", [{"query": q, "limit": 5} for q in queries[:half]], server
        )
        out["stdio_search"] = await cpu_per_call(
            stdio, "memory_search", [{"query": q, "limit": 5} for q in queries[half:]], server, bridges
        )
        writes = [{"content": t, "importance": 0.7} for t in fresh_texts("alone", half, 9)]
        out["http_write"] = await cpu_per_call(http, "memory_write", writes, server)
    return out


async def load(
    url: str,
    tokens: dict[str, str],
    data_dir: Path,
    env: dict[str, str],
    stdio: int,
    duration: float,
    queries: list[str],
    server: int,
) -> tuple[Tally, dict]:
    tally = Tally()
    seen: dict = {}
    async with AsyncExitStack() as stack:
        clients = [
            ("http", name, await stack.enter_async_context(http_client(url, token))) for name, token in tokens.items()
        ]
        for i in range(stdio):  # with the server running, each is a bridge to it (no model of its own)
            client = Client(stdio_params(data_dir, env, f"load-stdio-{i}"), mode="legacy")
            clients.append(("stdio", f"load-stdio-{i}", await stack.enter_async_context(client)))
        bridges = [pid for i in range(stdio) for pid in pids_running(f"load-stdio-{i} ")]
        seen["bridge_rss_mb"] = [round(rss_mb(pid), 1) for pid in bridges]
        seen["loadavg_before"] = os.getloadavg()[0]
        server_before, me_before = cpu_seconds(server), time.process_time()
        bridges_before = sum(cpu_seconds(pid) for pid in bridges)
        busy_before, all_before = machine_busy()
        end = time.monotonic() + duration
        async with anyio.create_task_group() as tg:
            for kind, name, client in clients:
                tg.start_soon(worker, client, kind, name, queries, end, tally)
        busy, every = machine_busy()
        seen["server_cpu_s"] = cpu_seconds(server) - server_before
        seen["clients_cpu_s"] = time.process_time() - me_before  # this process: the 20 HTTP clients' side
        seen["bridges_cpu_s"] = sum(cpu_seconds(pid) for pid in bridges) - bridges_before
        seen["machine_busy_share"] = (busy - busy_before) / (every - all_before)
        seen["server_rss_mb"] = round(rss_mb(server), 1)
    return tally, seen


def judge(tally: Tally, seen: dict, costs: dict, duration: float, clients: dict[str, int]) -> dict:
    """Throughput against the machine's limit, and fairness between HTTP and bridged stdio (`clients`:
    how many of each kind)."""
    n = cores()
    per_client = {
        kind: sum(len(v) for k, v in tally.times.items() if k.startswith(kind)) / duration / count
        for kind, count in clients.items()
        if count
    }
    searches = len(tally.times["http search"]) + len(tally.times["stdio search"])
    calls = sum(len(v) for v in tally.times.values())
    search_cpu = costs["http_search"]["cpu_ms"] / 1000
    mix_cpu = (search_cpu + costs["http_write"]["cpu_ms"] / 1000) / 2  # each worker writes, then searches
    http_p50, stdio_p50 = pct(tally.times["http search"], 0.5), pct(tally.times["stdio search"], 0.5)
    return {
        "cores": n,
        "search_cpu_ms_alone": round(search_cpu * 1000, 1),
        "write_cpu_ms_alone": round(costs["http_write"]["cpu_ms"], 1),
        "limit_searches_per_s": round(n / search_cpu, 1),
        "limit_calls_per_s": round(n / mix_cpu, 1),
        "searches_per_s": round(searches / duration, 1),
        "calls_per_s": round(calls / duration, 1),
        "share_of_limit": round(calls / duration / (n / mix_cpu), 3),
        # The CPU the calls would have cost one at a time, over what the server spent: near 1, the server
        # wastes nothing under load (no spinning, no lock convoy), and throughput is bound by its CPU share.
        "cpu_efficiency": round(calls * mix_cpu / seen["server_cpu_s"], 2) if seen["server_cpu_s"] else None,
        "server_cpu_share": round(seen["server_cpu_s"] / duration / n, 3),
        "clients_cpu_share": round(seen["clients_cpu_s"] / duration / n, 3),
        "bridges_cpu_share": round(seen["bridges_cpu_s"] / duration / n, 3),
        "machine_busy_share": round(seen["machine_busy_share"], 3),
        "http_search_p50_ms": round(http_p50, 1),
        "stdio_search_p50_ms": round(stdio_p50, 1),
        "http_over_stdio": round(http_p50 / stdio_p50, 2) if stdio_p50 == stdio_p50 and stdio_p50 else None,
        # Closed-loop clients: calls each one completed per second, by transport (a fairer view than
        # p50s when the stdio sample is a few calls).
        "calls_per_client_s": {kind: round(v, 2) for kind, v in per_client.items()},
        "errors": len(tally.errors),
        "acknowledged_writes": len(tally.acked),
        "loadavg_before": round(seen["loadavg_before"], 2),
        "bridge_rss_mb": seen["bridge_rss_mb"],
        "server_rss_mb": seen["server_rss_mb"],
    }


def lost_writes(data_dir: Path, ids: list[str]) -> int:
    with MemoryEngine(data_dir) as engine:
        missing = 0
        for memory_id in ids:
            try:
                engine.get(memory_id)
            except NotFound:  # acknowledged, but not there
                missing += 1
        return missing


def latency_and_side_by_side(
    url: str,
    token: str,
    data_dir: Path,
    env: dict[str, str],
    texts: list[tuple[str, str]],
    ops: int,
    work: Path,
    numbers: dict,
) -> None:
    """Phases 2 and 3: one client's search latency, then ours beside the reference server."""
    n = len(texts)
    questions = [f"Where does {who} live?" for _, who in random.Random(3).sample(texts, ops)]
    took = anyio.run(search_latency, url, token, questions)
    print(f"\nmemory_search over HTTP at {n} memories, one client: {summary(took)}")
    numbers["search_http_p50_ms"] = pct(took, 0.5)

    sbs = anyio.run(side_by_side, url, token, data_dir, env, texts, ops, work)
    print(f"\nSide by side, {ops} writes then {ops} searches, seeded with the same {n} texts:")
    for name in ("ours_http", "ours_stdio", "reference_stdio"):
        if name in sbs:
            for op in ("write", "search"):
                print(f"  {name:16s} {op:6s} {summary(sbs[name][op])}")
    if "reference_skipped" in sbs:
        print(f"  reference server not measured: {sbs['reference_skipped']}")
    else:
        for ours in ("ours_http", "ours_stdio"):
            for op in ("write", "search"):
                ratio = pct(sbs[ours][op], 0.5) / pct(sbs["reference_stdio"][op], 0.5)
                numbers[f"{ours}_{op}_p50_vs_reference"] = round(ratio, 3)
                print(f"  {ours} {op} p50 / reference p50 = {ratio:.2f}")
    numbers["side_by_side_p50_ms"] = {
        k: {op: pct(v, 0.5) for op, v in sbs[k].items()} for k in sbs if k != "reference_skipped"
    }


# ---- main -----------------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1,000 memories, 10 s of load, 50 operations")
    parser.add_argument("--memories", type=int, help="memories to seed (default 10,000)")
    parser.add_argument("--duration", type=float, help="seconds of load (default 60)")
    parser.add_argument("--clients", type=int, default=20, help="concurrent HTTP clients")
    parser.add_argument("--stdio", type=int, default=3, help="concurrent stdio processes")
    parser.add_argument("--ops", type=int, help="writes and searches per side-by-side run (default 200)")
    parser.add_argument("--data-dir", type=Path, help="reuse a data dir (kept); default a temporary one")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--repeats", type=int, default=1, help="load runs per variant, alternated (default 1)")
    parser.add_argument(
        "--variants",
        default="auto",
        help=f"comma-separated server variants among {', '.join(VARIANTS)} (default auto: as shipped)",
    )
    parser.add_argument(
        "--load-only",
        action="store_true",
        help="skip phases 2 and 3 (one-client latency, side by side): the load alone",
    )
    args = parser.parse_args()
    n = args.memories or (1000 if args.quick else 10_000)
    duration = args.duration or (10.0 if args.quick else 60.0)
    ops = args.ops or (50 if args.quick else 200)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or not variants:
        raise SystemExit(f"unknown variant {unknown}; choose among {', '.join(VARIANTS)}")

    work = Path(tempfile.mkdtemp(prefix="hsd-mcp-bench-"))
    data_dir = args.data_dir or work / "data"
    # Tokens go to the 0600 file in the data dir, never into the keyring of whoever runs the benchmark.
    env = {**os.environ, "HINDSIGHT_DATA_DIR": str(data_dir), "HINDSIGHT_TOKEN_STORE": "file"}
    os.environ.update({"HINDSIGHT_DATA_DIR": str(data_dir), "HINDSIGHT_TOKEN_STORE": "file"})
    texts = corpus(n, seed=1)
    seed(data_dir, texts)
    registry = ClientRegistry.open(data_dir)
    tokens = {f"load-{i:02d}": registry.add(f"load-{i:02d}", rotate=True)[0] for i in range(args.clients)}
    bench_token = registry.add("bench", rotate=True)[0]
    registry.close()

    names = [who for _, who in texts]
    alone_queries = [f"Where does {who} live?" for _, who in random.Random(5).sample(texts, min(ops, 60))]
    numbers: dict = {"memories": n, "duration_s": duration, "runs": []}
    acked: list[str] = []
    order = [v for r in range(args.repeats) for v in (variants if r % 2 == 0 else variants[::-1])]
    for i, variant in enumerate(order):
        proc, url = start_server(data_dir, env, variant)
        try:
            if i == 0 and not args.load_only:
                latency_and_side_by_side(url, bench_token, data_dir, env, texts, ops, work, numbers)
            costs = anyio.run(alone, url, bench_token, data_dir, env, proc.pid, alone_queries)
            print(
                f"\nLoad {i + 1}/{len(order)} ({variant}): {args.clients} HTTP clients + {args.stdio} stdio for "
                f"{duration:.0f} s ...",
                flush=True,
            )
            tally, seen = anyio.run(load, url, tokens, data_dir, env, args.stdio, duration, names, proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        acked += tally.acked
        run = {
            "variant": variant,
            **judge(tally, seen, costs, duration, {"http": args.clients, "stdio": args.stdio}),
            "alone": costs,
        }
        run["p50_ms"] = {k: round(pct(v, 0.5), 1) for k, v in tally.times.items()}
        run["p95_ms"] = {k: round(pct(v, 0.95), 1) for k, v in tally.times.items()}
        numbers["runs"].append(run)
        for label in sorted(tally.times):
            print(f"  {label:14s} {summary(tally.times[label])}")
        print(
            f"  alone: search {run['search_cpu_ms_alone']} ms CPU over HTTP, "
            f"{costs['stdio_search']['cpu_ms']:.1f} bridged (HTTP p50 {costs['http_search']['p50_ms']:.1f} ms, "
            f"bridged stdio p50 {costs['stdio_search']['p50_ms']:.1f} ms, the bridge's own CPU "
            f"{costs['stdio_search']['bridge_cpu_ms']:.1f} ms), write {run['write_cpu_ms_alone']} ms CPU\n"
            f"  {run['calls_per_s']} calls/s of a limit of {run['limit_calls_per_s']} ({run['cores']} cores / CPU per "
            f"call alone) = {run['share_of_limit']:.0%}; searches {run['searches_per_s']}/s of "
            f"{run['limit_searches_per_s']}; CPU of the cores: server {run['server_cpu_share']:.0%}, the load's "
            f"clients {run['clients_cpu_share']:.0%}, bridges {run['bridges_cpu_share']:.0%}, whole machine "
            f"{run['machine_busy_share']:.0%}; CPU efficiency (a call's CPU alone / under load) "
            f"{run['cpu_efficiency']}\n"
            f"  search p50 HTTP {run['http_search_p50_ms']} ms, bridged stdio {run['stdio_search_p50_ms']} ms: "
            f"ratio {run['http_over_stdio']}; calls per client per s {run['calls_per_client_s']}; "
            f"{run['errors']} errors; bridges' RSS {run['bridge_rss_mb']} MB, "
            f"server {run['server_rss_mb']} MB; load average before {run['loadavg_before']}"
        )
        for error in tally.errors[:5]:
            print(f"  error: {error}")
    lost = lost_writes(data_dir, acked)
    numbers["lost_writes"] = lost
    numbers["medians"] = medians(numbers["runs"])
    print(f"\n{len(acked)} acknowledged writes in all, {lost} lost.")
    print("Medians per variant (runs alternated; the machine is shared, so compare variants, not absolutes):")
    for variant, m in numbers["medians"].items():
        print(f"  {variant:9s} " + "  ".join(f"{k} {v}" for k, v in m.items()))
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2))
    shutil.rmtree(work, ignore_errors=True)  # a --data-dir given lies outside it and is kept
    if "search_http_p50_ms" in numbers:
        print(
            f"\nTarget: memory_search p50 <= 40 ms at 10,000 memories over HTTP; measured "
            f"{numbers['search_http_p50_ms']:.1f} ms at {n}."
        )
    print("Target under load: HTTP and bridged stdio search p50s within 2x of each other, 0 errors, 0 lost writes.")


MEDIAN_KEYS = (
    "calls_per_s",
    "share_of_limit",
    "cpu_efficiency",
    "searches_per_s",
    "server_cpu_share",
    "clients_cpu_share",
    "machine_busy_share",
    "search_cpu_ms_alone",
    "http_search_p50_ms",
    "stdio_search_p50_ms",
    "http_over_stdio",
    "errors",
)


def medians(runs: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for variant in dict.fromkeys(r["variant"] for r in runs):
        mine = [r for r in runs if r["variant"] == variant]
        out[variant] = {"runs": len(mine)} | {
            k: statistics.median(r[k] for r in mine) for k in MEDIAN_KEYS if all(r[k] is not None for r in mine)
        }
    return out


if __name__ == "__main__":
    main()
