"""The doctor's sync checks over two real devices sharing a folder: reachable, writable, the files' health
(a damaged file is named), devices lagging or gone; a device without sync gets one skipped line."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.mcp import free_port, token_env

from hindsight_desktop.cli.doctor_checks import run_doctor
from hindsight_desktop.cli.doctor_sync import check_sync
from hindsight_desktop.config import Settings
from hindsight_desktop.core.engine import MemoryEngine

SYNC_CHECKS = ["sync folder", "sync folder writable", "sync files", "sync devices"]


def by_name(findings: list) -> dict:
    return {f.name: f for f in findings}


@pytest.fixture
def devices(tmp_path: Path, embedder):
    folder = tmp_path / "synced"
    folder.mkdir()
    desk = MemoryEngine(tmp_path / "desk", embedder=embedder)
    laptop = MemoryEngine(tmp_path / "laptop", embedder=embedder)
    code = desk.sync_setup(folder, name="desk")["code"]
    laptop.sync_join(folder, code, name="laptop")
    desk.write("The recycling goes out on Tuesday evenings.", explicit=True)
    desk.sync_now()
    laptop.sync_now()
    yield folder, desk, laptop
    desk.close()
    laptop.close()


def test_a_device_without_sync_gets_one_skipped_line(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with token_env():
        report = run_doctor(engine.data_dir, Settings(http_port=free_port()), engine=engine)
    sync = [c for c in report["checks"] if c["name"].startswith("sync")]
    assert [c["name"] for c in sync] == ["sync"] and sync[0]["skipped"] and sync[0]["ok"]
    assert "sync setup FOLDER" in sync[0]["fix"]


def test_two_synced_devices_pass_every_sync_check(devices, tmp_path, monkeypatch):
    folder, desk, _ = devices
    monkeypatch.setenv("HOME", str(tmp_path))
    with token_env():
        report = run_doctor(desk.data_dir, Settings(http_port=free_port()), engine=desk)
    checks = {c["name"]: c for c in report["checks"]}
    assert all(checks[name]["ok"] and not checks[name]["skipped"] for name in SYNC_CHECKS), checks
    assert str(folder) in checks["sync folder"]["detail"]
    assert "laptop" in checks["sync devices"]["detail"]
    assert "refused none" in checks["sync files"]["detail"]
    assert not [p for p in folder.rglob(".hs-doctor-*")]  # the writability probe leaves nothing behind


def test_a_damaged_file_is_named_with_what_to_do(devices):
    folder, desk, laptop = devices
    laptop_id = laptop.sync_status()["device_id"]
    newest = max((folder / "hindsight-sync" / "changes" / laptop_id).glob("*"), default=None)
    laptop.write("The spare fuse is in the kitchen drawer.", explicit=True)
    laptop.sync_now()
    written = sorted((folder / "hindsight-sync" / "changes" / laptop_id).glob("*"))
    assert written and written[-1] != newest
    damaged = written[-1]
    data = bytearray(damaged.read_bytes())
    data[-5] ^= 0xFF  # one flipped byte in the ciphertext
    damaged.write_bytes(bytes(data))
    desk.sync_now()
    files = by_name(check_sync(desk))["sync files"]
    assert not files.ok and damaged.name in files.detail and files.fix


def test_a_missing_folder_fails_with_the_drive_named(devices):
    folder, desk, _ = devices
    folder.rename(folder.with_name("unplugged"))
    findings = check_sync(desk)
    assert [f.name for f in findings] == ["sync folder"]
    assert not findings[0].ok and str(folder) in findings[0].detail and "drive" in findings[0].fix


def test_a_device_away_for_weeks_is_named_so_it_can_be_removed(devices):
    _, desk, _ = devices
    later = datetime.now(UTC) + timedelta(days=30)
    away = by_name(check_sync(desk, now=later))["sync devices"]
    assert not away.ok and "laptop" in away.detail and "remove-device" in away.fix
    assert by_name(check_sync(desk))["sync devices"].ok


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes through any file mode")
def test_a_read_only_folder_fails_the_writable_check(devices):
    folder, desk, _ = devices
    sync_dir = folder / "hindsight-sync"
    sync_dir.chmod(0o500)
    try:
        writable = by_name(check_sync(desk))["sync folder writable"]
    finally:
        sync_dir.chmod(0o700)
    assert not writable.ok and str(sync_dir) in writable.detail
