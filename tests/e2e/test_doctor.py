"""The doctor and "why wasn't this recalled?": real model, real SQLite, a real server and real SDK clients."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.mcp import ServeProcess, free_port, prepare_data_dir, token_env

from hindsight_desktop.cli.doctor_checks import run_doctor, server_url
from hindsight_desktop.config import DB_FILE, Settings
from hindsight_desktop.core.diagnose.checks import check_indexes
from hindsight_desktop.core.keys.opener import connect_existing
from hindsight_desktop.core.store import models
from hindsight_desktop.mcp import client_config
from hindsight_desktop.mcp.auth import ClientRegistry

CHECKS = {"data dir", "database", "sqlite-vec", "embedding model", "indexes", "http port", "keyring"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home, so the doctor never reads the real clients' config files."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    return path


def by_name(report: dict) -> dict[str, dict]:
    return {check["name"]: check for check in report["checks"]}


def vector_table(engine) -> str:
    with engine.store.read() as db:
        return models.read_state(db).active.table


def test_a_healthy_store_passes_every_check(engine, home):
    engine.write("My sister Priya lives in Toronto.", explicit=True)
    with token_env():
        report = run_doctor(engine.data_dir, Settings(http_port=free_port()), engine=engine)
    checks = by_name(report)
    assert report["ok"], [c for c in report["checks"] if not c["ok"]]
    assert set(checks) >= CHECKS
    assert "1 long-term memories" in checks["indexes"]["detail"]
    assert checks["embedding model"]["data"]["embed_ms"] > 0
    assert checks["client configs"]["skipped"]  # no assistant is set up in an empty home


@pytest.mark.parametrize("broken", ["fts_words", "vector"])
def test_a_broken_index_is_found_and_maintenance_fixes_it(engine, broken):
    kept = [engine.write(text, explicit=True) for text in ("I prefer window seats.", "My dentist is Dr. Okafor.")]
    assert check_indexes(engine.store).ok
    table = vector_table(engine) if broken == "vector" else broken
    with engine.store.write() as db:
        rowid = db.execute("SELECT rowid FROM memories WHERE id = ?", (kept[0].id,)).fetchone()[0]
        db.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
    found = check_indexes(engine.store)
    assert not found.ok and "1 missing" in found.detail
    assert "run `hindsight-desktop maintenance`" in found.fix
    engine.run_maintenance()
    assert check_indexes(engine.store).ok


def test_why_explains_a_normal_hit_with_its_rank(engine):
    fact = engine.write("My sister Priya lives in Toronto.", explicit=True)
    engine.write("I prefer window seats on long flights.", explicit=True)
    why = engine.why("where does Priya live?", fact.id)
    assert why.exists and why.recalled and why.rank == 1 and why.verdict.startswith("recalled: rank 1")
    floor = engine.current_parts().calibration.candidate_floor("en")  # recall keeps it from here
    assert "priya" in why.matched_terms and why.vector_models and why.similarity > floor
    assert {"vector", "keyword", "recency", "importance"} <= set(why.scores)
    assert engine.stats()["searches"] == 0  # diagnosing is not a recall: the hit rate stays honest


def test_why_explains_an_archived_memory(engine):
    fact = engine.write("My passport expires in March 2027.", explicit=True)
    engine.forget(ids=fact.id)
    why = engine.why("when does my passport expire?", fact.id)
    assert why.status == "archived" and why.deep and why.rank == 1 and not why.recalled
    assert why.verdict.startswith("archived") and "deep=true" in why.fix and f"restore {fact.id}" in why.fix


def test_why_explains_working_memory(engine):
    chatter = engine.write("ok thanks!")
    assert chatter.layer == "working"
    why = engine.why("thanks", chatter.id)
    assert why.layer == "working" and why.rank is None and "working memory" in why.verdict
    assert "hindsight-desktop add" in why.fix


def test_why_explains_a_superseded_memory(engine, clock):
    old = engine.write("I live in Beijing.", client="a")
    clock.advance(days=30)
    new = engine.write("I moved to Shanghai.", client="a")
    why = engine.why("where do I live?", old.id)
    assert why.status == "superseded" and why.superseded_by == new.id
    assert f"superseded by {new.id}" in why.verdict and f"restore {old.id}" in why.fix


def test_why_explains_a_miss_and_an_unknown_id(engine):
    fact = engine.write("My sister Priya lives in Toronto.", explicit=True)
    why = engine.why("how do I bake sourdough bread", fact.id)
    assert why.rank is None and not why.matched_terms
    assert "no keyword match and low similarity" in why.verdict and "add the words" in why.fix
    missing = engine.why("anything", "mem_nope")
    assert not missing.exists and "no memory has this id" in missing.verdict


def test_client_configs_and_tools_list_round_trips(tmp_path, model_dir, home):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    with token_env():
        registry = ClientRegistry.open(data_dir)
        tokens = {name: registry.add(name)[0] for name in ("cursor", "windsurf")}
        registry.revoke("windsurf")
        registry.close()
        server = ServeProcess(data_dir)
        try:
            for key in tokens:
                target = client_config.Target(
                    url=server_url(server.port),
                    token=tokens[key],
                    client=key,
                    data_dir=data_dir,
                    command=client_config.launch_command(),
                )
                client_config.install(client_config.kind(key), target)
            desktop = client_config.Target(
                url="", token=None, client="claude-desktop", data_dir=data_dir, command=client_config.launch_command()
            )
            client_config.install(client_config.kind("claude-desktop"), desktop)
            report = run_doctor(data_dir, Settings(http_port=server.port))
        finally:
            server.stop()
    checks = by_name(report)
    assert "held by an MCP server" in checks["http port"]["detail"]
    assert checks["client Cursor"]["ok"] and checks["client Claude Desktop"]["ok"]
    assert not checks["client Windsurf"]["ok"] and "revoked" in checks["client Windsurf"]["detail"]
    assert "clients install windsurf" in checks["client Windsurf"]["fix"]
    for name in ("tools/list Cursor", "tools/list Claude Desktop"):  # one over HTTP, one over stdio
        assert checks[name]["ok"] and "memory_search" in checks[name]["data"]["tools"], checks[name]
    assert "tools/list Windsurf" not in checks and not report["ok"]


def test_round_trip_is_skipped_when_no_server_runs(tmp_path, model_dir, home):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    port = free_port()
    with token_env():
        registry = ClientRegistry.open(data_dir)
        token = registry.add("cursor")[0]
        registry.close()
        target = client_config.Target(url=server_url(port), token=token, client="cursor", data_dir=data_dir)
        client_config.install(client_config.kind("cursor"), target)
        report = run_doctor(data_dir, Settings(http_port=port))
    trip = by_name(report)["tools/list Cursor"]
    assert trip["ok"] and trip["skipped"] and "not running" in trip["detail"]
    assert "hindsight-desktop serve" in trip["fix"] and report["ok"]


@pytest.fixture
def cli(tmp_path: Path, model_dir: Path):
    data_dir = prepare_data_dir(tmp_path / "data", model_dir)
    config = tmp_path / "config"
    Settings(http_port=free_port()).save(config / "settings.json")
    env = {
        **os.environ,
        "HINDSIGHT_DATA_DIR": str(data_dir),
        "HINDSIGHT_CONFIG_DIR": str(config),
        "HOME": str(tmp_path / "home"),
        "HINDSIGHT_TOKEN_STORE": "file",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }

    def invoke(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "hindsight_desktop", *args], env=env, capture_output=True, text=True, timeout=120
        )

    invoke.data_dir = data_dir  # type: ignore[attr-defined]
    return invoke


def test_cli_doctor_exits_0_when_healthy_and_1_with_a_fix_when_not(cli):
    fact = json.loads(cli("--json", "add", "My sister Priya lives in Toronto.").stdout)
    healthy = cli("doctor")
    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    assert "PASS  indexes:" in healthy.stdout and "FAIL" not in healthy.stdout
    assert json.loads(cli("doctor", "--json").stdout)["ok"] is True
    db = connect_existing(cli.data_dir / DB_FILE)
    db.execute("DELETE FROM fts_words")
    db.close()
    broken = cli("doctor")
    assert broken.returncode == 1
    assert "FAIL  indexes:" in broken.stdout and "fix: run `hindsight-desktop maintenance`" in broken.stdout
    report = json.loads(cli("--json", "doctor").stdout)
    assert report["ok"] is False and by_name(report)["indexes"]["ok"] is False
    why = json.loads(cli("why", "where does Priya live?", fact["id"], "--json").stdout)
    assert why["exists"] and not why["keyword_indexed"] and "not fully indexed" in why["verdict"]
    text = cli("why", "where does Priya live?", fact["id"]).stdout
    assert "4. keyword index: not indexed" in text and "fix: run `hindsight-desktop maintenance`" in text
