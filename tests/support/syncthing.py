"""Two real Syncthing instances on 127.0.0.1 sharing one folder, for the sync tests (no tests here).

Syncthing's generated defaults reach far beyond this machine (global and local discovery, relays,
NAT traversal, usage and crash reports, upgrades), so an instance is never started as generated:
`syncthing generate` writes keys and a config without any networking, `configure` rewrites every
networking option to loopback-only (/work/shared/docs/SYNC-NOTES.md has the table), pairs the two
devices by static address and shares one folder, and only then is `syncthing serve` started, as a
child process that `SyncthingPair` stops by its PID whatever happens in the test.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from support.mcp import free_port

BINARY = shutil.which("syncthing")
SKIP_REASON = "the `syncthing` binary is not installed (Debian: apt-get install syncthing); .ci/run installs it"
FOLDER_ID = "hindsight-sync"
PR_SET_PDEATHSIG = 1  # prctl(2)

# Options rewritten before the first start; anything networking that is left out here would use
# Syncthing's internet-facing default.
LOOPBACK_OPTIONS = {
    "globalAnnounceEnabled": "false",
    "localAnnounceEnabled": "false",
    "relaysEnabled": "false",
    "natEnabled": "false",
    "announceLANAddresses": "false",
    "urAccepted": "-1",
    "crashReportingEnabled": "false",
    "autoUpgradeIntervalH": "0",
    "startBrowser": "false",
    # Not networking: a dropped connection is retried within seconds rather than a minute.
    "reconnectionIntervalS": "2",
}
# Loopback calls only: a proxy from the environment must never see them.
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
DEVICE_ID = re.compile(r"\b[A-Z2-7]{7}(?:-[A-Z2-7]{7}){7}\b")


class SyncthingError(RuntimeError):
    """An instance did not start, connect or finish syncing in time; the message carries its log's tail."""


@dataclass
class Instance:
    """One Syncthing home (keys, config, database, log) serving one folder."""

    name: str
    home: Path
    folder: Path
    listen_port: int = field(default_factory=free_port)
    gui_port: int = field(default_factory=free_port)
    device_id: str = ""
    api_key: str = ""
    proc: subprocess.Popen | None = None

    @property
    def listen_address(self) -> str:
        return f"tcp://127.0.0.1:{self.listen_port}"

    @property
    def log(self) -> Path:
        return self.home / "syncthing.log"

    def generate(self) -> None:
        """Keys and a config; `generate` does no networking and the default folder is left out."""
        assert BINARY, SKIP_REASON
        self.home.mkdir(parents=True, exist_ok=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(
            [BINARY, "generate", f"--home={self.home}", "--no-default-folder", "--skip-port-probing"],
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        root = ET.parse(self.config_path).getroot()
        self.device_id = root.find("device").get("id")  # the only device in a generated config is itself
        self.api_key = root.find("gui/apikey").text
        assert DEVICE_ID.search(out.stdout + out.stderr) or self.device_id, out

    @property
    def config_path(self) -> Path:
        return self.home / "config.xml"

    def configure(self, peer: Instance, folder_id: str = FOLDER_ID, rescan_s: int = 5) -> None:
        """Loopback only, the peer at its static address, one shared folder."""
        tree = ET.parse(self.config_path)
        root = tree.getroot()
        options = root.find("options")
        for listen in options.findall("listenAddress"):
            options.remove(listen)
        listen = ET.SubElement(options, "listenAddress")
        listen.text = self.listen_address
        for name, value in LOOPBACK_OPTIONS.items():
            element = options.find(name)
            if element is None:
                element = ET.SubElement(options, name)
            element.text = value
        root.find("gui/address").text = f"127.0.0.1:{self.gui_port}"

        me = root.find("device")
        me.find("address").text = self.listen_address
        # A device added later (by hand or through the GUI) starts from these defaults: never "dynamic".
        root.find("defaults/device/address").text = peer.listen_address
        other = copy.deepcopy(me)
        other.set("id", peer.device_id)
        other.set("name", peer.name)
        other.find("address").text = peer.listen_address
        root.insert(list(root).index(me) + 1, other)

        # The folder starts as a copy of the generated folder defaults, so every field has a value.
        folder = copy.deepcopy(root.find("defaults/folder"))
        folder.set("id", folder_id)
        folder.set("label", folder_id)
        folder.set("path", str(self.folder))
        folder.set("rescanIntervalS", str(rescan_s))
        folder.set("fsWatcherEnabled", "true")
        folder.set("fsWatcherDelayS", "1")
        for device in folder.findall("device"):
            folder.remove(device)
        for device_id in (self.device_id, peer.device_id):
            shared = ET.SubElement(folder, "device", {"id": device_id, "introducedBy": ""})
            ET.SubElement(shared, "encryptionPassword").text = ""
        root.insert(list(root).index(me), folder)
        tree.write(self.config_path, encoding="unicode")
        check_loopback_only(self.config_path)

    def start(self) -> None:
        assert BINARY, SKIP_REASON
        check_loopback_only(self.config_path)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [BINARY, "serve", f"--home={self.home}", "--no-browser", "--no-restart", "--no-upgrade"],
                env=self._env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                # `serve` runs a monitor process and the real one as its child: a group of their own lets
                # `stop` end both by the group id of the process started here.
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )

    def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL if it has not exited in ten seconds; safe to call twice."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        # The monitor's child may outlive it for a moment; nothing of the group is left running.
        deadline = time.monotonic() + 10
        while self.group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)

    @staticmethod
    def group_alive(pgid: int) -> bool:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True

    def pids(self) -> list[int]:
        """The monitor and its child (every process of the instance's group)."""
        if self.proc is None:
            return []
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == self.proc.pid:  # field 5 of stat: the process group
                    pids.append(int(stat.parent.name))
        return pids

    def _env(self) -> dict[str, str]:
        # Its own HOME, so nothing of the person running the tests is read or written.
        return {**os.environ, "HOME": str(self.home), "STNODEFAULTFOLDER": "1", "STNOUPGRADE": "1", "STNORESTART": "1"}

    def api(self, method: str, path: str, **params: Any) -> Any:
        """One REST call on the instance's own loopback GUI port, with its API key."""
        if self.proc is None or self.proc.poll() is not None:
            raise SyncthingError(f"{self.name}: syncthing is not running\n{self.log_tail()}")
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.gui_port}{path}{query}", method=method, headers={"X-API-Key": self.api_key}
        )
        with _NO_PROXY.open(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def log_tail(self, lines: int = 30) -> str:
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def _die_with_parent() -> None:
    """In the child before exec: should the test process itself be killed, the kernel sends SIGTERM to
    the monitor, which stops its child, so no instance outlives the run (Linux; elsewhere `stop` does)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def check_loopback_only(config_path: Path) -> None:
    """Refuse to start an instance whose config could reach past 127.0.0.1."""
    root = ET.parse(config_path).getroot()
    options = root.find("options")
    for name, value in LOOPBACK_OPTIONS.items():
        assert options.findtext(name) == value, f"{config_path}: {name} must be {value}"
    for listen in options.findall("listenAddress"):
        assert listen.text.startswith("tcp://127.0.0.1:"), f"{config_path}: listens on {listen.text}"
    assert root.findtext("gui/address").startswith("127.0.0.1:"), f"{config_path}: GUI not on loopback"
    for address in root.iter("address"):
        if address.text and ":" in address.text and "127.0.0.1" not in address.text:
            raise AssertionError(f"{config_path}: an address outside loopback: {address.text}")
    for device in root.findall("device") + root.findall("defaults/device"):
        text = device.findtext("address")
        assert text != "dynamic", f"{config_path}: device {device.get('id')!r} would be discovered"


class SyncthingPair:
    """Devices `a` and `b`, each with its own Syncthing home, sharing one folder; stopped on exit, always."""

    def __init__(self, root: Path, folder_a: Path | None = None, folder_b: Path | None = None) -> None:
        self.a = Instance("device-a", root / "syncthing-a", folder_a or root / "folder-a")
        self.b = Instance("device-b", root / "syncthing-b", folder_b or root / "folder-b")

    @property
    def instances(self) -> tuple[Instance, Instance]:
        return self.a, self.b

    @property
    def pids(self) -> list[int]:
        return [pid for instance in self.instances for pid in instance.pids()]

    def __enter__(self) -> SyncthingPair:
        try:
            for instance in self.instances:
                instance.generate()
            self.a.configure(self.b)
            self.b.configure(self.a)
            for instance in self.instances:
                instance.start()
            self.wait_connected()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()

    def stop(self) -> None:
        for instance in self.instances:
            instance.stop()

    def wait_connected(self, timeout: float = 60.0) -> None:
        """Both REST APIs answer, each sees the other connected, and the shared folder is idle on both."""

        def connected() -> bool:
            for me, peer in ((self.a, self.b), (self.b, self.a)):
                connections = me.api("GET", "/rest/system/connections")["connections"]
                if not connections.get(peer.device_id, {}).get("connected"):
                    return False
                if me.api("GET", "/rest/db/status", folder=FOLDER_ID)["state"] != "idle":
                    return False
            return True

        self._wait(connected, timeout, "the two instances did not connect")

    def wait_synced(self, timeout: float = 60.0) -> None:
        """Rescan both copies now, then wait until each side is idle, needs nothing, and sees the other at 100%.

        The completion is asked of the side that has the files: after its scan it knows the other lacks
        them, so "100%" cannot be read before the index has even travelled.
        """
        for instance in self.instances:
            instance.api("POST", "/rest/db/scan", folder=FOLDER_ID)

        def synced() -> bool:
            for me, peer in ((self.a, self.b), (self.b, self.a)):
                status = me.api("GET", "/rest/db/status", folder=FOLDER_ID)
                if status["state"] != "idle" or status["needTotalItems"] != 0:
                    return False
                completion = me.api("GET", "/rest/db/completion", folder=FOLDER_ID, device=peer.device_id)
                if completion["completion"] < 100 or completion["needItems"] or completion["needDeletes"]:
                    return False
            return True

        self._wait(synced, timeout, "the shared folder did not come in sync")

    def _wait(self, condition: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            for instance in self.instances:
                if instance.proc is None or instance.proc.poll() is not None:
                    raise SyncthingError(f"{instance.name} exited\n{instance.log_tail()}")
            try:
                if condition():
                    return
            except (OSError, KeyError) as exc:  # the REST API is not up yet
                last_error = exc
            time.sleep(0.25)
        logs = "\n".join(f"--- {i.name}\n{i.log_tail()}" for i in self.instances)
        raise SyncthingError(f"{what} within {timeout:.0f} s (last error: {last_error})\n{logs}")


def wait_for(predicate: Any, timeout: float = 60.0, what: str = "condition") -> None:
    """Poll `predicate` until it is true or the deadline passes (never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise SyncthingError(f"{what}: not true within {timeout:.0f} s")


def foreign_connections(pids: list[int]) -> list[str]:
    """Sockets of these processes whose remote end is not loopback (from `ss -tunap`), for the tests to assert on."""
    out = subprocess.run(["ss", "-tunapH"], capture_output=True, text=True, timeout=10).stdout
    bad = []
    for line in out.splitlines():
        if not any(f"pid={pid}," in line for pid in pids):
            continue
        fields = line.split()
        local, peer = fields[4], fields[5]
        if not _loopback(local) or not (_loopback(peer) or peer.startswith("*")):
            bad.append(line)
    return bad


def _loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]").split("%")[0]
    return host.startswith("127.") or host in ("::1", "::ffff:127.0.0.1")
