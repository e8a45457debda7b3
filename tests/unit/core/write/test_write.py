"""The write pipeline through the real engine: gate, duplicates, contradictions, redaction, bad input."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hindsight_desktop.core.errors import InvalidInput, PausedError


def count(engine, where: str = "1") -> int:
    return engine.store.db.execute(f"SELECT count(*) FROM memories WHERE {where}").fetchone()[0]


def test_personal_fact_is_stored_small_talk_is_not(engine):
    kept = engine.write("I'm allergic to peanuts and carry an EpiPen.", client="claude-code")
    chatter = engine.write("ok thanks!", client="claude-code")
    assert kept.stored and kept.layer in ("semantic", "episodic")
    assert not chatter.stored and chatter.layer == "working"
    assert set(kept.signals) == {"density", "novelty", "relevance", "emotion", "explicit"}
    hits = engine.search("thanks").hits
    assert all(h.memory.id != chatter.id for h in hits)  # working memory never enters recall


def test_explicit_instruction_always_persists(engine):
    result = engine.write("Remember this: ok", client="cursor")
    assert result.stored
    assert engine.write("记住：好的", client="cursor").stored


def test_person_added_memory_is_always_stored(engine):
    assert engine.write("hmm", explicit=True).stored


def test_caller_importance_raises_never_lowers(engine):
    low = engine.write("The team standup moved to 9:30 every weekday.", importance=0.05, client="a")
    assert low.stored  # a low importance does not sink a good memory
    assert engine.get(low.id).importance == pytest.approx(0.05)
    raised = engine.write("lol", importance=0.95, client="a")
    assert raised.stored and raised.score >= 0.95


def test_repeat_reinforces_instead_of_piling_up(engine):
    first = engine.write("My daughter Emma plays the violin.", client="a")
    again = engine.write("My daughter Emma plays the violin.", client="b")
    assert again.duplicate_of == first.id and again.id == first.id
    assert count(engine, "layer != 'working'") == 1
    assert engine.get(first.id).access_count == 1
    assert [e.kind for e in engine.events(first.id)][:2] == ["reinforce", "write"]


def test_contradiction_supersedes_and_keeps_history(engine, clock):
    old = engine.write("I live in Beijing.", client="a")
    clock.advance(days=30)
    new = engine.write("I moved to Shanghai.", client="a")
    assert old.id in new.supersedes
    previous = engine.get(old.id)
    assert previous.status == "superseded" and previous.superseded_by == new.id
    assert any(link.type == "supersedes" for link in engine.links(new.id))


def test_older_history_import_does_not_override_newer_fact(engine, clock):
    current = engine.write("I live in Shanghai.", client="a")
    engine.write("I live in Beijing.", client="a", occurred_at="2020-01-01T00:00:00Z")
    assert engine.get(current.id).status == "active"


def test_secrets_are_redacted_before_storage(engine):
    result = engine.write("Remember my OpenAI key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", client="a")
    stored = engine.get(result.id).content
    assert "sk-proj" not in stored and "[REDACTED:" in stored
    assert result.redactions == 1


def test_entities_and_relative_dates_are_extracted(engine):
    result = engine.write("Remember: dinner with Alice next Wednesday, flight CA981.", client="a")
    memory = engine.get(result.id)
    values = {(e.kind, e.value) for e in memory.entities}
    assert ("date", "2026-12-02") in values  # the clock says Wednesday 25 Nov 2026
    assert any(kind == "code" and value == "ca981" for kind, value in values)
    assert any(kind == "person" and value == "alice" for kind, value in values)


def test_same_session_memories_are_linked(engine):
    a = engine.write("Remember: the wifi password for the cabin is on the fridge.", session_id="s1", client="a")
    b = engine.write("Remember: the cabin key is under the blue flower pot.", session_id="s1", client="a")
    assert any(link.target_id == a.id and link.type == "same_session" for link in engine.links(b.id))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"content": ""}, "content is empty"),
        ({"content": "   "}, "content is empty"),
        ({"content": 42}, "content must be text"),
        ({"content": "x" * 40_000}, "limit is 32768"),
        ({"content": "fine", "importance": 2}, "importance must be between 0 and 1"),
        ({"content": "fine", "importance": "high"}, "importance must be a number"),
        ({"content": "fine", "occurred_at": "yesterday-ish"}, "not an ISO 8601 date"),
        ({"content": "fine", "scope": "public"}, "scope must be one of"),
        ({"content": "fine", "metadata": ["not", "a", "dict"]}, "metadata must be a JSON object"),
        ({"content": "fine", "type": "a type with spaces"}, "type"),
    ],
)
def test_bad_input_names_the_problem_and_writes_nothing(engine, kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        engine.write(**kwargs)
    assert count(engine) == 0
    assert engine.write("Remember: the process keeps running after bad input.").stored


def test_paused_memory_refuses_writes_but_reads(engine, tmp_path, embedder):
    from hindsight_desktop.core.engine import MemoryEngine

    engine.write("Remember: my bike lock code is written in my notebook.")
    other = MemoryEngine(engine.data_dir, embedder=embedder)  # another process on the same file
    other.set_paused(True)
    with pytest.raises(PausedError, match="paused"):
        engine.write("Remember: something new")
    assert engine.search("bike lock").hits
    other.set_paused(False)
    assert engine.write("Remember: something new").stored
    other.close()


def test_new_settings_apply_at_once(engine):
    from dataclasses import replace

    assert not engine.write("lol ok", client="a").stored
    engine.apply_settings(replace(engine.settings, write_threshold=0.0, recall_half_life_days=3.0))
    assert engine.write("hmm sure", client="a").stored
    assert engine.parts.settings.recall_half_life_days == 3.0
    with pytest.raises(InvalidInput, match="threshold"):
        engine.apply_settings(replace(engine.settings, write_threshold=2.0))
    assert engine.settings.write_threshold == 0.0  # a refused change leaves everything as it was


def test_a_near_copy_with_another_name_or_number_is_not_a_duplicate(engine):
    """A duplicate says the same thing: another person's name or another number makes a new memory."""
    first = engine.write("Alex noted that invoice 107 is due on the 11th.", client="desk-a", importance=0.8)
    other_name = engine.write("Blake noted that invoice 107 is due on the 11th.", client="desk-b", importance=0.8)
    other_number = engine.write("Alex noted that invoice 108 is due on the 11th.", client="desk-a", importance=0.8)
    again = engine.write("Alex noted that invoice 107 is due on the 11th!", client="desk-a", importance=0.8)
    assert len({first.id, other_name.id, other_number.id}) == 3
    assert again.id == first.id  # the same statement again reinforces the memory


# ---- what a write may change of what others wrote (issue 17 §2) -----------------------------------


def test_a_write_supersedes_only_inside_its_own_privacy_group(engine, clock):
    person = engine.write("I live in Berlin.").id  # the person's own shared fact (CLI)
    mine = engine.write("I live in Rome.", client="mallory", scope="private").id
    clock.advance(days=1)
    private = engine.write("I live in Tokyo.", client="mallory", scope="private")
    # A private statement replaces only its writer's private statements: the shared fact stays current.
    assert private.supersedes == [mine]
    assert engine.get(person).status == "active" and engine.get(person).superseded_by is None
    clock.advance(days=1)
    shared = engine.write("I live in Paris.", client="victim")
    # A shared statement replaces the shared one, never a client's private one.
    assert shared.supersedes == [person]
    assert engine.get(private.id).status == "active"
    # An older private statement arriving later is judged against its own group only.
    late = engine.write("I live in Oslo.", client="victim", scope="private", occurred_at="2020-01-01T00:00:00Z")
    assert late.supersedes == [] and engine.get(late.id).status == "active"
    assert engine.get(shared.id).status == "active"


def test_a_timestamp_far_ahead_is_refused_and_a_near_one_never_wins(engine, clock):
    with pytest.raises(InvalidInput, match=r"timestamp 2199-12-31.* more than a day ahead"):
        engine.write("I live in Lima.", client="mallory", occurred_at="2199-12-31T00:00:00Z")
    assert count(engine) == 0
    # Within the day's slack (clocks and zones differ) it is stored, but counts as made when written:
    # the person's statement an hour later is the newer one.
    ahead = engine.write("I live in Quito.", client="mallory", occurred_at=clock.now + timedelta(hours=20)).id
    clock.advance(hours=1)
    later = engine.write("I live in Paris.")
    assert later.supersedes == [ahead] and engine.get(ahead).superseded_by == later.id


def test_recency_counts_from_no_later_than_the_write(engine, clock):
    honest = engine.write("Remember: the heron nests by the north pond.", client="a", gate=False).id
    ahead = engine.write(
        "Remember: the heron feeds by the south pond.",
        client="a",
        gate=False,
        occurred_at=clock.now + timedelta(hours=23),
    ).id
    clock.advance(days=30)
    scores = {h.memory.id: h.scores for h in engine.search("heron pond", log=False).hits}
    assert scores[ahead]["recency"] == pytest.approx(scores[honest]["recency"], abs=1e-3)
    assert scores[ahead]["recency"] < 0.9


def test_a_repeat_by_another_writer_changes_nothing_it_did_not_write(engine):
    first = engine.write(
        "My daughter Emma plays the cello.", client="a", type="fact", importance=0.4, metadata={"source": "a"}
    )
    before = engine.get(first.id)
    again = engine.write(
        "My daughter Emma plays the cello.",
        client="b",
        type="instruction",
        importance=1.0,
        metadata={"verified": False, "note": "call b instead"},
    )
    assert again.duplicate_of == first.id
    after = engine.get(first.id)
    assert (after.content, after.metadata, after.importance, after.type, after.client, after.scope) == (
        before.content,
        before.metadata,
        before.importance,
        before.type,
        before.client,
        before.scope,
    )
    assert after.access_count == before.access_count + 1  # the repeat still counts as evidence of use
    repeat = engine.events(first.id)[0]
    assert (repeat.kind, repeat.client, repeat.detail) == ("reinforce", "b", {"repeated_by": "b", "writer": "a"})
    # Its own writer may still add to it, as before.
    engine.write("My daughter Emma plays the cello.", client="a", metadata={"teacher": "Ms Ito"})
    assert engine.get(first.id).metadata == {"source": "a", "teacher": "Ms Ito"}
