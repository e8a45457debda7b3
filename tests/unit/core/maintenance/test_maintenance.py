"""Maintenance: decay with spaced reinforcement, pins, merges with history, contradictions, consolidation,
capacity, bounded batches that stop and resume, and the record of every run."""

from __future__ import annotations

import json

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy

LEGACY_KEYS = {
    "expired_working",
    "archived",
    "merged",
    "capacity_archived",
    "orphan_index_rows",
    "repaired",
    "dead_links",
    "seconds",
}


def _add(engine, text, importance, layer="episodic", **kw):
    return engine.write(text, importance=importance, layer=layer, explicit=True, **kw).id


def _use(engine, word):
    """One recall that finds exactly the memory containing `word`."""
    hits = engine.search(word, mode="keyword", limit=1).hits
    assert len(hits) == 1
    return hits[0].memory.id


def _stability(engine, memory_id):
    return engine.store.db.execute("SELECT stability FROM memories WHERE id = ?", (memory_id,)).fetchone()[0]


def test_decay_archives_exactly_what_the_policy_says(engine, clock):
    # Default policy: half-life 60 days (x2 for semantic, x stability), archive when unused for 30 days
    # and strength = importance * 0.5 ** (idle / half-life) is under 0.3.
    weak = _add(engine, "Walked past the aardvark mural downtown.", 0.2)  # idle 100 d: 0.14 -> archive
    strong = _add(engine, "Saw a heron by the canal near the bakery.", 0.9)  # idle 100 d: 0.28 -> archive
    fact = _add(engine, "The boiler service code is under the stairs.", 0.9, layer="semantic")  # 0.51 -> keep
    pinned = _add(engine, "Grandpa's pocket watch is in the blue tin.", 0.1)  # pinned: never fades
    engine.edit(pinned, pinned=True)
    spaced = _add(engine, "The zebra crossing on Elm street got repainted.", 0.5)
    massed = _add(engine, "The yak wool scarf came from the Saturday market.", 0.5)
    twice = _add(engine, "The quokka poster hangs in the hallway.", 0.5)
    clock.advance(days=20)
    assert _use(engine, "zebra") == spaced  # a use after a gap: half-life x2
    assert _use(engine, "yak") == massed
    clock.advance(hours=1)
    _use(engine, "yak")  # again within the hour: massed, counts once
    _use(engine, "quokka")
    clock.advance(days=20)
    _use(engine, "quokka")  # a second spaced use: half-life x4
    clock.advance(days=31)
    recent = _add(engine, "A new ibis nested on the roof.", 0.2)  # weak but unused for only 29 days: kept
    clock.advance(days=29)

    assert (_stability(engine, spaced), _stability(engine, massed), _stability(engine, twice)) == (2.0, 2.0, 4.0)
    report = engine.run_maintenance()
    archived = {m.id for m in engine.list_memories() if m.status == "archived"}
    assert archived == {weak, strong}
    assert report["archived"] == 2
    # The same decisions straight from the policy: spaced (idle 80 d, half-life 120 d) keeps 0.315.
    policy = MaintenancePolicy()
    assert not policy.fades(0.5, "episodic", 2.0, idle_days=80) and policy.fades(0.5, "episodic", 1.0, idle_days=80)
    assert policy.fades(0.9, "episodic", 1.0, idle_days=100) and not policy.fades(0.9, "semantic", 1.0, 100)
    assert {fact, pinned, recent, spaced, massed, twice}.isdisjoint(archived)
    why = [e.detail for e in engine.events(weak) if e.kind == "forget"]
    assert why == [{"mode": "archive", "why": "faded"}]
    clock.advance(days=3000)
    engine.run_maintenance()
    assert engine.get(pinned).status == "active"  # pinned survives any amount of time


def test_capacity_archives_the_weakest_and_spares_pinned(engine, clock):
    ids = [
        _add(engine, text, imp, client="tool")
        for text, imp in (
            ("The ferry to Hydra leaves at noon.", 0.9),
            ("The tram pass renews in June.", 0.2),
            ("The spare key is with the neighbour.", 0.8),
            ("The plant needs water on Fridays.", 0.3),
            ("The router password card is in the drawer.", 0.1),
        )
    ]
    engine.edit(ids[4], pinned=True)
    report = engine.run_maintenance(capacity_per_client=2)
    assert report["capacity_archived"] == 2
    assert {m.id for m in engine.list_memories() if m.status == "archived"} == {ids[1], ids[3]}
    assert engine.get(ids[4]).status == "active"


def test_merge_keeps_the_union_and_the_history(engine):
    first = engine.write("Remember that I drink oat milk in my coffee.", gate=False, session_id="s1").id
    second = engine.write("Remember that I drink oat milk with my coffee.", gate=False, session_id="s2").id
    other = engine.write("Remember: the espresso machine is a Gaggia from Milan.").id
    engine.link(second, other, "mentions")
    engine.search("oat milk with my coffee", limit=2)
    before = {m.id: m.access_count for m in (engine.get(first), engine.get(second))}
    report = engine.run_maintenance()
    assert report["merged"] == 1 and report["merges"] == [
        {"survivor": first, "absorbed": second, "similarity": report["merges"][0]["similarity"]}
    ]
    survivor, absorbed = engine.get(first), engine.get(second)
    assert absorbed.status == "superseded" and absorbed.superseded_by == first
    assert survivor.access_count == sum(before.values())
    links = {(link.source_id, link.target_id, link.type) for link in engine.links(first)}
    assert (first, other, "mentions") in links and (first, second, "merged_from") in links
    merge = [e for e in engine.events(first) if e.kind == "merge"][0]
    assert merge.detail["absorbed"] == second and "with my coffee" not in json.dumps(merge.detail)  # ids only
    assert [e.kind for e in engine.events(second)][-1] == "write"  # the absorbed memory keeps its own history
    assert engine.run_maintenance()["merged"] == 0  # nothing left to merge


def test_merge_never_crosses_layers_or_privacy(engine):
    text = "Remember that the garage door code is kept in the red notebook."
    mine = engine.write(text, client="a", scope="private", gate=False).id
    theirs = engine.write(text + " ", client="b", scope="private", gate=False).id
    semantic = engine.write(
        text.replace("kept", "stored"), layer="semantic", client="a", scope="private", gate=False
    ).id
    assert engine.run_maintenance()["merged"] == 0
    assert {engine.get(i).status for i in (mine, theirs, semantic)} == {"active"}


def test_contradictions_missed_at_write_time_are_resolved_newest_wins(engine, clock):
    green = engine.write("My favourite colour is green.").id
    clock.advance(days=1)
    note = engine.write("Remember: paint samples arrive on Monday.").id
    engine.edit(note, content="My favourite colour is blue.")  # an edit does not pass the write path's check
    moved = engine.write("I live in Berlin.").id
    clock.advance(days=1)
    berlin_later = engine.write("I live in Paris.").id  # supersedes Berlin at write time
    engine.restore(moved)  # ...and a restore brings Berlin back
    report = engine.run_maintenance()
    assert report["contradictions"] == 2
    assert engine.get(green).status == "superseded" and engine.get(green).superseded_by == note
    assert engine.get(moved).superseded_by == berlin_later and engine.get(berlin_later).status == "active"
    event = [e for e in engine.events(green) if e.kind == "supersede"][0]
    assert event.detail == {"superseded_by": note, "why": "contradiction"}  # no fact values: memory text
    assert (note, green, "supersedes") in {(k.source_id, k.target_id, k.type) for k in engine.links(green)}
    assert engine.run_maintenance()["contradictions"] == 0


def test_fact_keys_are_refreshed_batch_by_batch_and_a_stopped_run_resumes(engine, clock):
    """Edits that turn five notes into five answers to one question, refreshed two at a time, with the
    run stopped after the first batch: the next run carries on and the newest answer wins."""
    colours = ["green", "blue", "red", "amber", "violet"]
    notes = [
        "Remember: the plumber comes on Tuesday.",
        "Remember: Lena's flight lands at nine.",
        "Remember: the library book is due on Friday.",
        "Remember: the car needs new winter tyres.",
        "Remember: call the bank about the lost card.",
    ]
    ids = []
    for note in notes:
        ids.append(engine.write(note).id)
        clock.advance(hours=1)
    assert len(set(ids)) == 5
    for mid, colour in zip(ids, colours, strict=True):
        engine.edit(mid, content=f"My favourite colour is {colour}.")
    seen: list[str] = []
    first = engine.run_maintenance(
        batch=2, progress=lambda name, _: seen.append(name), should_stop=lambda: seen[-1] == "contradictions"
    )
    assert first["run"]["status"] == "stopped" and first["run"]["stopped_at"] == "contradictions"
    assert all(engine.get(mid).status == "active" for mid in ids)  # only two keys refreshed so far
    second = engine.run_maintenance(batch=2)
    assert second["run"]["resumed_from"] == "contradictions" and second["contradictions"] == 4
    assert engine.get(ids[-1]).status == "active"
    assert all(engine.get(mid).superseded_by == ids[-1] for mid in ids[:-1])
    assert engine.run_maintenance(batch=2)["contradictions"] == 0


OAT = [
    "I had oat milk in my coffee again this morning.",
    "This morning I took my coffee with oat milk, as usual.",
    "Had my usual coffee with oat milk before work.",
]


def test_repeated_episodes_become_one_semantic_memory_linked_to_its_evidence(engine, clock):
    ids = []
    for text in OAT:
        ids.append(engine.write(text, layer="episodic", explicit=True).id)
        clock.advance(days=1)
    flight = [
        engine.write(f"My flight to Oslo leaves at {t}.", layer="episodic", explicit=True).id
        for t in ("7:10", "9:40", "18:05")
    ]
    report = engine.run_maintenance()
    assert report["consolidated"] == 1
    made = report["consolidations"][0]
    semantic = engine.get(made["semantic"])
    assert semantic.layer == "semantic" and semantic.content in OAT and sorted(made["evidence"]) == sorted(ids)
    assert semantic.metadata["consolidated_from"] == made["evidence"]
    evidence = {k.target_id for k in engine.links(semantic.id) if k.type == "derived_from"}
    assert evidence == set(ids)
    assert all((engine.get(i).status, engine.get(i).superseded_by) == ("superseded", semantic.id) for i in ids)
    assert all(engine.get(i).layer == "episodic" for i in flight)  # close in meaning, different times
    assert engine.search("do I take milk in coffee?").hits[0].memory.id == semantic.id
    later = engine.write("Oat milk in my coffee again this morning, as usual.", layer="episodic", explicit=True).id
    again = engine.run_maintenance()
    assert again["consolidated"] == 0 and again["evidence_added"] == 1
    assert later in {k.target_id for k in engine.links(semantic.id) if k.type == "derived_from"}


def test_statements_of_the_same_fact_are_consolidated(engine, clock):
    ids = []
    for text in ("I live in Lisbon now.", "I moved to Lisbon last year.", "I live in Lisbon with my cat."):
        ids.append(engine.write(text, layer="episodic", explicit=True).id)
        clock.advance(days=2)
    report = engine.run_maintenance()
    assert report["consolidated"] == 1
    semantic = engine.get(report["consolidations"][0]["semantic"])
    assert semantic.layer == "semantic" and set(semantic.metadata["consolidated_from"]) == set(ids)


def test_a_summarizer_may_write_the_fact(engine, clock):
    for text in OAT:
        engine.write(text, layer="episodic", explicit=True)
        clock.advance(days=1)
    seen = []

    def summarize(statements):
        seen.append(statements)
        return "I take oat milk in my coffee."

    report = engine.run_maintenance(summarizer=summarize)
    assert seen and len(seen[0]) == 3
    semantic = engine.get(report["consolidations"][0]["semantic"])
    assert semantic.content == "I take oat milk in my coffee." and semantic.metadata["method"] == "summarizer"


def test_runs_stop_at_a_batch_boundary_and_resume(engine, clock):
    things = [
        "kettle",
        "violin",
        "tractor",
        "lantern",
        "compass",
        "saddle",
        "teapot",
        "anchor",
        "easel",
        "harp",
        "sled",
        "loom",
    ]
    faded = [_add(engine, f"Saw an old {thing} in a shop window.", 0.1) for thing in things]
    clock.advance(days=40)
    stages = []

    def progress(stage, batches):
        stages.append(stage)

    first = engine.run_maintenance(batch=5, progress=progress, should_stop=lambda: stages[-1] == "faded")
    assert first["run"]["status"] == "stopped" and first["run"]["stopped_at"] == "faded"
    assert first["archived"] == 5
    second = engine.run_maintenance(batch=5)
    assert second["run"]["resumed_from"] == "faded" and second["run"]["status"] == "done"
    assert second["archived"] == 7
    assert all(engine.get(i).status == "archived" for i in faded)
    runs = engine.maintenance_runs()
    assert [r["status"] for r in runs[:2]] == ["done", "stopped"]
    assert runs[0]["report"]["archived"] == 7 and runs[0]["seconds"] >= 0
    assert engine.run_maintenance(batch=5)["run"]["resumed_from"] is None


def test_report_keeps_the_keys_the_mcp_tool_uses(engine):
    engine.write("Remember: the bike lock code is in my phone notes.")
    report = engine.run_maintenance()
    assert set(report) >= LEGACY_KEYS
    assert engine.events()[0].kind == "reflect"
    assert engine.maintenance_runs(1)[0]["report"]["run"]["id"] == report["run"]["id"]


def test_a_second_process_running_maintenance_is_told_to_wait(engine, embedder, tmp_path, clock):
    from hindsight_desktop.core.engine import MemoryEngine

    other = MemoryEngine(engine.data_dir, embedder=embedder, clock=clock)
    engine.write("Remember: the shed key hangs by the back door.")
    inside = {}

    def progress(stage, batches):
        if not inside:
            inside["report"] = other.run_maintenance()  # while the first run holds the lease

    engine.run_maintenance(progress=progress)
    assert inside["report"]["run"] == {"skipped": "another maintenance run is in progress"}
    assert other.run_maintenance()["run"]["status"] == "done"  # free again once the first run ended
    other.close()


def test_a_run_whose_process_died_is_recorded_as_failed(engine):
    """A killed run leaves its row "running"; the next run, holding the lease, records how it ended."""
    from hindsight_desktop.core.store.runs import start_run

    dead = start_run(engine.store, "reflect", "t", "2026-01-01T00:00:00.000000Z")
    assert engine.run_maintenance()["run"]["status"] == "done"
    runs = {r["id"]: r for r in engine.maintenance_runs()}
    assert runs[dead]["status"] == "failed" and "ended before" in runs[dead]["report"]["error"]


def test_settings_reach_the_maintenance_policy():
    from hindsight_desktop.config import Settings

    policy = MaintenancePolicy.from_settings(
        Settings(decay_half_life_days=10, consolidation_min_evidence=4, maintenance_batch=50)
    )
    assert (policy.half_life_days, policy.consolidation_min_evidence, policy.batch) == (10, 4, 50)
    try:
        Settings(decay_half_life_days=0).validate()
    except InvalidInput as exc:
        assert "decay_half_life_days" in str(exc)
    else:
        raise AssertionError("a zero half-life was accepted")
