"""Where a running memory server tells stdio bridges how to reach it: one small file per data folder.

The file lives in the person's runtime folder (platformdirs' user runtime dir, 0700) under a name
derived from the resolved data folder, so two data folders never find each other's server. It holds
the loopback port of the bridge listener and a random secret, is written 0600, and is valid only while
the server holds the folder's server lock: a stale file (a crashed server) just fails to connect.
A second lock serialises starting a shared server, so two stdio processes racing start one.

Only the standard library and platformdirs are imported here: the bridge must stay light.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

RUNTIME_ENV = "HINDSIGHT_RUNTIME_DIR"  # overrides the folder (tests, sandboxes)
APP = "hindsight-desktop"


@dataclass(frozen=True)
class Endpoint:
    port: int
    secret: str
    pid: int


def runtime_dir() -> Path:
    """The per-user folder for the runtime files, created 0700."""
    chosen = os.environ.get(RUNTIME_ENV)
    if chosen:
        path = Path(chosen)
    else:
        import platformdirs

        with warnings.catch_warnings():  # it warns when XDG_RUNTIME_DIR is unset, then falls back
            warnings.simplefilter("ignore")
            path = Path(platformdirs.user_runtime_dir(APP, appauthor=False))
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
        path = Path(tempfile.gettempdir()) / f"{APP}-{uid}"
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "posix":
        info = path.stat()
        if info.st_uid != os.getuid():
            raise PermissionError(f"the runtime folder {path} belongs to another account; set {RUNTIME_ENV}")
        if info.st_mode & 0o077:
            os.chmod(path, 0o700)
    return path


def folder_key(data_dir: Path) -> str:
    """A short name for the resolved data folder (the same folder, however spelled, gets one key)."""
    return hashlib.sha256(str(Path(data_dir).resolve()).encode("utf-8")).hexdigest()[:20]


def _path(data_dir: Path, suffix: str) -> Path:
    return runtime_dir() / f"server-{folder_key(data_dir)}.{suffix}"


def endpoint_file(data_dir: Path) -> Path:
    return _path(data_dir, "json")


def read_endpoint(data_dir: Path) -> Endpoint | None:
    """The published endpoint, or None when there is none (or it is unreadable)."""
    try:
        data = json.loads(endpoint_file(data_dir).read_text("utf-8"))
        return Endpoint(int(data["port"]), str(data["secret"]), int(data.get("pid", 0)))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def publish(data_dir: Path, port: int) -> Endpoint:
    """Write a fresh secret and `port` for `data_dir`, 0600, atomically."""
    endpoint = Endpoint(port, secrets.token_urlsafe(32), os.getpid())
    target = endpoint_file(data_dir)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".endpoint-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "port": endpoint.port,
                    "secret": endpoint.secret,
                    "pid": endpoint.pid,
                    "data_dir": str(Path(data_dir).resolve()),
                },
                handle,
            )
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return endpoint


def withdraw(data_dir: Path, endpoint: Endpoint) -> None:
    """Remove the endpoint file if it is still ours."""
    current = read_endpoint(data_dir)
    if current is not None and current.secret == endpoint.secret:
        with contextlib.suppress(OSError):
            endpoint_file(data_dir).unlink()


def _try_lock(handle: IO[bytes]) -> bool:
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


class FolderLock:
    """An exclusive lock on a runtime file, released by `release()` or when the process ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[bytes] | None = None

    def acquire(self, timeout: float = 0.0) -> bool:
        handle = open(self.path, "a+b")  # noqa: SIM115 - held open as long as the lock
        deadline = time.monotonic() + timeout
        while not _try_lock(handle):
            if time.monotonic() >= deadline:
                handle.close()
                return False
            time.sleep(0.05)
        self._handle = handle
        return True

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing drops the lock on every platform
            self._handle = None


def server_lock(data_dir: Path) -> FolderLock:
    """Held by the one server that publishes for `data_dir`."""
    return FolderLock(_path(data_dir, "lock"))


@contextlib.contextmanager
def start_lock(data_dir: Path, timeout: float) -> Iterator[bool]:
    """Held while one stdio process starts the shared server; yields whether it was obtained."""
    lock = FolderLock(_path(data_dir, "start"))
    got = lock.acquire(timeout)
    try:
        yield got
    finally:
        lock.release()
