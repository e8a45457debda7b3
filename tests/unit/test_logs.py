"""The log file's set-up: where it goes, that it rotates, and that third-party chatter stays out."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from hindsight_desktop import logs


@pytest.fixture
def log_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(logs.LOG_DIR_ENV, str(tmp_path / "logs"))
    root = logging.getLogger()
    saved = root.handlers[:], root.level, logging.getLogger(logs.APP_LOGGER).level
    yield tmp_path / "logs"
    for handler in root.handlers[:]:
        if handler not in saved[0]:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(saved[1])
    logging.getLogger(logs.APP_LOGGER).setLevel(saved[2])
    logs._handler = None


def test_setup_writes_the_process_file_in_the_log_folder(log_folder: Path):
    path = logs.setup("serve")
    assert path == log_folder / "serve.log" and path.stat().st_mode & 0o777 == 0o600
    assert log_folder.stat().st_mode & 0o077 == 0
    logging.getLogger("hindsight_desktop.test").info("an event")
    logging.getLogger("hindsight_desktop.test").debug("a detail")
    logging.getLogger("httpx").info("a request body")  # a library below warning stays out
    text = path.read_text(encoding="utf-8")
    assert "an event" in text and "a detail" not in text and "a request body" not in text
    assert text.split(" ", 1)[0].endswith("Z")  # UTC time stamps


def test_verbose_adds_detail(log_folder: Path):
    path = logs.setup("app", verbose=True)
    logging.getLogger("hindsight_desktop.test").debug("a detail")
    assert path is not None and "a detail" in path.read_text(encoding="utf-8")


def test_the_file_rotates_and_keeps_a_few(log_folder: Path):
    logs.setup("app")
    handler = logs._handler
    assert isinstance(handler, logs.ConcurrentRotatingFileHandler)  # safe for several processes (e2e test)
    assert handler.maxBytes == logs.MAX_BYTES > 0 and handler.backupCount == logs.BACKUPS > 0
    handler.maxBytes = 300  # rotate after a few lines instead of a megabyte
    for n in range(60):
        logging.getLogger("hindsight_desktop.test").info("event number %d", n)
    kept = sorted(p.name for p in log_folder.iterdir() if p.name != ".__app.lock")
    assert kept == ["app.log"] + [f"app.log.{i}" for i in range(1, logs.BACKUPS + 1)]
    assert "event number 59" in (log_folder / "app.log").read_text(encoding="utf-8")


def test_an_unwritable_folder_does_not_stop_the_program(tmp_path: Path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(logs.LOG_DIR_ENV, str(blocker / "logs"))
    assert logs.setup("cli") is None
    assert "cannot write the log file" in capsys.readouterr().err


def test_describe_error_keeps_one_short_line():
    assert logs.describe_error(ValueError("first\nsecond")) == "ValueError: first"
    assert len(logs.describe_error(ValueError("x" * 1000))) < 220
