"""The app's cycle collector runs on the UI thread only, whichever thread makes the garbage."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from hindsight_desktop.app.collector import MainThreadCollector, collect_due


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cycle collector frees it


def _make_garbage_in_a_worker(count: int) -> None:
    def work() -> None:
        for _ in range(count):
            _Node()

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()


def test_collections_happen_on_the_ui_thread_only(qtbot):
    threads: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            threads.append(threading.get_ident())

    gc.enable()  # as a process starts
    collector = MainThreadCollector(tick_ms=20)
    gc.callbacks.append(note)
    try:
        collector.start()
        assert not gc.isenabled()
        _make_garbage_in_a_worker(50_000)  # far past the first threshold: automatic collection would run there
        assert threads == []
        qtbot.waitUntil(lambda: len(threads) > 0, timeout=2000)
        assert set(threads) == {threading.get_ident()}
    finally:
        gc.callbacks.remove(note)
        collector.stop()
    assert gc.isenabled()  # restored as it was
    gc.disable()  # as the test suite runs (conftest)


def test_a_qt_object_in_a_cycle_is_freed_by_the_ui_thread(qtbot):
    collector = MainThreadCollector(tick_ms=20)
    collector.start()
    try:
        holder = _Node()
        holder.qt = QObject()  # type: ignore[attr-defined]
        freed = weakref.ref(holder)
        del holder
        _make_garbage_in_a_worker(5_000)
        qtbot.waitUntil(lambda: freed() is None, timeout=3000)
    finally:
        collector.stop()


def test_collect_due_follows_the_thresholds():
    gc.collect()
    assert collect_due() is None  # nothing allocated since
    keep = [_Node() for _ in range(gc.get_threshold()[0] + 10)]
    assert collect_due() == 0
    del keep
