"""Two devices on this machine joined through one sync folder, for the sync tests."""

from __future__ import annotations

import pytest

from hindsight_desktop.config import Settings
from hindsight_desktop.core.engine import MemoryEngine


@pytest.fixture
def pair(tmp_path, embedder, clock):
    folder = tmp_path / "Sync"
    folder.mkdir()
    a = MemoryEngine(tmp_path / "a", settings=Settings(), embedder=embedder, clock=clock)
    b = MemoryEngine(tmp_path / "b", settings=Settings(), embedder=embedder, clock=clock)
    b.sync_join(folder, a.sync_setup(folder)["code"])
    yield a, b
    a.close()
    b.close()
