"""The log file: what the app, `serve` and `mcp` did and what went wrong, never what was remembered.

One rotating file per process kind (`app.log`, `serve.log`, `mcp.log` for the stdio bridges,
`mcp-server.log` for the shared background server, `cli.log` for the other commands) in the platform's log folder
(platformdirs' user log dir, or $HINDSIGHT_LOG_DIR). Only the program's own loggers (`hindsight_desktop.*`)
write at INFO, or DEBUG with `--verbose`; third-party libraries write only warnings, because at lower
levels some of them print request and response bodies, which would put memory text in the file.
Callers log events (started, stopped, a tool was called, an error's class and message), never content.

Several processes of one kind write one file at once (two assistants each start an `mcp` bridge; a CLI
command runs while another does), so the handler is concurrent-log-handler's: each write and each rotation
happens under an exclusive lock on a hidden lock file beside the log (`.__mcp.lock`), and a process that
finds the file rotated by another reopens it instead of writing into the renamed one.

Only the standard library, platformdirs and that handler are imported here, so every command can set it
up cheaply.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import platformdirs
from concurrent_log_handler import ConcurrentRotatingFileHandler

LOG_DIR_ENV = "HINDSIGHT_LOG_DIR"
APP_LOGGER = "hindsight_desktop"
MAX_BYTES = 1_000_000  # a file this size is rotated: a few months of ordinary events
BACKUPS = 3  # app.log.1 … app.log.3 are kept, older ones deleted
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_handler: logging.Handler | None = None


def log_dir() -> Path:
    """$HINDSIGHT_LOG_DIR when set, else the platform's user log folder."""
    override = os.environ.get(LOG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_log_dir("hindsight-desktop", appauthor=False))


def log_file(process: str) -> Path:
    """The file one kind of process writes: `app`, `serve` or `mcp`."""
    return log_dir() / f"{process}.log"


class _UtcFormatter(logging.Formatter):
    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (logging's name)
        # UTC inside, as everywhere else.
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"


def make_handler(path: Path) -> ConcurrentRotatingFileHandler:
    """The rotating handler for one file, shared safely by every process of its kind; the files (the log,
    its rotated copies and the lock file) are owner-only, and so is the folder."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        path.touch(mode=0o600)
    handler = ConcurrentRotatingFileHandler(
        str(path), maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", chmod=0o600
    )
    handler.setFormatter(_UtcFormatter(FORMAT))
    return handler


def setup(process: str, *, verbose: bool = False) -> Path | None:
    """Send this process's log to its file; returns the file, or None when the folder cannot be written
    (a log must never keep the program from running). Called once per process; again, it moves the file."""
    global _handler
    path = log_file(process)
    try:
        handler = make_handler(path)
    except OSError as exc:
        print(f"warning: cannot write the log file {path}: {exc}", file=sys.stderr)
        return None
    root = logging.getLogger()
    if _handler is not None:
        root.removeHandler(_handler)
        _handler.close()
    handler.setLevel(logging.DEBUG)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)  # third-party libraries: warnings and errors only
    logging.getLogger(APP_LOGGER).setLevel(logging.DEBUG if verbose else logging.INFO)
    _handler = handler
    return path


def describe_error(exc: BaseException) -> str:
    """An error for the log: its class and the first line of its message, cut short."""
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {first[:200]}"
