"""One app per memory file: a second launch asks the first to come forward and exits."""

from __future__ import annotations

import subprocess
import sys

from hindsight_desktop.app.instance import SingleInstance, ask_running_app
from hindsight_desktop.app.state import AppPaths


def test_second_instance_brings_the_first_forward(qtbot, tmp_path):
    key = AppPaths(tmp_path / "c", tmp_path / "d").instance_key()
    first = SingleInstance(key)
    assert first.claim()
    try:
        with qtbot.waitSignal(first.activated, timeout=5000):
            second = SingleInstance(key)
            assert not second.claim()
    finally:
        first.close()
    third = SingleInstance(key)  # the first is gone: a new launch takes over
    assert third.claim()
    third.close()
    assert not ask_running_app(key, timeout_ms=200)


def test_different_data_dirs_run_side_by_side(tmp_path):
    a = AppPaths(tmp_path / "c", tmp_path / "one").instance_key()
    b = AppPaths(tmp_path / "c", tmp_path / "two").instance_key()
    assert a != b


def test_a_second_launch_from_another_process_exits_at_once(qtbot, tmp_path):
    paths = AppPaths(tmp_path / "c", tmp_path / "d")
    first = SingleInstance(paths.instance_key())
    assert first.claim()
    code = (
        "import sys; from pathlib import Path; from hindsight_desktop.app.main import run; "
        f"sys.exit(run([], config_dir=Path({str(paths.config_dir)!r}), data_dir=Path({str(paths.data_dir)!r})))"
    )
    try:
        with qtbot.waitSignal(first.activated, timeout=20_000):
            proc = subprocess.Popen(
                [sys.executable, "-c", code],
                stderr=subprocess.PIPE,
                text=True,
                env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
            )
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0 and "already running" in err
    finally:
        first.close()
