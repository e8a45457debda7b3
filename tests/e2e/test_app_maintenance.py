"""Maintenance on idle: when it starts, when it does not, what it reports, and the event loop staying
responsive while `engine.run_maintenance` works through 10k memories on a worker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QTimer
from support.app import FakeIdle, seed, start_shell, wait

from hindsight_desktop.app.idle import IdleMonitor, system_idle_source


def test_idle_monitor_takes_the_shorter_of_person_and_assistants():
    now = [1000.0]
    system = FakeIdle(900.0)
    monitor = IdleMonitor(system, clock=lambda: now[0])
    now[0] += 600
    assert monitor.idle_seconds() == 600  # the last MCP activity was at start
    monitor.note_mcp()
    assert monitor.idle_seconds() == 0
    now[0] += 1200
    assert monitor.idle_seconds() == 900  # the OS says the person was last seen 900 s ago
    system.seconds = None  # the OS cannot tell: activity inside the app counts instead
    assert monitor.idle_seconds() == 1200  # in-app activity 1800 s ago, MCP 1200 s ago
    monitor.note_ui()
    assert monitor.idle_seconds() == 0
    assert IdleMonitor().source_name == "activity in the app and over MCP"


def test_system_idle_source_is_none_or_answers():
    source = system_idle_source()
    assert source is None or source.idle_seconds() >= 0


def test_runs_only_when_away_and_due(qtbot, shell):
    seed(shell.backend.engine)
    idle = shell.idle.system
    scheduler = shell.scheduler
    shell.backend.settings.idle_minutes = 10
    idle.seconds = 60
    shell.idle.note_mcp()
    scheduler.check()
    assert not scheduler.running  # the person is here
    idle.seconds = 11 * 60
    shell.idle._last_mcp -= 11 * 60  # and no assistant has called for as long
    with qtbot.waitSignal(scheduler.finished, timeout=30_000) as finished:
        scheduler.check()
        assert scheduler.running and scheduler.reason == "idle"
    assert "merged" in finished.args[0]
    scheduler.check()
    assert not scheduler.running  # ran less than maintenance_every_hours ago
    scheduler.state.last_maintenance = (datetime.now(UTC) - timedelta(hours=25)).isoformat()
    assert scheduler.due()


def test_activity_during_a_run_asks_it_to_yield(qtbot, shell):
    seed(shell.backend.engine)
    shell.idle.system.seconds = 3600
    shell.idle._last_mcp -= 3600
    with qtbot.waitSignal(shell.scheduler.finished, timeout=30_000):
        shell.scheduler.check()
        assert shell.scheduler.running
        shell.idle.note_ui()
        shell.idle.system.seconds = 0  # the person is back
        with qtbot.waitSignal(shell.scheduler.interrupted, timeout=1000):
            shell.scheduler.check()
    assert shell.scheduler.yield_requested


def test_merging_duplicates_is_announced_once(qtbot, shell):
    engine = shell.backend.engine
    engine.write("I love green tea in the morning.", gate=False)
    engine.write("I love green tea in the morning!", gate=False)
    with qtbot.waitSignal(shell.scheduler.finished, timeout=30_000) as done:
        shell.scheduler.run()
    assert done.args[0]["merged"] == 1
    assert shell.tray.messages[-1] == ("Memory tidied up", "Maintenance merged 1 duplicate.")
    with qtbot.waitSignal(shell.scheduler.finished, timeout=30_000):
        shell.scheduler.run()
    tidied = [title for title, _ in shell.tray.messages if title == "Memory tidied up"]
    assert len(tidied) == 1  # a run with nothing to do stays quiet


def _fill(engine, n: int, batch: int = 250) -> None:
    """n distinct short memories: embed a batch at once (the engine's cache keeps them), then store."""
    words = ("amber", "birch", "cobalt", "dune", "ember", "fjord", "granite", "harbor", "indigo", "juniper")
    texts = [f"item {i} {words[i % 10]} {words[(i // 10) % 10]}" for i in range(n)]
    for start in range(0, n, batch):
        chunk = texts[start : start + batch]
        engine.parts.embed(chunk)
        for text in chunk:
            engine.write(text, gate=False)


@pytest.mark.slow
def test_event_loop_keeps_turning_while_maintenance_runs_over_10k(qtbot, app_paths, embedder, token_store):
    # How long the window may stall is measured in bench/maintenance.py. Here, without a clock: events
    # posted one after another while the run goes on are each handled before it ends, which cannot
    # happen if the run holds the GUI thread.
    app = start_shell(qtbot, app_paths, embedder)
    try:
        _fill(app.backend.engine, 10_000)
        task = app.scheduler.run()
        finished_when_handled: list[bool] = []
        for turn in range(3):
            QTimer.singleShot(0, lambda: finished_when_handled.append(task.is_finished))
            qtbot.waitUntil(lambda n=turn: len(finished_when_handled) > n, timeout=60_000)
        wait(qtbot, task, timeout=600_000)
        assert finished_when_handled[0] is False, "the first event waited for the whole run"
        assert app.backend.state == "running"
    finally:
        app.shutdown()
