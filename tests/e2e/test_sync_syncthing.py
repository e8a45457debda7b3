"""Sync through a real sync engine: two Syncthing instances on 127.0.0.1 move the folder's files between two
devices (two data folders, each with its own Syncthing home); the product only writes and reads the folder.

Skips, saying why, where Debian's `syncthing` is not installed (.ci/run installs it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.mcp import cli, prepare_data_dir
from support.syncthing import BINARY, SKIP_REASON, Instance, SyncthingPair, foreign_connections

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(BINARY is None, reason=SKIP_REASON)]


@pytest.fixture
def pair(tmp_path: Path):
    with SyncthingPair(tmp_path) as started:
        groups = [instance.proc.pid for instance in started.instances]
        yield started
    assert not [g for g in groups if Instance.group_alive(g)], "a Syncthing process outlived its test"


def run(data_dir: Path, *args: str) -> dict:
    return json.loads(cli(data_dir, "--json", *args).stdout)


def test_the_two_instances_stay_on_loopback_and_move_files_both_ways(pair):
    (pair.a.folder / "from-a.bin").write_bytes(b"a" * 70_000)
    (pair.b.folder / "from-b.bin").write_bytes(b"b" * 5_000)
    pair.wait_synced()
    assert (pair.b.folder / "from-a.bin").read_bytes() == b"a" * 70_000
    assert (pair.a.folder / "from-b.bin").read_bytes() == b"b" * 5_000
    pids = pair.pids
    assert len(pids) >= 2
    assert foreign_connections(pids) == []


def test_a_memory_written_on_a_is_found_on_b_and_a_purge_on_b_removes_it_from_a(pair, tmp_path, model_dir):
    device_a = prepare_data_dir(tmp_path / "data-a", model_dir)
    device_b = prepare_data_dir(tmp_path / "data-b", model_dir)

    code = run(device_a, "sync", "setup", str(pair.a.folder), "--name", "laptop")["code"]
    pair.wait_synced()  # Syncthing carries the folder's key check to B before B can join
    joined = run(device_b, "sync", "join", str(pair.b.folder), "--code", code, "--name", "desktop")
    assert joined["device_name"] == "desktop"

    text = "The spare house key is under the blue flowerpot by the back door."
    added = run(device_a, "add", text)
    assert run(device_a, "sync", "now")["sent"] >= 1
    pair.wait_synced()
    assert run(device_b, "sync", "now")["applied"] >= 1

    found = run(device_b, "search", "where is the spare key?")["results"]
    assert found and found[0]["id"] == added["id"]  # ids are the same on every device
    assert run(device_b, "show", added["id"])["content"] == text
    devices = {d["name"] for d in run(device_a, "sync", "devices")["devices"]}
    assert devices == {"laptop", "desktop"}

    # Only ciphertext travels: the text is in no file of either copy of the folder.
    for folder in (pair.a.folder, pair.b.folder):
        assert not any(b"flowerpot" in p.read_bytes() for p in folder.rglob("*") if p.is_file())

    assert run(device_b, "forget", added["id"], "--purge")["removed"]["memories"] == 1
    assert run(device_b, "sync", "now")["sent"] >= 1
    pair.wait_synced()
    assert run(device_a, "sync", "now")["applied"] >= 1

    missing = cli(device_a, "show", added["id"], check=False)
    assert missing.returncode == 3, missing.stdout
    assert run(device_a, "search", "spare key flowerpot")["results"] == []
    assert foreign_connections(pair.pids) == []
    # Each device writes only its own files, so Syncthing never had two writers on one file.
    for folder in (pair.a.folder, pair.b.folder):
        assert not list(folder.rglob("*.sync-conflict-*"))
