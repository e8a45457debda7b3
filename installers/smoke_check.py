"""Check a built one-folder app the way a person meets it, and print what it costs.

Run by `installers/smoke_test.sh` with the development venv's Python (it needs the `mcp` SDK, and
PyInstaller to read the bundle's module archive). Everything runs on temporary data and config
folders and free loopback ports; nothing touches the person's own memory.

    python installers/smoke_check.py --app DIR [--tarball FILE] [--package DIR] [--chroot IMAGE]

With --chroot, everything the app runs runs inside that system image (installers/smoke_minimal_image.sh
makes a minimal Debian one); this client stays outside and reaches the app over loopback and stdio. The
app's folders must then have the same paths inside the image (the script mounts them there).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bundle_data import APP_NAME, FORBIDDEN  # noqa: E402

TOKEN_ENV = {"HINDSIGHT_TOKEN_STORE": "file", "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
MEMORY = "My sister Priya moved to Toronto in March 2024."
QUERY = "Where does Priya live?"
results: dict[str, str] = {}
CHROOT: list[str] = []  # ["chroot", IMAGE] when the app runs inside a system image


def inside(cmd: list[str]) -> list[str]:
    """`cmd` as run where the app lives (inside the image with --chroot)."""
    return [*CHROOT, *cmd]


def image_has(program: str) -> bool:
    if not CHROOT:
        return shutil.which(program) is not None
    return any((Path(CHROOT[1]) / folder / program).exists() for folder in ("usr/bin", "bin", "usr/local/bin"))


class SmokeFailure(AssertionError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailure(message)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def folder_size(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HINDSIGHT_", "QT_", "VIRTUAL_ENV"))}
    env.update(
        TOKEN_ENV,
        HINDSIGHT_DATA_DIR=str(home / "data"),
        HINDSIGHT_CONFIG_DIR=str(home / "config"),
        HOME=str(home),
        XDG_RUNTIME_DIR=str(home / "run"),
        **extra,
    )
    (home / "run").mkdir(mode=0o700, parents=True, exist_ok=True)
    return env


# ---- what is inside --------------------------------------------------------------------------


def check_contents(app: Path, exe: Path) -> None:
    internal = app / "_internal"
    model = internal / "models" / "multilingual-e5-small-q4_0.gguf"
    check(model.is_file() and model.with_name(model.name + ".sha256").is_file(), f"no bundled model at {model}")
    check(any((internal / "llama_cpp" / "lib").glob("libllama.*")), "llama.cpp libraries missing")
    check(any((internal / "sqlite_vec").glob("vec0.*")), "sqlite-vec's vec0 library missing")
    check((internal / "licenses" / "BUNDLED.txt").is_file(), "licenses/BUNDLED.txt missing")
    check((internal / "licenses" / "THIRD-PARTY.md").is_file(), "licenses/THIRD-PARTY.md missing")
    dangling = [str(p) for p in app.rglob("*") if p.is_symlink() and not p.exists()]
    check(not dangling, f"dangling links: {dangling[:5]}")
    on_disk = {p.name.split(".")[0] for p in internal.iterdir()} & set(FORBIDDEN)
    modules: set[str] = set()
    try:
        from PyInstaller.archive.readers import CArchiveReader

        archive = CArchiveReader(str(exe)).open_embedded_archive("PYZ.pyz")
        modules = {name.split(".")[0] for name in archive.toc}
    except ImportError:
        print("  (PyInstaller not importable here: module archive not inspected)")
    found = sorted(on_disk | (modules & set(FORBIDDEN)))
    check(not found, f"the bundle carries {found}")
    results["left out (torch, transformers, …)"] = f"yes: none of {len(FORBIDDEN)} forbidden packages inside"
    if sys.platform.startswith("linux"):
        check_linked(internal)


def check_linked(internal: Path) -> None:
    """The libraries that must load resolve inside the bundle (as the bootloader sets the search path)."""
    must = [
        *(internal / "llama_cpp" / "lib").glob("*.so*"),
        *(internal / "sqlite_vec").glob("*.so"),
        *(internal / "PySide6" / "Qt" / "plugins" / "platforms").glob("libq*.so"),
    ]
    env = {**os.environ, "LD_LIBRARY_PATH": str(internal)}
    for lib in must:
        out = subprocess.run(inside(["ldd", str(lib)]), capture_output=True, text=True, env=env).stdout
        missing = [line.split()[0] for line in out.splitlines() if "not found" in line]
        # The xcb and wayland plugins link the desktop's own libraries (libxcb*, libwayland*, libEGL):
        # a machine with a desktop has them; this build box may not.
        missing = [m for m in missing if not m.startswith(("libxcb", "libwayland", "libEGL", "libGL", "libX"))]
        check(not missing, f"{lib.name} cannot find {missing}")


# ---- the command line and the servers ---------------------------------------------------------


def timed(cmd: list[str], env: dict[str, str], timeout: float = 120) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(inside(cmd), env=env, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - started, done


def check_version(exe: Path, home: Path, version: str) -> None:
    times = []
    for _ in range(3):
        seconds, done = timed([str(exe), "--version"], env_for(home))
        check(
            done.returncode == 0 and done.stdout.strip() == f"{APP_NAME} {version}",
            f"--version printed {done.stdout!r} {done.stderr[-500:]!r}",
        )
        times.append(seconds)
    results["--version"] = f"{times[0]:.2f} s first, {min(times):.2f} s best of 3"


async def _http_round_trip(url: str, token: str) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        tools = [t.name for t in (await client.list_tools()).tools]
        answered = time.perf_counter()
        wrote = await client.call_tool("memory_write", {"content": MEMORY, "type": "fact"})
        check(not wrote.is_error, f"memory_write failed: {wrote.content}")
        found = await client.call_tool("memory_search", {"query": QUERY})
        check(not found.is_error, f"memory_search failed: {found.content}")
        return {"tools": tools, "answered": answered, "search": found.structured_content}


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SmokeFailure(f"exited early ({proc.returncode}): {proc.stderr.read() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SmokeFailure(f"nothing listened on port {port} within {timeout} s")


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.stderr.read() if proc.stderr else ""


def check_serve(exe: Path, home: Path) -> None:
    env = env_for(home)
    done = subprocess.run(
        inside([str(exe), "--json", "clients", "add", "smoke"]), env=env, capture_output=True, text=True, timeout=120
    )
    check(done.returncode == 0, f"clients add failed: {done.stderr}")
    token = json.loads(done.stdout)["token"]
    port = free_port()
    started = time.perf_counter()
    proc = subprocess.Popen(
        inside([str(exe), "serve", "--port", str(port)]),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, proc)
        trip = anyio.run(_http_round_trip, f"http://127.0.0.1:{port}/mcp", token)
    finally:
        stderr = stop(proc)
    check({"memory_write", "memory_search"} <= set(trip["tools"]), f"tools/list gave {trip['tools']}")
    texts = [r.get("content", "") for r in (trip["search"] or {}).get("results", [])]
    check(any("Priya" in t for t in texts), f"the written memory was not found: {trip['search']}")
    check("Traceback" not in stderr, f"serve wrote a traceback:\n{stderr[-2000:]}")
    results["serve: first MCP answer (tools/list)"] = f"{trip['answered'] - started:.2f} s after launch"
    bundled = (exe.parent / "_internal" / "models" / "multilingual-e5-small-q4_0.gguf.sha256").read_text()
    copied = (home / "data" / "models" / "multilingual-e5-small-q4_0.gguf.sha256").read_text()
    check(bundled == copied, "the data folder's model is not the bundled one (was it converted?)")
    results["model"] = "bundled GGUF copied into the data folder (checksums equal); no conversion"


async def _stdio_round_trip(exe: Path, env: dict[str, str]) -> list[str]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    command = inside([str(exe), "mcp", "--client", "smoke-stdio"])
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    async with Client(params, mode="legacy") as client:
        found = await client.call_tool("memory_search", {"query": QUERY})
        check(not found.is_error, f"stdio memory_search failed: {found.content}")
        return [r.get("content", "") for r in (found.structured_content or {}).get("results", [])]


def check_stdio(exe: Path, home: Path) -> None:
    started = time.perf_counter()
    texts = anyio.run(_stdio_round_trip, exe, env_for(home))
    check(any("Priya" in t for t in texts), f"stdio search did not find the memory: {texts}")
    results["stdio mcp: launch + search"] = f"{time.perf_counter() - started:.2f} s"


def _settings_with_free_port(home: Path) -> int:
    port = free_port()
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"http_port": port}))
    return port


def _probe(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run the app with HINDSIGHT_APP_PROBE=1: (seconds to tray ready, to memory ready) after launch."""
    started = time.time()
    _, done = timed(cmd, {**env, "HINDSIGHT_APP_PROBE": "1"}, timeout=180)
    lines = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.strip()}
    stamps = {key: float(lines[key][1]) for key in ("tray-ready", "memory-ready") if key in lines}
    running = "state=running" in lines.get("memory-ready", [])
    check(
        done.returncode == 0 and len(stamps) == 2 and running,
        f"the app did not reach tray and memory ready ({done.returncode}):\n{done.stdout}\n{done.stderr[-2000:]}",
    )
    check("Traceback" not in done.stderr, f"the app wrote a traceback:\n{done.stderr[-2000:]}")
    return stamps["tray-ready"] - started, stamps["memory-ready"] - started


def check_gui(exe: Path, home: Path) -> None:
    port = _settings_with_free_port(home)
    env = env_for(home, QT_QPA_PLATFORM="offscreen")
    tray, memory = _probe([str(exe)], env)
    results["GUI: tray ready"] = f"{tray:.2f} s after launch"
    results["GUI: memory open (model loaded, server up)"] = f"{memory:.2f} s after launch"
    # Without the probe: the app keeps running, and its MCP server answers (401 without a token).
    proc = subprocess.Popen(inside([str(exe)]), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(port, proc)
        time.sleep(3)
        check(proc.poll() is None, f"the app quit by itself ({proc.returncode})")
        status = _post_status(f"http://127.0.0.1:{port}/mcp")
        check(status == 401, f"the app's server answered {status} without a token (expected 401)")
    finally:
        stderr = stop(proc)
    check("Traceback" not in stderr, f"the app wrote a traceback:\n{stderr[-2000:]}")
    results["GUI: stays up, its server asks for a token"] = "yes"


def check_gui_xcb(exe: Path, home: Path) -> None:
    """The bundled xcb platform plugin, on a virtual X server (skipped where xvfb-run is missing)."""
    if not image_has("xvfb-run"):
        results["GUI on X11 (xvfb)"] = "skipped: xvfb-run not installed"
        return
    _settings_with_free_port(home)
    _, memory = _probe(["xvfb-run", "-a", str(exe)], env_for(home))
    results["GUI on X11 (xvfb): memory open"] = f"{memory:.2f} s after launch (xvfb start included)"


def _post_status(url: str) -> int:
    import urllib.error
    import urllib.request

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def check_install(package: Path, home: Path, version: str) -> None:
    """The tarball's install.sh: app, command, menu entry and icons under a temporary ~/.local."""
    env = env_for(home, XDG_DATA_HOME=str(home / "share"), PREFIX=str(home / "local"))
    done = subprocess.run(inside(["bash", str(package / "install.sh")]), env=env, capture_output=True, text=True)
    check(done.returncode == 0, f"install.sh failed: {done.stdout}{done.stderr}")
    command = home / "local" / "bin" / APP_NAME
    entry = home / "share" / "applications" / f"{APP_NAME}.desktop"
    icon = home / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_NAME}.svg"
    check(command.is_symlink() and entry.is_file() and icon.is_file(), "install.sh left something out")
    exec_line = next(line for line in entry.read_text().splitlines() if line.startswith("Exec="))
    target = exec_line.removeprefix("Exec=").strip('"')
    check(target == str(home / "local" / "opt" / APP_NAME / APP_NAME), f"the menu entry runs {exec_line!r}")
    ran = subprocess.run(inside([str(command), "--version"]), env=env, capture_output=True, text=True)
    check(ran.stdout.strip() == f"{APP_NAME} {version}", f"the installed command printed {ran.stdout!r}")
    done = subprocess.run(
        inside(["bash", str(package / "install.sh"), "--uninstall"]), env=env, capture_output=True, text=True
    )
    check(done.returncode == 0 and not command.exists() and not entry.exists(), "uninstall left files behind")
    results["install.sh / --uninstall"] = "ok (temporary ~/.local)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, required=True, help="the one-folder app (holds the executable)")
    parser.add_argument("--tarball", type=Path, help="the tarball it came from (its size is reported)")
    parser.add_argument("--package", type=Path, help="the unpacked tarball's top folder (holds install.sh)")
    parser.add_argument("--version", required=True, help="the version --version must print")
    parser.add_argument("--chroot", type=Path, help="run the app inside this system image (same paths there)")
    args = parser.parse_args()
    if args.chroot:
        CHROOT[:] = ["chroot", str(args.chroot)]
        results["system image"] = str(args.chroot)
    exe = args.app / (APP_NAME + (".exe" if os.name == "nt" else ""))
    if args.tarball:
        results["tarball"] = mib(args.tarball.stat().st_size)
    results["unpacked app folder"] = mib(folder_size(args.app))
    steps = [
        ("contents", lambda h: check_contents(args.app, exe)),
        ("--version", lambda h: check_version(exe, h, args.version)),
        ("serve + MCP over HTTP", lambda h: check_serve(exe, h)),
        ("stdio MCP", lambda h: check_stdio(exe, h)),
        ("GUI offscreen", lambda h: check_gui(exe, h)),
        ("GUI on X11", lambda h: check_gui_xcb(exe, h)),
    ]
    if args.package:
        steps.append(("install.sh", lambda h: check_install(args.package, h / "install-home", args.version)))
    home = Path(tempfile.mkdtemp(prefix="hindsight-smoke-"))
    failed = False
    try:
        for name, step in steps:
            print(f"- {name} …", flush=True)
            try:
                step(home)
            except (SmokeFailure, subprocess.TimeoutExpired) as exc:
                print(f"  FAILED: {exc}", flush=True)
                failed = True
                break
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print("\nSmoke test " + ("FAILED" if failed else "passed"))
    width = max(len(k) for k in results)
    for key, value in results.items():
        print(f"  {key.ljust(width)}  {value}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
