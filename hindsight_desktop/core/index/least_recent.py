"""A bounded cache that lets go of what was used least recently, for what a search reads again.

A search's postings and vector codes are kept so the next search that asks for them reads nothing from
the file. Emptying a whole cache when it fills threw away what the next question needed along with what
no question asks any more; here each entry has a size (posting rows, codes), and only the entries used
longest ago make room for a new one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LeastRecent(Generic[K, V]):
    """Up to `limit` units of values (each `size_of` units), the least recently used going first."""

    def __init__(self, limit: int, size_of: Callable[[V], int] = lambda _: 1) -> None:
        self.limit = limit
        self._size_of = size_of
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.size = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value kept for `key`, now the most recently used (default if none)."""
        found = self._entries.get(key)
        if found is None:
            return default
        self._entries.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V) -> None:
        """Keep `value` for `key` as the most recently used; a value larger than the limit is not kept."""
        self.pop(key)
        size = self._size_of(value)
        if size > self.limit:
            return
        while self._entries and self.size + size > self.limit:
            _, (_, gone) = self._entries.popitem(last=False)
            self.size -= gone
        self._entries[key] = (value, size)
        self.size += size

    def pop(self, key: K) -> V | None:
        """Let go of `key`'s value, if kept; the value (None if none)."""
        found = self._entries.pop(key, None)
        if found is None:
            return None
        self.size -= found[1]
        return found[0]

    def pop_oldest(self) -> tuple[K, V] | None:
        """Let go of the least recently used entry; it (None if nothing is kept)."""
        if not self._entries:
            return None
        key, (value, size) = self._entries.popitem(last=False)
        self.size -= size
        return key, value

    def items(self) -> list[tuple[K, V]]:
        """Every kept (key, value), the least recently used first."""
        return [(key, value) for key, (value, _) in self._entries.items()]

    def clear(self) -> None:
        self._entries.clear()
        self.size = 0
