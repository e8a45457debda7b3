"""A statement that changes a stored one: the gate keeps it whatever else it scores, it supersedes the
memory it changes when written, and recall lists the newer of two values first. Phrased unlike the
benches' sentences on purpose: the mechanism, not a sentence, is under test."""

from __future__ import annotations

from hindsight_desktop.core.write.gate import WriteScorer
from hindsight_desktop.core.write.gate_change import (
    RESTATES,
    about_same_thing,
    changed_neighbour,
    names_what_changed,
    owner_only,
    restated_closeness,
    says_changed,
)


def test_change_cues_in_both_languages():
    assert says_changed("Ballet is off the table; from next term Mia takes judo on Fridays.")
    assert says_changed("The Corolla went to a dealer and we replaced it with a secondhand Leaf.")
    assert says_changed("周四的书法课不上了，从下周起改成围棋。")
    assert says_changed("表哥已经不在银行了，去了一家律所。")
    assert not says_changed("Mia takes judo on Fridays.")
    assert not says_changed("周四下午有书法课。")


def test_gai_before_a_verb_says_a_switch():
    # 改 + a verb is "now does that instead", whatever the verb; 改天 (another day), 改善 (improve) and
    # 修改 (edit) are no switch.
    assert says_changed("舅舅的降压药吃完了，医生让他改吃另一种。")
    assert says_changed("地铁太挤，姑姑改骑共享单车上班。")
    for text in ("改天请你吃饭。", "食堂的伙食要改善一下。", "我在修改项目计划书。"):
        assert not says_changed(text), text


def test_the_gate_keeps_a_change_it_would_otherwise_drop():
    rules = WriteScorer()
    for text in ("周四的书法课不上了，从下周起改成围棋。", "Swapped the gym membership for a climbing pass instead"):
        verdict = rules.score(text, novelty=0.2)
        assert verdict.passed and verdict.changes, (text, verdict.reason)
        assert "change" in verdict.reason


def test_a_passing_state_or_a_question_with_a_change_word_is_not_kept_for_it():
    rules = WriteScorer()
    assert not rules.score("i'm not hungry anymore lol", novelty=0.2).changes
    assert not rules.score("did you move the meeting to friday?", novelty=0.2).changes
    assert not rules.score("haha ok", related=0.9).passed


def test_restating_a_stored_memory_differently_is_kept():
    rules = WriteScorer()
    plain = rules.score("Mia does judo on Fridays at the leisure centre", novelty=0.1)
    restated = rules.score("Mia does judo on Fridays at the leisure centre", novelty=0.1, related=RESTATES)
    assert restated.passed and restated.changes
    assert restated.score == plain.score  # kept as a change, not by a score it does not have


def test_about_the_same_thing_needs_a_shared_subject_new_words_and_no_repeat():
    old = "Mia takes ballet on Fridays."
    assert about_same_thing("From next term Mia takes judo on Fridays.", old, 0.6)
    assert not about_same_thing("From next term Mia takes judo on Fridays.", old, RESTATES - 0.01)  # too far
    assert not about_same_thing("Mia takes ballet on Fridays now.", old, 0.99)  # a repeat
    assert not about_same_thing("The boiler was serviced in spring.", old, 0.6)  # no subject in common
    near = [(0.7, "The boiler was serviced in spring."), (0.5, old)]
    assert restated_closeness("From next term Mia takes judo on Fridays.", near) == 0.5


def test_the_closest_changed_neighbour_is_the_one_replaced():
    text = "Mia quit ballet; from next term she takes judo on Fridays instead."
    neighbours = [("a", 0.5, "Mia takes ballet on Fridays."), ("b", 0.7, "Mia's ballet shoes are size 32.")]
    assert changed_neighbour(text, neighbours) == "b"
    assert changed_neighbour("Mia takes judo on Fridays.", neighbours) is None  # no change said
    assert changed_neighbour(text, [("c", 0.8, "The boiler was serviced in spring.")]) is None


def test_a_restatement_of_the_same_value_replaces_nothing():
    # "moved to" is a change word, but the city is the one already stored.
    stored = [("a", 0.8, "Our flat is in Lisbon, near the river.")]
    assert changed_neighbour("We moved to a flat in Lisbon last year.", stored) is None
    assert changed_neighbour("We moved to a flat in Porto last year.", stored) == "a"


def test_another_thing_of_the_same_owner_is_not_replaced():
    # Both name one owner ("外婆的…", "Omar's…") and then two different things of it: a change to
    # one says nothing of the other, however close the two sentences sit.
    stored = [("a", 0.8, "外婆的老花镜是在眼镜城配的，三百度。")]
    assert changed_neighbour("外婆的助听器换成了西门子的新款。", stored) is None
    assert changed_neighbour("外婆的老花镜换成了四百度的。", stored) == "a"  # the same thing: replaced
    stored = [("b", 0.8, "Omar's bike is a blue Trek hybrid.")]
    assert changed_neighbour("Omar's helmet was replaced by a Giro one.", stored) is None
    assert changed_neighbour("Omar's bike was replaced by a Brompton.", stored) == "b"
    # A shared word that is no owner in one of them ("Omar rides…") still lets a change replace.
    assert owner_only("Omar's helmet was replaced by a Giro one.", "Omar rides a blue Trek.") is False
    assert owner_only("Omar's helmet is new.", "The boiler was serviced.") is False  # nothing shared


def test_a_change_replaces_only_a_memory_that_names_what_changed():
    # The words before the change cue say what changed (老家的电费); a memory about another bill that
    # shares only how it is paid ("自动扣") is not replaced by it.
    text = "老家的电费现在改成了用工行卡自动扣款。"
    assert changed_neighbour(text, [("net", 0.6, "家里的网费绑在我的信用卡上自动扣。")]) is None
    assert changed_neighbour(text, [("power", 0.6, "老家的电费是我爸每月去营业厅交的。")]) == "power"
    # Only words that say when stand before the cue: nothing names what changed, so nothing blocks it.
    assert names_what_changed("现在改成了每周二上午上课。", "朵朵每周一上午上美术课。")
    # English words match in their other forms ("photo backups" beside "my photos").
    assert names_what_changed("The photo backups moved to a NAS instead.", "I back up my photos to a USB drive.")
