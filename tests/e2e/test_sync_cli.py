"""Two data folders joined through one sync folder, driven by the command line as a person would: what is
written, edited, forgotten or purged on one is so on the other after `sync now` on both, ids are the same
on both, and the folder holds only ciphertext."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.sync_folder import raw_bytes


@pytest.fixture
def device(tmp_path, model_dir):
    def make(name: str):
        data = tmp_path / name
        models = data / "models"
        models.parent.mkdir(parents=True, exist_ok=True)
        models.symlink_to(model_dir, target_is_directory=True)  # the session's converted model, not another
        env = {**os.environ, "HINDSIGHT_DATA_DIR": str(data)}

        def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
            proc = subprocess.run(
                [sys.executable, "-m", "hindsight_desktop", *args],
                env=env,
                capture_output=True,
                text=True,
                timeout=180,
            )
            if check:
                assert proc.returncode == 0, proc.stderr
            return proc

        def js(*args: str) -> dict:
            return json.loads(run("--json", *args).stdout)

        run.json = js  # type: ignore[attr-defined]
        return run

    return make


def test_two_data_folders_through_one_folder_behave_as_one_memory(tmp_path: Path, device):
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = device("laptop"), device("desktop")
    before = a.json("add", "My passport number is kept in the blue folder; it expires in March 2027.")

    setup = a.json("sync", "setup", str(folder), "--name", "laptop")
    assert setup["code"].startswith("HS1-") and setup["sync"]["sent"] >= 1
    human = a("sync", "status")
    assert "laptop" in human.stdout
    joined = b.json("sync", "join", str(folder), "--code", setup["code"], "--name", "desktop")
    assert joined["devices"] == 2 and joined["sync"]["applied"] >= 1
    assert b.json("show", before["id"])["content"].startswith("My passport number")  # the same id on both

    # Written on B (in Chinese), found by search on A.
    tea = b.json("add", "我妹妹更喜欢喝绿茶，不喝咖啡。")
    assert b.json("sync", "now")["sent"] >= 1
    assert a.json("sync", "now")["applied"] >= 1
    assert tea["id"] in [r["id"] for r in a.json("search", "妹妹喜欢喝什么茶")["results"]]

    # Edited on A, seen on B.
    a.json("edit", before["id"], "--content", "My passport expires in April 2028.")
    a.json("sync", "now")
    b.json("sync", "now")
    assert b.json("show", before["id"])["content"] == "My passport expires in April 2028."

    # Forgotten (archived) on B, archived on A; restored on A, active on B.
    b.json("forget", tea["id"])
    b.json("sync", "now")
    a.json("sync", "now")
    assert a.json("show", tea["id"])["status"] == "archived"
    a.json("restore", tea["id"])
    a.json("sync", "now")
    b.json("sync", "now")
    assert b.json("show", tea["id"])["status"] == "active"

    # Purged on B, gone from A: not found, not searchable.
    b.json("forget", before["id"], "--purge")
    assert b.json("sync", "now")["sent"] >= 1
    assert a.json("sync", "now")["applied"] >= 1
    gone = a("show", before["id"], check=False)
    assert gone.returncode == 3 and "no memory with id" in gone.stderr
    assert before["id"] not in [r["id"] for r in a.json("search", "passport expires")["results"]]
    b.json("sync", "now")  # B rewrites its own files that carried the purged text

    devices = a.json("sync", "devices")["devices"]
    assert {d["name"] for d in devices} == {"laptop", "desktop"} and devices[0]["this_device"]
    status = b.json("sync", "status")
    assert status["set_up"] and status["pending"] == 0 and status["refused"] == []

    on_disk = raw_bytes(folder)
    for text in ("passport", "April 2028", "绿茶", "laptop", "desktop"):
        assert text.encode() not in on_disk, text  # names, texts: nothing readable in the folder

    left = b.json("sync", "leave")
    assert left["left"] and not b.json("sync", "status")["set_up"]
    assert b.json("show", tea["id"])["id"] == tea["id"]  # leaving keeps the memories
    again = b("sync", "now", check=False)
    assert again.returncode == 8 and "not set up" in again.stderr


def test_join_refuses_a_wrong_or_mistyped_code_by_name(tmp_path: Path, device):
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = device("one"), device("two")
    code = a.json("sync", "setup", str(folder))["code"]
    typo = code[:-2] + ("AA" if not code.endswith("AA") else "BB")
    mistyped = b("sync", "join", str(folder), "--code", typo, check=False)
    assert mistyped.returncode == 2 and "pairing code" in mistyped.stderr
    other = tmp_path / "Other"
    other.mkdir()
    foreign = device("three").json("sync", "setup", str(other))["code"]
    wrong = b("sync", "join", str(folder), "--code", foreign, check=False)
    assert wrong.returncode == 2 and "not the one of the sync folder" in wrong.stderr
    assert not b.json("sync", "status")["set_up"]
    nothing = b("sync", "join", str(tmp_path / "missing"), "--code", code, check=False)
    assert nothing.returncode == 8 and "is not there" in nothing.stderr
