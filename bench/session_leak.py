"""Does the HTTP server's memory stay flat when clients open sessions and abandon them? Prints numbers.

    python bench/session_leak.py                  # 10,000 sessions, the shipped session limits
    python bench/session_leak.py --sessions 2000 --unbounded   # the same without a per-client cap

A server process (HttpServer on 127.0.0.1 over a fresh data dir, as the tray app runs it) is started;
one client opens N sessions with a raw `initialize` each and never closes them. The server's resident
memory (VmRSS, from /proc) is printed before, every 1,000 sessions, and after, with the number of open
sessions the server holds. `--unbounded` lifts the per-client cap (the SDK's own global cap of 10,000
and its 30-minute idle timeout still apply), which is how the server behaved before the cap.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "leak", "version": "1"}},
}


def serve(data_dir: str, port: int, unbounded: bool) -> None:
    """The server side (run in its own process): print the token, then serve until killed."""
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.mcp.auth import ClientRegistry
    from hindsight_desktop.mcp.http_server import HttpServer
    from hindsight_desktop.mcp.sessions import SessionLimits

    engine = MemoryEngine(Path(data_dir))
    registry = ClientRegistry.open(Path(data_dir))
    token, _ = registry.add("leaky")
    limits = SessionLimits(per_client=100_000, total=100_000) if unbounded else SessionLimits()
    server = HttpServer(engine, port, registry, limits).start()
    print(json.dumps({"token": token, "url": server.url}), flush=True)
    for line in sys.stdin:  # "count" asks how many sessions are open; end of input stops
        if line.strip() == "count":
            print(server.sessions, flush=True)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--unbounded", action="store_true", help="no per-client session cap (the old behaviour)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        env_hint = {"HINDSIGHT_TOKEN_STORE": "file", "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
        proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", data_dir, str(port)] + (["--unbounded"] if args.unbounded else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, **env_hint},
        )
        try:
            assert proc.stdout is not None and proc.stdin is not None
            hello = json.loads(proc.stdout.readline())
            headers = {
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "authorization": f"Bearer {hello['token']}",
            }

            def open_count() -> int:
                proc.stdin.write("count\n")
                proc.stdin.flush()
                return int(proc.stdout.readline())

            limits = "no per-client cap" if args.unbounded else "shipped limits"
            print(f"sessions  server RSS MiB  open sessions   ({limits})")
            with httpx2.Client(timeout=30) as http:
                http.post(hello["url"], content=json.dumps(INIT), headers=headers)  # warm: first request
                print(f"{0:8d}  {rss_mib(proc.pid):14.1f}  {open_count():13d}")
                started = time.perf_counter()
                for n in range(1, args.sessions + 1):
                    answer = http.post(hello["url"], content=json.dumps(INIT), headers=headers)
                    if answer.status_code != 200:
                        print(f"session {n}: HTTP {answer.status_code} {answer.text[:200]}")
                        break
                    if n % 1000 == 0 or n == args.sessions:
                        print(f"{n:8d}  {rss_mib(proc.pid):14.1f}  {open_count():13d}")
                took = time.perf_counter() - started
            print(f"{args.sessions} sessions opened and abandoned in {took:.1f} s ({args.sessions / took:.0f}/s)")
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]), "--unbounded" in sys.argv)
    else:
        main()
