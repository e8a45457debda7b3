"""Sync through a real sync engine: two Syncthing instances on 127.0.0.1 move the folder's files between two
devices (two data folders, each with its own Syncthing home); the product only writes and reads the folder.

Skips, saying why, where Debian's `syncthing` is not installed (.ci/run installs it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.syncthing import BINARY, SKIP_REASON, SyncthingPair, foreign_connections

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(BINARY is None, reason=SKIP_REASON)]


@pytest.fixture
def pair(tmp_path: Path):
    with SyncthingPair(tmp_path) as started:
        yield started
    assert not started.pids, "a Syncthing process outlived its test"


def test_the_two_instances_stay_on_loopback_and_move_files_both_ways(pair):
    (pair.a.folder / "from-a.bin").write_bytes(b"a" * 70_000)
    (pair.b.folder / "from-b.bin").write_bytes(b"b" * 5_000)
    pair.wait_synced()
    assert (pair.b.folder / "from-a.bin").read_bytes() == b"a" * 70_000
    assert (pair.a.folder / "from-b.bin").read_bytes() == b"b" * 5_000
    pids = pair.pids
    assert len(pids) >= 2
    assert foreign_connections(pids) == []

