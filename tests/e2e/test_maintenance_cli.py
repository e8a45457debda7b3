"""The export, import, maintenance and model commands as a person runs them: export to stdout or a file,
import with a dry run, maintenance with a report."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture
def cli(tmp_path, model_dir):
    def invoke(*args: str, data: str = "data", check: bool = True) -> subprocess.CompletedProcess:
        models = tmp_path / data / "models"
        if not models.exists():  # reuse the session's converted model
            models.parent.mkdir(parents=True, exist_ok=True)
            models.symlink_to(model_dir, target_is_directory=True)
        env = {**os.environ, "HINDSIGHT_DATA_DIR": str(tmp_path / data)}
        proc = subprocess.run(
            [sys.executable, "-m", "hindsight_desktop", *args], env=env, capture_output=True, text=True, timeout=120
        )
        if check:
            assert proc.returncode == 0, proc.stderr
        return proc

    return invoke


def test_export_import_maintenance_and_model(cli, tmp_path):
    cli("add", "My sister Priya lives in Toronto.")
    lines = cli("export", "--format", "jsonl").stdout.splitlines()  # stdout when no file is given
    assert json.loads(lines[0])["record"] == "header" and json.loads(lines[1])["content"].startswith("My sister")
    target = tmp_path / "backup.json"
    written = json.loads(cli("--json", "export", "--output", str(target)).stdout)
    assert written["memories"] == 1 and target.is_file()

    dry = cli("import", str(target), "--dry-run", data="other")
    assert dry.stdout.startswith("Would import 1 items") and "1 new" in dry.stdout
    done = json.loads(cli("--json", "import", str(target), data="other").stdout)
    assert done["created"] == 1 and not done["dry_run"]
    assert json.loads(cli("--json", "search", "where does Priya live?", data="other").stdout)["results"]

    report = json.loads(cli("maintenance", "--json").stdout)
    assert report["run"]["status"] == "done" and "archived" in report
    assert cli("reflect").stdout.startswith("Maintenance finished")  # the command's first name still works
    shown = json.loads(cli("--json", "model", "show").stdout)
    assert shown["active"]["model_id"].startswith("multilingual-e5-small") and not shown["switching"]
    bad = cli("import", str(tmp_path / "missing.json"), check=False)
    assert bad.returncode == 2 and "cannot read" in bad.stderr
