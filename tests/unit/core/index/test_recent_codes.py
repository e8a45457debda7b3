"""The codes kept from a large store's file reads: each row's own codes back, the least recently read
giving up its place, and nothing of a discarded row left behind."""

from __future__ import annotations

import numpy as np

from hindsight_desktop.core.index.recent_codes import RecentCodes


def _codes(rowids: list[int], dim: int = 4) -> tuple[np.ndarray, np.ndarray]:
    return np.array([[r % 127] * dim for r in rowids], dtype=np.int8), np.array(rowids, dtype=np.float32) / 10


def test_kept_rows_come_back_with_their_own_codes_in_the_order_asked():
    recent = RecentCodes(8, 4)
    recent.keep([5, 9, 2], *_codes([5, 9, 2]))
    kept, codes, scale = recent.find([2, 7, 9, 5])
    assert kept.tolist() == [True, False, True, True]
    want_codes, want_scale = _codes([2, 9, 5])
    assert np.array_equal(codes, want_codes) and np.array_equal(scale, want_scale)


def test_the_least_recently_read_give_up_their_places_first():
    recent = RecentCodes(3, 4)
    recent.keep([1, 2, 3], *_codes([1, 2, 3]))
    recent.find([1])  # read again: 2 is now the oldest
    recent.keep([4, 5], *_codes([4, 5]))  # take the places of 2, then 3
    kept, codes, _ = recent.find([1, 2, 3, 4, 5])
    assert kept.tolist() == [True, False, False, True, True] and len(recent) == 3
    assert np.array_equal(codes, _codes([1, 4, 5])[0])


def test_a_discarded_row_leaves_no_codes_and_frees_its_place():
    recent = RecentCodes(2, 4)
    recent.keep([1, 2], *_codes([1, 2]))
    recent.discard(1)
    assert not recent._codes[recent._free[-1]].any()  # zeroed where it was
    recent.keep([3], *_codes([3]))  # into the freed place: 2 stays
    kept, codes, _ = recent.find([1, 2, 3])
    assert kept.tolist() == [False, True, True] and np.array_equal(codes, _codes([2, 3])[0])
    recent.keep([3], *_codes([3]))  # kept again: one place, not two
    assert len(recent) == 2
    recent.clear()
    assert len(recent) == 0 and not recent.find([2, 3])[0].any()
