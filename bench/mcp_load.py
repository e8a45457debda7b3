"""Load and speed of the MCP server, measured through real MCP clients. Prints numbers, asserts nothing.

    python bench/mcp_load.py            # 10,000 memories, 60 s of load
    python bench/mcp_load.py --quick    # 1,000 memories, 10 s of load
    python bench/mcp_load.py --load-only --memories 1000 --duration 30   # phase 4 alone, shorter

1. Seed N memories through the engine (a reused --data-dir that already holds them is not seeded again).
2. Start `hindsight-desktop serve` and time memory_search over HTTP, one client, at N memories.
3. Side by side: the same writes, then the same searches, against this server (HTTP and stdio) and the
   MCP reference memory server (@modelcontextprotocol/server-memory from npm, stdio) seeded with the
   same N texts; report each p50 and the ratio.
4. Load: 20 HTTP clients and 3 stdio processes on the same data dir write and search for the duration;
   then every acknowledged id is read back (a missing one is a lost write). Errors, lost writes,
   p50/p95 per operation and throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
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


def start_server(data_dir: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hindsight_desktop", "serve", "--port", str(port)],
        env=env,
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


async def load(
    url: str,
    tokens: dict[str, str],
    data_dir: Path,
    env: dict[str, str],
    stdio: int,
    duration: float,
    queries: list[str],
) -> Tally:
    tally = Tally()
    async with AsyncExitStack() as stack:
        clients = [
            ("http", name, await stack.enter_async_context(http_client(url, token))) for name, token in tokens.items()
        ]
        for i in range(stdio):  # each stdio process loads its own model before the clock starts
            client = Client(stdio_params(data_dir, env, f"load-stdio-{i}"), mode="legacy")
            clients.append(("stdio", f"load-stdio-{i}", await stack.enter_async_context(client)))
        end = time.monotonic() + duration
        async with anyio.create_task_group() as tg:
            for kind, name, client in clients:
                tg.start_soon(worker, client, kind, name, queries, end, tally)
    return tally


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
    parser.add_argument(
        "--load-only",
        action="store_true",
        help="skip phases 2 and 3 (one-client latency, side by side): the load alone",
    )
    args = parser.parse_args()
    n = args.memories or (1000 if args.quick else 10_000)
    duration = args.duration or (10.0 if args.quick else 60.0)
    ops = args.ops or (50 if args.quick else 200)

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

    proc, url = start_server(data_dir, env)
    numbers: dict = {"memories": n, "duration_s": duration}
    try:
        if not args.load_only:
            latency_and_side_by_side(url, bench_token, data_dir, env, texts, ops, work, numbers)
        print(f"\nLoad: {args.clients} HTTP clients + {args.stdio} stdio processes for {duration:.0f} s ...")
        names = [who for _, who in texts]
        tally = anyio.run(load, url, tokens, data_dir, env, args.stdio, duration, names)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    lost = lost_writes(data_dir, tally.acked)
    for label in sorted(tally.times):
        print(f"  {label:14s} {summary(tally.times[label])}")
    calls = sum(len(v) for v in tally.times.values())
    print(
        f"  {calls} calls ({calls / duration:.0f}/s), {len(tally.acked)} acknowledged writes, "
        f"{len(tally.errors)} errors, {lost} lost writes"
    )
    for error in tally.errors[:5]:
        print(f"  error: {error}")
    numbers.update(
        {
            "load_calls": calls,
            "load_errors": len(tally.errors),
            "lost_writes": lost,
            "acknowledged_writes": len(tally.acked),
            "load_p50_ms": {k: pct(v, 0.5) for k, v in tally.times.items()},
            "load_p95_ms": {k: pct(v, 0.95) for k, v in tally.times.items()},
        }
    )
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2))
    if args.data_dir is None:
        shutil.rmtree(work, ignore_errors=True)
    else:
        shutil.rmtree(work / "reference", ignore_errors=True)
    if "search_http_p50_ms" in numbers:
        print(
            f"\nTarget: memory_search p50 <= 40 ms at 10,000 memories over HTTP; measured "
            f"{numbers['search_http_p50_ms']:.1f} ms at {n}."
        )
    print(
        "Target under load: HTTP search p50 <= 150 ms, twice the throughput of one shared connection "
        "(51 calls/s measured before per-thread reads), 0 errors, 0 lost writes."
    )


if __name__ == "__main__":
    main()
