"""Disjoint spans of a text, kept sorted: whether a new span overlaps any of them in O(log n).

Extraction claims characters as it finds entities and dates; a text dense with them (a 32 KB list
of times or amounts holds thousands) made a check against every earlier claim quadratic.
"""

from __future__ import annotations

from bisect import bisect_right


class Taken:
    """Spans [start, end) that never overlap one another."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def free(self, start: int, end: int) -> bool:
        """No taken span overlaps [start, end)."""
        i = bisect_right(self._starts, start)
        if i and self._ends[i - 1] > start:
            return False
        return i == len(self._starts) or self._starts[i] >= end

    def take(self, start: int, end: int) -> bool:
        """Claim [start, end) if it is free; say whether it was."""
        if not self.free(start, end):
            return False
        i = bisect_right(self._starts, start)
        self._starts.insert(i, start)
        self._ends.insert(i, end)
        return True
