"""The int8 codes a large store's searches read from the file lately, kept for the searches after them.

Past `vector_cache.HOLD_CODES_UP_TO` vectors the codes are not held, and each search reads its candidates'
codes from the file: a page each, and on a store larger than the OS keeps in its cache, a disk read each.
A search asks for the same rows 3-4 times, and a person's next questions share many candidates with the
last ones. The codes live in one array of fixed size (a row object each would cost more than the code),
the least recently read giving up their places first.
"""

from __future__ import annotations

import numpy as np

from hindsight_desktop.core.index.least_recent import LeastRecent


class RecentCodes:
    """Up to `capacity` rows' codes and scales, by rowid."""

    def __init__(self, capacity: int, dim: int) -> None:
        self.capacity = capacity
        self.dim = dim
        self._place: LeastRecent[int, int] = LeastRecent(capacity)  # rowid -> its row in the arrays
        self._codes = np.zeros((0, dim), dtype=np.int8)  # made when first needed: a held cache needs none
        self._scale = np.zeros(0, dtype=np.float32)
        self._free: list[int] = []  # places given up by discarded rows
        self._used = 0  # places ever taken: those past it have never held a row

    def __len__(self) -> int:
        return len(self._place)

    def find(self, rowids: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Which of `rowids` are kept (a mask), and the codes and scales of those, in that order."""
        places = [self._place.get(rowid, -1) for rowid in rowids]
        at = np.array(places, dtype=np.int64)
        kept = at >= 0
        return kept, self._codes[at[kept]], self._scale[at[kept]]

    def keep(self, rowids: list[int], codes: np.ndarray, scale: np.ndarray) -> None:
        """Keep these rows' codes, each in a free place or in the least recently read row's."""
        if not len(self._codes) and rowids:
            self._codes = np.zeros((self.capacity, self.dim), dtype=np.int8)
            self._scale = np.zeros(self.capacity, dtype=np.float32)
        for rowid, row_codes, row_scale in zip(rowids, codes, scale, strict=True):
            self.discard(rowid)  # kept already: its place is taken anew
            if self._free:
                place = self._free.pop()
            elif self._used < self.capacity:
                place, self._used = self._used, self._used + 1
            else:
                oldest = self._place.pop_oldest()
                if oldest is None:  # a capacity of 0 keeps nothing
                    return
                place = oldest[1]
            self._codes[place], self._scale[place] = row_codes, row_scale
            self._place.put(rowid, place)

    def discard(self, rowid: int) -> None:
        """Let go of one row's codes (its vector changed or went)."""
        place = self._place.pop(rowid)
        if place is not None:
            self._codes[place], self._scale[place] = 0, 0  # a removed vector's codes must not linger
            self._free.append(place)

    def clear(self) -> None:
        """Let go of every row's codes, and of the arrays."""
        self._place.clear()
        self._codes = np.zeros((0, self.dim), dtype=np.int8)
        self._scale = np.zeros(0, dtype=np.float32)
        self._free = []
        self._used = 0
