"""The embedder's thread choice: try each option, use the cheapest, look again now and then."""

from hindsight_desktop.core.model.thread_choice import PROBE_EVERY, ThreadChooser


def _feed(chooser: ThreadChooser, cost_ms: dict[int, float], calls: int) -> list[int]:
    picked = []
    for _ in range(calls):
        threads = chooser.choose()
        picked.append(threads)
        chooser.record(threads, 90, cost_ms[threads] / 1000)
    return picked


def test_options_are_one_two_and_most() -> None:
    assert ThreadChooser(1).options == [1]
    assert ThreadChooser(2).options == [1, 2]
    assert ThreadChooser(4).options == [1, 2, 4]
    assert ThreadChooser(0).options == [1]


def test_single_option_is_always_chosen() -> None:
    chooser = ThreadChooser(1)
    assert set(_feed(chooser, {1: 10.0}, 60)) == {1}


def test_cheapest_wins_and_others_are_probed_rarely() -> None:
    chooser = ThreadChooser(2)
    picked = _feed(chooser, {1: 11.0, 2: 6.0}, 10 * PROBE_EVERY)
    assert picked[0] == 2  # the most threads are tried first
    assert chooser.best() == 2
    assert picked.count(1) <= 10 + 1


def test_a_busy_machine_moves_the_choice_and_an_idle_one_moves_it_back() -> None:
    chooser = ThreadChooser(2)
    _feed(chooser, {1: 11.0, 2: 6.0}, 50)
    assert chooser.best() == 2
    # Another process takes a core: two threads now cost far more than one.
    tail = _feed(chooser, {1: 11.0, 2: 30.0}, 30)
    assert chooser.best() == 1
    assert tail[-10:].count(1) >= 9
    # The machine is idle again: a probe notices, and two threads come back.
    _feed(chooser, {1: 11.0, 2: 6.0}, 6 * PROBE_EVERY)
    assert chooser.best() == 2


def test_cost_is_per_character() -> None:
    """A long text that takes longer is not held against the choice that embedded it."""
    chooser = ThreadChooser(2)
    chooser.record(2, 2000, 0.100)  # 100 ms for a long text
    chooser.record(1, 20, 0.010)  # 10 ms for a short one
    assert chooser.best() == 2


def test_bad_records_are_ignored() -> None:
    chooser = ThreadChooser(2)
    chooser.record(3, 50, 0.01)  # not an option
    chooser.record(2, 50, -1.0)  # a clock that went backwards
    assert chooser.choose() == 2  # still untried


def test_a_queue_for_the_model_gets_the_most_threads() -> None:
    """One call at a time follows the cheaper choice; calls waiting behind it get the most threads."""
    chooser = ThreadChooser(4)
    _feed(chooser, {1: 11.0, 2: 30.0, 4: 40.0}, 50)
    assert chooser.best() == 1 and chooser.choose() == 1
    assert chooser.choose(waiting=3) == 4
    assert chooser.choose(waiting=0) == 1
