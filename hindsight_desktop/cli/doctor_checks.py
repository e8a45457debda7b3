"""The checks of `hindsight-desktop doctor` (and the app's Diagnose button): every check between "installed"
and "my assistant remembers", each with a fix.

The memory-file checks live in core/diagnose/checks.py; this module adds what sits outside the file: the
data folder (and its modes: a folder or file others can read is narrowed to 0700/0600, and the
finding says what was fixed), the model, the HTTP port, the keyring, the clients' config files and a
real `tools/list` round trip made with exactly what each client's config says. Nothing here changes
what the memory file holds.

>>> report = run_doctor(data_dir)                                   # doctest: +SKIP
>>> [c["name"] for c in report["checks"] if not c["ok"]]            # doctest: +SKIP
[]
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hindsight_desktop import logs
from hindsight_desktop.cli.doctor_qt import check_qt_libraries
from hindsight_desktop.cli.doctor_sync import check_sync
from hindsight_desktop.config import DATA_DIR_ENV, Settings, default_data_dir, load_settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import EncryptionError
from hindsight_desktop.core.records import Finding
from hindsight_desktop.mcp import client_config, runtime
from hindsight_desktop.mcp.auth import ClientRegistry, TokenVault
from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH
from hindsight_desktop.mcp.server import SERVER_NAME

START_FIX = "start `hindsight-desktop` (the app) or `hindsight-desktop serve`"
ROUND_TRIP_TIMEOUT_S = 60  # a stdio round trip starts a process that loads the model
_PROBE_BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "hindsight-doctor", "version": "1"},
    },
}


def run_doctor(
    data_dir: Path | None = None, settings: Settings | None = None, *, engine: MemoryEngine | None = None
) -> dict[str, Any]:
    """All checks, in the order a problem would show: {"ok": all passed, "checks": [Finding dicts]}.
    `engine` lets a caller that already has one (the app) skip loading the model a second time."""
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    settings = settings or load_settings()
    findings = MemoryEngine.check_folder(data_dir)  # before the engine opens (and creates) anything
    model, opened = check_model(data_dir, settings, engine)
    findings.append(model)
    # After the model check, which may have just created the models folder; listed with the data folder.
    findings.insert(1, MemoryEngine.check_file_modes(data_dir))
    try:
        findings.append(
            opened.check_indexes()
            if opened is not None
            else Finding("indexes", True, "skipped: the memory could not be opened (see above)", skipped=True)
        )
        if opened is not None:
            findings += check_sync(opened)
    finally:
        if opened is not None and opened is not engine:
            opened.close()
    port, running = check_port(settings.http_port)
    findings += [port, check_keyring(data_dir), check_qt_libraries(), check_log_folder()]
    findings += check_clients(data_dir, settings.http_port, running)
    return {"ok": all(f.ok for f in findings), "checks": [f.to_dict() for f in findings]}


def check_model(data_dir: Path, settings: Settings, engine: MemoryEngine | None) -> tuple[Finding, MemoryEngine | None]:
    """Open the memory with its embedding model and embed one sentence, timing both."""
    started = time.perf_counter()
    try:
        opened = engine or MemoryEngine(data_dir, settings=settings)
    except Exception as exc:  # any failure to open is what the person needs to see, whatever its type
        return Finding(
            "embedding model",
            False,
            f"the memory could not be opened with its model: {exc}",
            "check `embedding_model` in Settings and `hindsight-desktop model show`; deleting "
            f"{data_dir / 'models'} rebuilds the default model",
        ), None
    loaded = time.perf_counter() - started
    try:
        started = time.perf_counter()
        vector = opened.embedder.embed(["Hindsight Desktop checks that its model embeds."])[0]
        embedded = time.perf_counter() - started
    except Exception as exc:  # same reason as above
        return Finding(
            "embedding model",
            False,
            f"the model loads but does not embed: {exc}",
            "choose another model with `hindsight-desktop model use PATH`",
        ), opened
    load_text = "" if engine is not None else f"loads in {loaded:.2f} s and "
    return Finding(
        "embedding model",
        True,
        f"{opened.embedder.model_id} ({vector.shape[0]} dimensions) {load_text}embeds in {embedded * 1000:.0f} ms",
        data={
            "model": opened.embedder.model_id,
            "load_s": None if engine else round(loaded, 3),
            "embed_ms": round(embedded * 1000, 1),
        },
    ), opened


def check_log_folder() -> Finding:
    """Where the app's, `serve`'s and `mcp`'s log files are: the first place to look when something failed."""
    folder = logs.log_dir()
    kept = sorted(p.name for p in folder.glob("*.log")) if folder.is_dir() else []
    detail = f"{folder} ({', '.join(kept)})" if kept else f"{folder} (nothing logged yet)"
    return Finding("log folder", True, detail, data={"path": str(folder), "files": kept})


def server_url(port: int) -> str:
    return f"http://{LOOPBACK}:{port}{MCP_PATH}"


def check_port(port: int) -> tuple[Finding, bool]:
    """(finding, whether our server answers there). A free port passes: the app takes it when it starts."""
    try:
        socket.create_connection((LOOPBACK, port), timeout=1).close()
    except OSError:
        return Finding("http port", True, f"port {port} is free (no server is running now)"), False
    status, body, headers = _post_initialize(server_url(port))
    # Our server answers an initialize without a token with a bare 401 and `WWW-Authenticate: Bearer`;
    # with --no-auth it answers with its own name. Which client the token belongs to is the round trip's job.
    if status == 401 and headers.get("www-authenticate", "").lower().startswith("bearer"):
        return Finding(
            "http port", True, f"port {port} is held by an MCP server asking for a token (as Hindsight Desktop does)"
        ), True
    if status == 200 and SERVER_NAME in body:
        return Finding("http port", True, f"port {port} is held by Hindsight Desktop (no tokens: --no-auth)"), True
    return Finding(
        "http port",
        False,
        f"port {port} is held by another program (it answered {status or 'nothing'} at {MCP_PATH})",
        "stop that program, or choose another port in Settings and run "
        "`hindsight-desktop clients install CLIENT` again",
    ), False


def _post_initialize(url: str) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(_PROBE_BODY).encode(),
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read(65536).decode("utf-8", "replace"), _lower(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, "", _lower(exc.headers)
    except (OSError, ValueError):  # not HTTP at all
        return 0, "", {}


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()} if headers else {}


def check_keyring(data_dir: Path) -> Finding:
    """Where client tokens are kept, and (for an OS keyring) that a token survives a save and a load."""
    vault = TokenVault(data_dir)
    backend = vault.backend_name()
    if backend.startswith("file "):
        return _check_token_file(vault)
    probe_name, probe = "hindsight-doctor-probe", f"probe-{os.getpid()}-{time.time()}"
    try:
        saved = vault.save(probe_name, probe)
        loaded = vault.load(probe_name)
        vault.delete(probe_name)
    except Exception as exc:  # a keyring backend may raise anything
        return Finding(
            "keyring",
            False,
            f"{backend} failed: {exc}",
            "unlock the keyring, or set HINDSIGHT_TOKEN_STORE=file to keep tokens in a private file instead",
        )
    if saved.where != "keyring" or loaded != probe:
        return Finding(
            "keyring",
            False,
            f"{backend} did not keep a token ({saved.warning or 'read back differs'})",
            "unlock the keyring, or set HINDSIGHT_TOKEN_STORE=file to keep tokens in a private file",
        )
    return Finding("keyring", True, f"{backend} keeps tokens", data={"backend": backend})


def _check_token_file(vault: TokenVault) -> Finding:
    if vault.file.exists() and vault.file.stat().st_mode & 0o077 and os.name == "posix":
        return Finding(
            "keyring",
            False,
            f"no OS keyring; the token file {vault.file} is readable by others",
            f"chmod 600 {vault.file}",
        )
    return Finding(
        "keyring",
        True,
        f"no OS keyring in use: tokens are kept in {vault.file} (readable only by you)",
        data={"backend": "file", "path": str(vault.file)},
    )


# ---- the assistants' config files ---------------------------------------------------------------


@dataclass
class ClientEntry:
    """Hindsight's entry in one client's config file, as the client itself will read it."""

    kind: client_config.ClientKind
    path: Path
    entry: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.kind.label} ({self.path})"

    @property
    def stdio(self) -> bool:
        """Whether the client launches a command: its kind's way, or an entry written by hand that way
        (Claude Code takes both: `claude mcp add hindsight -- hindsight-desktop mcp`)."""
        return self.kind.stdio or "command" in self.entry


def config_files() -> list[tuple[client_config.ClientKind, Path]]:
    found = [(k, p) for k in client_config.KINDS.values() for p in k.paths()]
    # Claude Code is set up through its own CLI, which keeps user-scope servers in ~/.claude.json.
    found.append((client_config.KINDS["claude-code"], Path.home() / ".claude.json"))
    return [(k, p) for k, p in found if p.is_file()]


def check_clients(data_dir: Path, port: int, running: bool) -> list[Finding]:
    """One finding per installed client's config, then one `tools/list` round trip per usable config."""
    findings: list[Finding] = []
    usable: list[ClientEntry] = []
    try:
        registry = ClientRegistry.open(data_dir)
    except EncryptionError as exc:  # the database finding above says the same, with its fix
        return [
            Finding(
                "client configs",
                False,
                f"skipped: the memory file cannot be opened: {exc}",
                "`hindsight-desktop key restore` with the recovery key",
                skipped=True,
            )
        ]
    try:
        for kind, path in config_files():
            finding, entry = _check_config(kind, path, data_dir, port, registry)
            findings.append(finding)
            if entry is not None:
                usable.append(entry)
    finally:
        registry.close()
    if not findings:
        findings.append(
            Finding(
                "client configs",
                True,
                "skipped: no assistant's config file was found",
                "`hindsight-desktop clients install CLIENT` sets one up",
                skipped=True,
            )
        )
    findings += [round_trip(entry, running) for entry in usable]
    return findings


def _check_config(
    kind: client_config.ClientKind, path: Path, data_dir: Path, port: int, registry: ClientRegistry
) -> tuple[Finding, ClientEntry | None]:
    name, fix = f"client {kind.label}", f"run `hindsight-desktop clients install {kind.key}`"
    try:
        servers = json.loads(path.read_text(encoding="utf-8") or "{}").get(kind.container) or {}
        entry = servers.get(client_config.SERVER_KEY)
    except (OSError, ValueError, AttributeError) as exc:
        return Finding(name, True, f"skipped: {path} is not plain JSON ({exc})", skipped=True), None
    if not isinstance(entry, dict):
        return Finding(name, True, f"skipped: {path} has no Hindsight entry", fix, skipped=True), None
    found = ClientEntry(kind, path, entry)
    problem = _stdio_problem(entry, data_dir) if found.stdio else _http_problem(kind, entry, port, registry)
    if problem:
        return Finding(name, False, f"{path}: {problem}", fix, data={"path": str(path)}), None
    if not found.stdio:
        return Finding(name, True, f"{path} points at {_url(kind, entry)}", data={"path": str(path)}), found
    route, how = _stdio_route(entry, data_dir)
    detail = f"{path} launches {entry['command']}: {how}"
    return Finding(name, True, detail, data={"path": str(path), "route": route}), found


def _stdio_problem(entry: dict[str, Any], data_dir: Path) -> str:
    command, args = str(entry.get("command", "")), [str(a) for a in entry.get("args") or []]
    if not (shutil.which(command) or Path(command).is_file()):
        return f"its command {command!r} does not exist"
    if "mcp" not in args:
        return f"its command does not run `mcp` (args {args})"
    configured = _data_dir_option(args) or (entry.get("env") or {}).get(DATA_DIR_ENV)
    if configured and Path(configured).expanduser().resolve() != data_dir.resolve():
        return f"it uses the memory in {configured}, not {data_dir}"
    return ""


def _data_dir_option(args: list[str]) -> str | None:
    """The `--data-dir` an entry's arguments give (it wins over the environment), if any."""
    for i, arg in enumerate(args):
        if arg == "--data-dir" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--data-dir="):
            return arg.partition("=")[2]
    return None


def _stdio_route(entry: dict[str, Any], data_dir: Path) -> tuple[str, str]:
    """What the entry's process does when the client starts it now: ("bridge" | "start" | "in-process",
    the sentence that says so). One memory process serves every stdio client of a data folder."""
    if "--in-process" in [str(a) for a in entry.get("args") or []]:
        return "in-process", "serves in its own process (--in-process), with a model of its own"
    endpoint = runtime.read_endpoint(data_dir)
    if endpoint is not None and _answers(endpoint.port):
        return "bridge", f"will bridge to the server running for this memory (process {endpoint.pid})"
    return "start", "will start the shared background server (no app or server runs for this memory now)"


def _answers(port: int) -> bool:
    try:
        socket.create_connection((LOOPBACK, port), timeout=1).close()
    except OSError:
        return False  # a runtime file left by a server that is gone
    return True


def _url_key(kind: client_config.ClientKind) -> str:
    """Which key of this client's entry holds the URL (`url`, or `serverUrl` for Windsurf)."""
    marker = "http://url.marker"
    sample = kind.entry(client_config.Target(url=marker, token="", client="", data_dir=Path()))
    return next(key for key, value in sample.items() if value == marker)


def _url(kind: client_config.ClientKind, entry: dict[str, Any]) -> str:
    return str(entry.get(_url_key(kind), ""))


def _http_problem(kind: client_config.ClientKind, entry: dict[str, Any], port: int, registry: ClientRegistry) -> str:
    url, expected = _url(kind, entry), server_url(port)
    if url.rstrip("/") != expected:
        return f"it points at {url or 'no URL'}, but the server listens at {expected}"
    auth = str((entry.get("headers") or {}).get("Authorization", ""))
    if "${input:" in auth:
        return ""  # VS Code keeps the token in its own secret storage: only VS Code can check it
    scheme, _, token = auth.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "it sends no bearer token"
    if registry.verify(token.strip()) is None:
        return "its token is not registered or was revoked"
    return ""


def round_trip(entry: ClientEntry, running: bool) -> Finding:
    """`tools/list` with exactly what the config holds: its URL and headers, or its command and env."""
    import anyio

    name = f"tools/list {entry.kind.label}"
    if not entry.stdio:
        if not running:
            return Finding(name, True, "skipped: the app/server is not running", START_FIX, skipped=True)
        if "${input:" in json.dumps(entry.entry.get("headers", {})):
            return Finding(name, True, "skipped: the token lives in VS Code's secret storage", skipped=True)
    try:
        tools = anyio.run(_list_tools, entry)
    except Exception as exc:  # a failed connection surfaces as many types; all mean the same to a person
        return Finding(
            name,
            False,
            f"no answer to tools/list: {_reason(exc)}",
            f"restart {entry.kind.label} after `hindsight-desktop clients install {entry.kind.key}`",
        )
    if "memory_search" not in tools:
        return Finding(
            name,
            False,
            f"the server answered without Hindsight's tools ({', '.join(tools)})",
            "another MCP server answered: check the URL or command in the config",
        )
    return Finding(name, True, f"{len(tools)} tools listed: {', '.join(sorted(tools))}", data={"tools": tools})


async def _list_tools(entry: ClientEntry) -> list[str]:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    with anyio.fail_after(ROUND_TRIP_TIMEOUT_S):
        if entry.stdio:
            e = entry.entry
            params = StdioServerParameters(
                command=e["command"], args=list(e.get("args") or []), env={**os.environ, **(e.get("env") or {})}
            )
            async with Client(params, mode="legacy") as client:
                return [t.name for t in (await client.list_tools()).tools]
        async with (
            create_mcp_http_client(headers=entry.entry.get("headers")) as http,
            Client(streamable_http_client(_url(entry.kind, entry.entry), http_client=http), mode="legacy") as client,
        ):
            return [t.name for t in (await client.list_tools()).tools]


def _reason(exc: BaseException) -> str:
    # anyio wraps errors of task groups; the innermost one is what went wrong.
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
