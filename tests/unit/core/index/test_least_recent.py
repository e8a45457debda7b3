"""The bounded cache of postings and codes lets go of the least recently used entries, only as many as the
new one needs room for."""

from __future__ import annotations

from hindsight_desktop.core.index.least_recent import LeastRecent


def test_the_least_recently_used_go_first_and_only_as_many_as_needed():
    kept: LeastRecent[str, list[int]] = LeastRecent(10, len)
    kept.put("a", [1] * 4)
    kept.put("b", [1] * 3)
    kept.put("c", [1] * 2)
    assert kept.get("a") == [1] * 4  # now the most recently used: "b" is the oldest
    kept.put("d", [1] * 3)  # 9 + 3 > 10: "b" goes, and that is room enough
    assert "b" not in kept and {"a", "c", "d"} == {key for key, _ in kept.items()}
    assert kept.size == 9
    kept.put("e", [1] * 6)  # "c" then "a" go, oldest first, until 6 more fit
    assert [key for key, _ in kept.items()] == ["d", "e"] and kept.size == 9


def test_a_value_larger_than_the_limit_is_not_kept_and_takes_nothing_away():
    kept: LeastRecent[str, list[int]] = LeastRecent(5, len)
    kept.put("a", [1, 2])
    kept.put("huge", [0] * 6)
    assert "huge" not in kept and kept.get("a") == [1, 2] and kept.size == 2


def test_putting_a_key_again_replaces_its_value_and_size():
    kept: LeastRecent[str, list[int]] = LeastRecent(10, len)
    kept.put("a", [1] * 8)
    kept.put("a", [1] * 2)
    kept.put("b", [1] * 7)
    assert kept.get("a") == [1] * 2 and kept.size == 9
    kept.pop("a")
    kept.pop("missing")
    assert kept.size == 7 and kept.get("a", [0]) == [0] and len(kept) == 1
