"""Small parts of the app: time and count wording, icons and resources, the CLI's app entry, stats."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from xml.etree import ElementTree

from support.app import seed

from hindsight_desktop import cli
from hindsight_desktop.app import fmt, icons
from hindsight_desktop.app.main import has_display
from hindsight_desktop.app.state import AppState


def test_wording():
    today = date(2026, 11, 25)
    assert fmt.day_label(today, today) == "Today"
    assert fmt.day_label(date(2026, 11, 24), today) == "Yesterday"
    assert fmt.day_label(date(2026, 11, 2), today) == "Monday, 2 November"
    assert fmt.day_label(date(2025, 1, 5), today) == "Sunday, 5 January 2025"
    assert fmt.count(1, "memory") == "1 memory" and fmt.count(12_000, "memory") == "12,000 memories"
    assert fmt.one_line("a\n  b\tc") == "a b c" and fmt.one_line("x" * 500, 10).endswith("…")
    now = datetime(2026, 11, 25, 12, tzinfo=UTC)
    assert fmt.ago(now - timedelta(hours=3), now) == "3 hours ago" and fmt.ago(None) == "never"


def test_resources_are_written_as_svg_and_png(qtbot, tmp_path):
    written = icons.write_resources(tmp_path)
    names = {p.name for p in written}
    assert "hindsight-desktop.svg" in names and "hindsight-desktop-256.png" in names
    assert {f"tray-{s}-{m}.png" for s in icons.STATES for m in ("light", "dark")} <= names
    ElementTree.parse(tmp_path / "icons" / "hindsight-desktop.svg")  # well-formed SVG
    assert not icons.app_icon().isNull() and not icons.tray_icon("paused", dark_panel=True).isNull()


def test_app_state_survives_a_restart(tmp_path):
    state = AppState(last_maintenance="2026-11-25T03:00:00+00:00", last_report={"merged": 2}, known_clients=["cursor"])
    state.save(tmp_path / "state.json")
    assert AppState.load(tmp_path / "state.json") == state
    (tmp_path / "bad.json").write_text("{not json")
    assert AppState.load(tmp_path / "bad.json") == AppState()


def test_no_command_starts_the_app_and_help_still_works(monkeypatch, capsys):
    started = []
    monkeypatch.setattr("hindsight_desktop.app.main.run", lambda: started.append(True) or 0)
    assert cli.main([]) == 0 and cli.main(["app"]) == 0
    assert started == [True, True]
    try:
        cli.main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    assert "app" in capsys.readouterr().out


def test_without_a_screen_the_cli_explains_instead_of_crashing(monkeypatch, capsys):
    if not has_display.__module__:
        return
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert cli.main([]) == 1
    captured = capsys.readouterr()
    assert "usage:" in captured.out and "no graphical session" in captured.err


def test_stats_dashboard_counts(qtbot, shell):
    engine = shell.backend.engine
    ids = seed(engine)
    engine.forget(ids=[ids[-1]])
    engine.search("passport expiry")  # a hit
    engine.search("what is the capital of Mongolia")  # probably none
    window = shell.open_stats()
    qtbot.waitUntil(lambda: window.data is not None, timeout=20_000)
    data = window.data
    assert data.totals["memories"] == 6 and data.totals["searches"] == 2
    assert window.tiles["memories"].value == "6" and window.tiles["active"].value == "5"
    assert dict(window.statuses.items) == {"active": 5.0, "archived": 1.0}
    assert sum(v for _, v in data.growth) == 6  # every memory falls in one of the weeks
    assert data.top and data.top[0][1] >= 1  # the passport memory was recalled
    assert dict(data.client_activity)["desktop"] >= 7
    grab = window.grab()
    assert grab.width() > 600


def test_a_cancelled_job_stops_at_its_next_progress_report(qtbot):
    from hindsight_desktop.app.job_bar import JobBar
    from hindsight_desktop.app.workers import Cancelled, Workers

    workers = Workers()
    gate = __import__("threading").Event()

    def job(progress):
        progress(1, 3)
        gate.wait(5)
        progress(2, 3)  # raises: the person pressed Cancel
        return "finished"

    task = workers.submit(job, progress=True)
    bar = JobBar()
    qtbot.addWidget(bar)
    bar.follow(task, "Exporting…")
    qtbot.waitUntil(lambda: bar.bar.maximum() == 3)
    bar.cancel_button.click()
    gate.set()
    qtbot.waitUntil(lambda: task.is_finished)
    assert isinstance(task.error, Cancelled) and bar.isHidden()


def test_finished_tasks_and_their_results_are_freed(qtbot):
    """The pool keeps a task until it has reported, and not a moment longer: pages of memories and
    export results must not pile up for the life of the app."""
    import gc
    import weakref

    from hindsight_desktop.app.workers import Workers

    workers = Workers()
    results: list[int] = []
    refs = [weakref.ref(workers.submit(lambda i=i: i * i, on_done=results.append)) for i in range(20)]
    qtbot.waitUntil(lambda: len(results) == 20 and not workers.busy())
    assert sorted(results) == [i * i for i in range(20)]  # every result arrived before the task went
    # A worker thread may still be returning from the job it just reported on: allow it a moment.
    qtbot.waitUntil(lambda: gc.collect() >= 0 and all(r() is None for r in refs), timeout=2000)
