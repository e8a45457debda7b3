"""Scrolling the timeline through a large memory: the real TimelineWindow and model, offscreen.

    python bench/timeline_scroll.py --data DIR --model MODEL.gguf [--json]
    python bench/timeline_scroll.py --fill 5000 [--json]          # a fresh store, filled here first
    python bench/timeline_scroll.py ... --no-freeze               # without the app's gc.freeze() at open

Measures, with the window's default filter (active memories):
- the engine's page read (`list`, 200 rows) at the start, half-way and at the end of the table;
- time to the first page (reload → rows shown);
- each page the window asks for (fetch_more → rows shown) at the start, ~half-way and at the end (medians);
- a fast scroll to the end by pressing End until everything is loaded: the total time and the longest
  stall of the UI thread (the longest gap of a timer set to tick every 10 ms), and the full collections
  of Python's cycle collector meanwhile (how many, the longest, and the objects it tracks at the end).

Like the app, the bench exempts what exists once the memory is open from the cycle collector
(`settle_collector`), unless `--no-freeze`.

`--data` is copied to a temporary folder first, so the store measured is never changed. Note: with
PySide6 6.12.0 on Python 3.11 every Qt call that returns nothing takes a reference from None, and a
long run aborts ("deallocating None"); 6.11 does not (the result names the version used).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import PySide6  # noqa: E402
from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from hindsight_desktop.app.backend import Backend  # noqa: E402
from hindsight_desktop.app.collector import settle_collector  # noqa: E402
from hindsight_desktop.app.state import AppPaths  # noqa: E402
from hindsight_desktop.app.timeline_window import TimelineWindow  # noqa: E402
from hindsight_desktop.app.workers import Workers  # noqa: E402
from hindsight_desktop.config import Settings  # noqa: E402
from hindsight_desktop.core.engine import MemoryEngine  # noqa: E402
from hindsight_desktop.core.model.default_model import ensure_default_model  # noqa: E402
from hindsight_desktop.core.model.embedder import load_embedder  # noqa: E402
from hindsight_desktop.core.records import MemoryFilter  # noqa: E402

PAGE = 200
TICK_MS = 10


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def wait_for(app: QApplication, done: Callable[[], bool], timeout: float = 600.0) -> None:
    """Run the event loop until `done()`; the UI thread is never blocked by this wait."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("the timeline did not get there in time")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.001)


def median_ms(work: Callable[[], object], runs: int) -> float:
    """`work` run `runs` times: the median duration in milliseconds."""
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return ms(statistics.median(timings))


def engine_pages(engine: MemoryEngine, filters: MemoryFilter, total: int, runs: int = 5) -> dict[str, Any]:
    """The engine's own page read at three depths, by offset and by cursor (`after`)."""
    out: dict[str, Any] = {}
    for label, depth in (("start", 0), ("middle", total // 2), ("end", max(0, total - PAGE))):
        out[f"list_offset_{label}_ms"] = median_ms(
            lambda d=depth: engine.list_memories(filters, limit=PAGE, offset=d), runs
        )
        if depth:
            before = engine.list_memories(filters, limit=1, offset=depth - 1)[0]
            out[f"list_cursor_{label}_ms"] = median_ms(
                lambda b=before: engine.list_memories(filters, limit=PAGE, after=b), runs
            )
    return out


class FullCollections:
    """The cycle collector's full collections (generation 2) on any thread until `close()`: each holds
    the GIL, so one on a worker stalls the UI thread as much as one on the UI thread itself."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self._started: dict[int, float] = {}
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        thread = threading.get_ident()
        if phase == "start":
            self._started[thread] = time.perf_counter()
        elif thread in self._started:
            self.durations.append(time.perf_counter() - self._started.pop(thread))

    def close(self) -> None:
        gc.callbacks.remove(self._callback)


class Probe:
    """Times each page (asked for → its rows in the model and the view) and the UI thread's longest gap.
    It wraps two of the model's methods on this instance only: a page is often asked for from inside
    the handler of the one before, which signal order alone would misattribute."""

    def __init__(self, window: TimelineWindow) -> None:
        self.model = model = window.timeline
        self.pages: list[tuple[int, float]] = []  # (rows loaded before the page, seconds)
        self._asked: tuple[int, float] | None = None
        fetch_more, arrived = model.fetch_more, model._arrived

        def timed_fetch() -> bool:
            asked = fetch_more()
            if asked:
                self._asked = (model.loaded, time.perf_counter())
            return asked

        def timed_arrival(generation: int, page: list) -> None:
            asked, self._asked = self._asked, None
            arrived(generation, page)
            if asked is not None:
                self.pages.append((asked[0], time.perf_counter() - asked[1]))

        model.fetch_more, model._arrived = timed_fetch, timed_arrival  # type: ignore[method-assign]
        self.gaps: list[tuple[float, int]] = []  # (seconds since the tick before, rows loaded)
        self._last_tick = time.perf_counter()
        self.ticker = QTimer()
        self.ticker.setInterval(TICK_MS)
        self.ticker.setTimerType(Qt.TimerType.PreciseTimer)
        self.ticker.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append((now - self._last_tick, self.model.loaded))
        self._last_tick = now

    def start_ticking(self) -> None:
        self.gaps.clear()
        self._last_tick = time.perf_counter()
        self.ticker.start()


def first_page(app: QApplication, window: TimelineWindow, runs: int = 5) -> float:
    model = window.timeline

    def shown() -> None:
        model.reload()
        wait_for(app, lambda: model.loaded > 0 and not model.loading)

    return median_ms(shown, runs)


def fast_scroll(app: QApplication, window: TimelineWindow, probe: Probe) -> dict[str, Any]:
    """Press End whenever no page is on its way, until the whole table is loaded."""
    model, view = window.timeline, window.timeline_view
    view.setFocus()
    probe.pages.clear()
    collections = FullCollections()
    probe.start_ticking()
    started = time.perf_counter()
    presses = 0

    def done() -> bool:
        nonlocal presses
        if not model.loading and model.has_more:
            QTest.keyClick(view, Qt.Key.Key_End)
            presses += 1
        return not model.loading and not model.has_more

    wait_for(app, done, timeout=3600)
    total = time.perf_counter() - started
    probe.ticker.stop()
    collections.close()
    gaps = sorted(probe.gaps)
    worst = gaps[-1] if gaps else (0.0, 0)
    return {
        "scroll_total_s": round(total, 2),
        "scroll_rows": model.loaded,
        "end_presses": presses,
        "max_stall_ms": ms(worst[0]),
        "max_stall_at_rows": worst[1],
        "p99_tick_gap_ms": ms(gaps[int(0.99 * (len(gaps) - 1))][0]) if gaps else 0.0,
        "stalls_over_50ms": sum(1 for g, _ in gaps if g > 0.05),
        "full_gc_runs": len(collections.durations),
        "full_gc_max_ms": ms(max(collections.durations, default=0)),
        "gc_tracked_objects": len(gc.get_objects()),
    }


def page_medians(pages: list[tuple[int, float]], total: int) -> dict[str, Any]:
    """Median page time in three windows of depth: the start, around half-way, the end."""
    windows = {
        "start": lambda d: d < 5 * PAGE,
        "middle": lambda d: abs(d - total / 2) <= 12 * PAGE,
        "end": lambda d: d >= total - 25 * PAGE,
    }
    out: dict[str, Any] = {}
    for label, inside in windows.items():
        chosen = [(d, s) for d, s in pages if inside(d)]
        if chosen:
            out[f"fetch_{label}_ms"] = ms(statistics.median(s for _, s in chosen))
            out[f"fetch_{label}_depth"] = f"{chosen[0][0]}–{chosen[-1][0]}"
    return out


def filled_store(root: Path, count: int) -> tuple[Path, Path]:
    """A fresh store of `count` generated memories spread over the past years (speed.py's sentences)."""
    from datetime import UTC, datetime, timedelta

    sys.path.insert(0, str(Path(__file__).parent))
    from speed import sentence

    model = ensure_default_model(root / "models")
    rng, now = random.Random(11), datetime.now(UTC)
    with MemoryEngine(root / "data", embedder=load_embedder(model)) as engine:
        for start in range(0, count, 128):
            texts = [sentence(rng) + f" (note {rng.randint(0, 10**9)})" for _ in range(min(128, count - start))]
            engine.parts.embed(texts)
            for i, text in enumerate(texts):
                engine.write(
                    text,
                    client="bench",
                    gate=False,
                    occurred_at=now - timedelta(minutes=97 * (start + i) + rng.randint(0, 60)),
                )
    return root / "data", model


def run(data_dir: Path, model: Path, work: Path, freeze: bool = True) -> dict[str, Any]:
    app = QApplication.instance() or QApplication([])
    backend = Backend(
        AppPaths(work / "config", data_dir), Settings(), Workers(), embedder=load_embedder(model), serve=False
    )
    opened = time.perf_counter()
    backend.start()
    wait_for(app, lambda: backend.is_ready or backend.error is not None)
    if backend.error:
        raise SystemExit(backend.error)
    result: dict[str, Any] = {"pyside": PySide6.__version__, "open_s": round(time.perf_counter() - opened, 2)}
    if freeze:
        settle_collector()  # as the app does once the memory is open
    result["gc_frozen"] = gc.get_freeze_count()
    window = TimelineWindow(backend)
    probe = Probe(window)  # before the window is shown: from its first page on
    window.show()
    wait_for(app, lambda: window.timeline.total is not None and not window.timeline.loading)
    total = int(window.timeline.total or 0)
    result["memories"] = total
    assert backend.engine is not None
    result.update(engine_pages(backend.engine, window.timeline.filters, total))
    result["first_page_ms"] = first_page(app, window)
    result.update(fast_scroll(app, window, probe))
    result.update(page_medians(probe.pages, total))
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    window.close()
    backend.shutdown()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a data folder (memory.sqlite3); it is copied first")
    parser.add_argument("--model", type=Path, help="the GGUF model of that store")
    parser.add_argument("--fill", type=int, default=0, help="without --data: fill a fresh store this large")
    parser.add_argument("--no-freeze", action="store_true", help="leave out the app's gc.freeze() at open")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hindsight-scroll-") as tmp:
        work = Path(tmp)
        if args.data is not None:
            if args.model is None:
                parser.error("--data needs --model")
            data_dir, model = work / "data", args.model
            shutil.copytree(args.data, data_dir)
        elif args.fill > 0:
            data_dir, model = filled_store(work, args.fill)
        else:
            parser.error("give --data and --model, or --fill N")
        result = run(data_dir, model, work, freeze=not args.no_freeze)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
