"""How many CPU threads llama.cpp gets for the next embedding, chosen from what recent calls cost.

On an idle two-core machine two threads embed a sentence in about half the time of one. When another
process keeps a core busy, the second thread waits for it and the same call takes longer than one
thread alone (bench/embed_threads.py, bench/NOTES.md). No fixed choice is right for both, so each
choice is timed, the cheaper one is used, and the others are tried again now and then in case the
machine has changed.

That choice is about one call's time. When other calls queue for the model behind this one, the model is
what every caller waits for and its throughput is what counts: then the most threads are used, which
emptied the queue fastest under load (bench/mcp_load.py --variants auto,threads1,threads2).
"""

from __future__ import annotations

import threading

# Every this many calls one goes to a choice that is not the cheapest, to notice a change.
PROBE_EVERY = 24
# Weight of the newest measurement in each choice's running cost.
SMOOTHING = 0.25
# A call costs this many characters' worth of time before its text counts (building the graph,
# starting the threads), so a very short text does not look expensive per character.
CALL_OVERHEAD_CHARS = 16


class ThreadChooser:
    """Picks a thread count among 1, 2 and `most`, from each one's smoothed cost per character."""

    def __init__(self, most: int) -> None:
        most = max(1, int(most))
        self.options = sorted({1, min(2, most), most})
        self._cost: dict[int, float | None] = dict.fromkeys(self.options)
        self._calls = 0
        self._lock = threading.Lock()

    def choose(self, waiting: int = 0) -> int:
        """The thread count for the next call; `waiting`: how many other calls queue for the model."""
        with self._lock:
            self._calls += 1
            if waiting > 0:
                return self.options[-1]
            untried = [n for n, cost in self._cost.items() if cost is None]
            if untried:
                return untried[-1]  # the most threads first: the likely winner on an idle machine
            best = self.best()
            if len(self.options) > 1 and self._calls % PROBE_EVERY == 0:
                others = [n for n in self.options if n != best]
                return others[(self._calls // PROBE_EVERY) % len(others)]
            return best

    def record(self, threads: int, chars: int, seconds: float) -> None:
        """What a call with `threads` threads over `chars` characters of text took."""
        if threads not in self._cost or seconds < 0:
            return
        per_char = seconds / (max(0, chars) + CALL_OVERHEAD_CHARS)
        with self._lock:
            old = self._cost[threads]
            self._cost[threads] = per_char if old is None else old + SMOOTHING * (per_char - old)

    def best(self) -> int:
        """The choice with the lowest running cost (the fewer threads on a tie); the most threads while
        none has been timed yet."""
        known = {n: cost for n, cost in self._cost.items() if cost is not None}
        if not known:
            return self.options[-1]
        return min(known, key=lambda n: (known[n], n))
