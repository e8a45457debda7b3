"""Encrypted at rest, with real parts: the real model, SQLite3MC, a real file keyring (keyrings.alt's
PlaintextKeyring under a temporary home), CLI and stdio MCP subprocesses, kill -9."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from support.mcp import call, env_for, prepare_data_dir, stdio_client

from hindsight_desktop.config import DB_FILE, Settings
from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.keys import files, recovery
from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.core.model import switching

WORDS = ["Marguerite", "quillbox", "Zanzibar", "thermostat", "Rosalind", "periwinkle", "Oslofjord", "tamarind"]


@pytest.fixture
def keyring_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A real file keyring under a home of the test's own, for this process and its subprocesses."""
    import keyring
    from keyrings.alt.file import PlaintextKeyring

    home = tmp_path / "home"
    env = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    before = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    yield env
    keyring.set_keyring(before)


def _raw(folder: Path) -> bytes:
    """Every regular file under the data folder (database, WAL, SHM, key file...), links not followed."""
    out = []
    for root, _dirs, names in os.walk(folder, followlinks=False):
        out += [
            Path(root, n).read_bytes()
            for n in sorted(names)
            if Path(root, n).is_file() and not Path(root, n).is_symlink()
        ]
    return b"".join(out)


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _vectors(engine: MemoryEngine) -> list[bytes]:
    out = []
    for index in switching.indexes(engine.current_parts().vectors):
        out += [row[0] for row in engine.store.db.execute(f"SELECT embedding FROM {index.table}")]
    return out


def _leaks(blob: bytes, texts: list[str], vectors: list[bytes]) -> list[str]:
    found = [t for t in texts if t.encode() in blob or t.lower().encode() in blob]
    for n, vector in enumerate(vectors):  # 16-byte slices: a vector may straddle two pages
        if any(vector[i : i + 16] in blob for i in range(0, len(vector) - 16, 64)):
            found.append(f"vector {n}")
    return found


def test_no_file_in_the_data_folder_holds_a_memory_or_its_vector(tmp_path, embedder, clock, keyring_home):
    data = tmp_path / "data"
    engine = MemoryEngine(data, embedder=embedder, clock=clock)
    ids = [
        engine.write(f"Remember: {word} keeps the spare key of flat {n}.", gate=False).id
        for n, word in enumerate(WORDS)
    ]
    for _ in range(3):  # alike statements, so maintenance has something to consolidate
        engine.write("Remember: I water the periwinkle plants every Sunday morning.", gate=False)
    engine.edit(ids[0], content="Remember: Marguerite moved the quillbox to the tamarind shelf.")
    engine.forget(ids=[ids[1]], purge=True)
    engine.run_maintenance()
    vectors = _vectors(engine)
    assert vectors
    open_blob = _raw(data)  # with the engine open: the WAL and SHM are there
    engine.close()
    closed_blob = _raw(data)
    for blob in (open_blob, closed_blob):
        assert _leaks(blob, [*WORDS, "spare key", "periwinkle plants"], vectors) == []
    assert files.state(data / DB_FILE) is files.State.ENCRYPTED


def test_the_same_steps_on_a_plain_file_do_leak(tmp_path, embedder, clock, keyring_home):
    """The check above can fail: with encryption off, the same scan finds the text and the vectors."""
    data = tmp_path / "data"
    engine = MemoryEngine(data, embedder=embedder, clock=clock, settings=Settings(encrypt_memory_file=False))
    engine.write("Remember: Marguerite keeps the spare key of flat 4.", gate=False)
    vectors = _vectors(engine)
    engine.close()
    leaks = _leaks(_raw(data), ["Marguerite"], vectors)
    assert "Marguerite" in leaks and "vector 0" in leaks


def _cli(data: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", *args],
        env=env_for(data, **env),
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_a_copy_without_the_key_is_refused_untouched_and_the_recovery_key_opens_it(
    tmp_path, embedder, clock, model_dir, keyring_home
):
    data = prepare_data_dir(tmp_path / "data", model_dir)
    with MemoryEngine(data, embedder=embedder, clock=clock) as engine:
        mid = engine.write("Remember: Rosalind's bicycle lock opens with 4471.", gate=False).id
    shown = _cli(data, keyring_home, "--json", "key", "show", "--recovery")
    assert shown.returncode == 0, shown.stderr
    recovery_key = json.loads(shown.stdout)["recovery_key"]
    copy = tmp_path / "copy"
    shutil.copytree(data, copy, symlinks=True)
    before = _digests(copy)
    elsewhere = {**keyring_home, "HOME": str(tmp_path / "other"), "XDG_DATA_HOME": str(tmp_path / "other" / "share")}
    refused = _cli(copy, elsewhere, "search", "bicycle lock")
    assert refused.returncode == 6, refused.stderr
    assert "is encrypted and no key for it" in refused.stderr and "key restore" in refused.stderr
    doctor = _cli(copy, elsewhere, "--json", "doctor")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert doctor.returncode == 1 and not checks["database"]["ok"] and "key restore" in checks["database"]["fix"]
    assert _digests(copy) == before  # nothing written, nothing made anew
    assert _cli(copy, elsewhere, "key", "restore", "AAAA-" * 13 + "AAAA").returncode == 2  # a wrong one: bad input
    restored = _cli(copy, elsewhere, "key", "restore", recovery_key)
    assert restored.returncode == 0, restored.stderr
    found = _cli(copy, elsewhere, "--json", "search", "bicycle lock")
    assert found.returncode == 0, found.stderr
    assert mid in found.stdout
    doctor = _cli(copy, elsewhere, "--json", "doctor")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["database"]["ok"] and checks["database"]["data"]["file"] == "encrypted", checks["database"]
    assert recovery.decode(recovery_key)  # the printed form reads back


MIGRATE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from hindsight_desktop.core.store.database import Store
    print("go", flush=True)
    started = time.perf_counter()
    Store(Path(sys.argv[1]), encrypt=True).close()
    print(time.perf_counter() - started, flush=True)
    """
)


def _start_migration(path: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", MIGRATE, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "go"
    return proc


def _stored(path: Path) -> list[tuple[str, str]]:
    db = connect_existing(path)
    try:
        return sorted(db.execute("SELECT id, content FROM memories").fetchall())
    finally:
        db.close()


def test_a_migration_killed_at_any_point_loses_nothing(tmp_path, embedder, clock):
    plain = tmp_path / "plain"
    with MemoryEngine(plain, embedder=embedder, clock=clock, settings=Settings(encrypt_memory_file=False)) as engine:
        for n in range(60):
            engine.write(f"Remember: crate {n} of tamarind goes to dock {n * 7}.", gate=False)
    expected = _stored(plain / DB_FILE)
    assert len(expected) == 60 and files.state(plain / DB_FILE) is files.State.PLAIN
    probe = tmp_path / "probe"
    shutil.copytree(plain, probe)
    proc = _start_migration(probe / DB_FILE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    took = float(out.strip())
    rng = random.Random(19)
    for attempt in range(10):
        data = tmp_path / f"run{attempt}"
        shutil.copytree(plain, data)
        proc = _start_migration(data / DB_FILE)
        delay = rng.uniform(0, took * 1.1)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        with MemoryEngine(data, embedder=embedder, clock=clock) as engine:  # the next start
            assert engine.store.key is not None, f"attempt {attempt}, killed after {delay:.3f} s"
            assert engine.search("which dock does crate 17 go to?", limit=3).hits
        stored = _stored(data / DB_FILE)
        assert stored == expected, f"attempt {attempt}, killed after {delay:.3f} s"
        assert files.state(data / DB_FILE) is files.State.ENCRYPTED
        assert not files.building(data / DB_FILE).exists() and not files.retired(data / DB_FILE).exists()
        assert b"tamarind" not in _raw(data)


def _as_chacha20(path: Path) -> None:
    """The encrypted file at `path` as versions before AEGIS-256 made it: ChaCha20-Poly1305, the same key and
    id (built beside it through the backup API and swapped in)."""
    from hindsight_desktop.core.keys.keystore import KeyStore
    from hindsight_desktop.core.keys.opener import find_key
    from hindsight_desktop.core.store.connections import open_connection, raw_key, select_cipher

    key, salt = find_key(path, KeyStore(path)), bytes.fromhex(files.file_id(path))
    work = path.with_name("chacha20.sqlite3")
    src, copy = open_connection(path, key), open_connection(work, key, salt=salt)
    copy.execute(f"PRAGMA page_size={src.execute('PRAGMA page_size').fetchone()[0]}").fetchall()
    with copy.backup("main", src, "main") as job:
        job.step(-1)
    src.close()
    copy.execute("PRAGMA journal_mode=OFF").fetchall()
    select_cipher(copy, "chacha20")
    copy.execute(f'PRAGMA rekey="{raw_key(key, salt)}"').fetchall()
    copy.execute("PRAGMA journal_mode=WAL").fetchall()
    copy.close()
    os.replace(work, path)


def test_a_move_to_aegis_killed_at_any_point_loses_nothing(tmp_path, embedder, clock):
    """A file of an earlier version (ChaCha20) is moved to AEGIS-256 by the first open: killed at any point
    of the move, the next start opens every memory, moved, with no work file left and no plain text."""
    from hindsight_desktop.core.keys import convert
    from hindsight_desktop.core.keys.keystore import KeyStore
    from hindsight_desktop.core.keys.opener import find_key

    legacy = tmp_path / "legacy"
    with MemoryEngine(legacy, embedder=embedder, clock=clock) as engine:
        for n in range(60):
            engine.write(f"Remember: crate {n} of tamarind goes to dock {n * 7}.", gate=False)
    _as_chacha20(legacy / DB_FILE)
    key = find_key(legacy / DB_FILE, KeyStore(legacy / DB_FILE))
    assert convert.uses_legacy_cipher(legacy / DB_FILE, key)
    expected = _stored(legacy / DB_FILE)
    assert len(expected) == 60
    probe = tmp_path / "probe"
    shutil.copytree(legacy, probe)
    proc = _start_migration(probe / DB_FILE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert not convert.uses_legacy_cipher(probe / DB_FILE, key)
    took = float(out.strip())
    rng = random.Random(23)
    for attempt in range(10):
        data = tmp_path / f"run{attempt}"
        shutil.copytree(legacy, data)
        proc = _start_migration(data / DB_FILE)
        delay = rng.uniform(0, took * 1.1)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        with MemoryEngine(data, embedder=embedder, clock=clock) as engine:  # the next start
            assert engine.search("which dock does crate 17 go to?", limit=3).hits
        assert _stored(data / DB_FILE) == expected, f"attempt {attempt}, killed after {delay:.3f} s"
        assert not convert.uses_legacy_cipher(data / DB_FILE, key)
        assert files.file_id(data / DB_FILE) == files.file_id(legacy / DB_FILE)
        assert not files.building(data / DB_FILE).exists() and not files.retired(data / DB_FILE).exists()
        assert b"tamarind" not in _raw(data)


def test_the_engine_and_a_stdio_process_share_the_encrypted_file(tmp_path, embedder, clock, model_dir, keyring_home):
    data = prepare_data_dir(tmp_path / "data", model_dir)
    engine = MemoryEngine(data, embedder=embedder, clock=clock)
    assert engine.store.key is not None
    mine = engine.write("Remember: the greenhouse thermostat is set to 19 degrees.", gate=False).id

    async def scenario() -> tuple[str, list[str]]:
        async with stdio_client(data, "--in-process", **keyring_home) as client:
            theirs = await call(client, "memory_write", content="Remember: the Zanzibar ferry leaves at 7:40.")
            engine.write("Remember: Rosalind borrowed the ladder on Friday.", gate=False)  # meanwhile, here
            found = await call(client, "memory_search", query="greenhouse thermostat temperature", limit="3")
            return theirs["id"], [r["id"] for r in found["results"]]

    theirs, seen = anyio.run(scenario)
    assert mine in seen
    assert "Zanzibar ferry" in engine.get(theirs).content
    assert engine.search("when does the ferry leave?", limit=3).hits[0].memory.id == theirs
    engine.close()
    assert _leaks(_raw(data), ["Zanzibar", "greenhouse", "Rosalind"], []) == []
