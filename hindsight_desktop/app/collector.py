"""Python's cycle collector, run on the UI thread only.

Left automatic, the collector runs in whichever thread happens to allocate when a threshold is
crossed: in the app that is often the warm-up, access-log, maintenance or MCP server thread. If the
garbage it finds holds a Qt object (a closed dialog caught in a reference cycle), that object is
destroyed on the wrong thread, and Qt may crash the whole process (CI caught one: a segmentation
fault while the warm-up thread collected a settings dialog's garbage). So the app turns automatic
collection off and runs the same generational schedule from a timer on the UI thread.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

# How often the UI thread looks at the allocation counts. A pause here costs a few ms at most.
TICK_MS = 500


def collect_due() -> int | None:
    """Collect the oldest generation whose threshold the allocation counts have crossed, as the automatic
    collector would have by now. Returns the generation collected, or None when none was due."""
    thresholds = gc.get_threshold()
    counts = gc.get_count()
    if not thresholds[0] or counts[0] < thresholds[0]:
        return None
    generation = 0
    for older in (1, 2):
        # A threshold of 0 means "never on count" (newer Pythons run the oldest generation differently).
        if older < len(thresholds) and thresholds[older] and counts[older] >= thresholds[older]:
            generation = older
        else:
            break
    gc.collect(generation)
    return generation


class MainThreadCollector(QObject):
    """While started, the cycle collector runs only from this object's thread (the UI thread)."""

    def __init__(self, parent: QObject | None = None, *, tick_ms: int = TICK_MS) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(collect_due)
        self._was_enabled = gc.isenabled()

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Automatic collection as it was before `start`, after one last collection on this thread."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()


def settle_collector() -> None:
    """Once the memory is open, take everything alive by then out of the cycle collector's reach.

    Modules, classes, Qt wrappers and the open engine (~50k objects) live until quit, yet every full
    collection walked them all again: 30-60 ms each time on the UI thread, the floor under the longest
    stalls while scrolling the timeline (bench/timeline_scroll.py).
    The price: a reference cycle among these objects, should one ever become garbage, stays until quit.
    """
    gc.collect()  # start-up's own garbage goes first, so none of it is kept for good
    gc.freeze()
