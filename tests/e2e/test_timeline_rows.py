"""The timeline keeps each loaded memory as a flat tuple (so a long scroll gives Python's cycle collector
nothing to walk), yet hands out the same Memory the engine returned: entities, metadata and all."""

from __future__ import annotations

import gc
from datetime import timedelta

from support.app import BASE, seed, varied

from hindsight_desktop.app.collector import settle_collector
from hindsight_desktop.app.timeline_model import ID_ROLE, MEMORY_ROLE, TimelineModel, pack, unpack
from hindsight_desktop.core.records import Memory


def _loaded(qtbot, shell, page_size: int = 10) -> TimelineModel:
    model = TimelineModel(shell.backend, page_size=page_size)
    model.reload()
    qtbot.waitUntil(lambda: model.total is not None and not model.loading, timeout=10_000)
    while model.fetch_more():
        qtbot.waitUntil(lambda: not model.loading, timeout=10_000)
    return model


def test_a_row_unpacks_to_the_memory_the_engine_listed(qtbot, shell):
    engine = shell.backend.engine
    seed(engine, varied(6), step=timedelta(hours=5))
    noted = engine.write(
        "Dana from Lisbon moves to Oslo on 3 March 2027.",
        explicit=True,
        occurred_at=BASE,
        metadata={"source": "chat", "tags": ["move", "friends"], "nested": {"n": 2}},
    ).id
    listed = engine.list_memories(limit=100)
    model = _loaded(qtbot, shell, page_size=4)
    assert model.memories() == listed  # every field, in order
    row = model.index_of(noted).row()
    shown = model.memory_at(model.index(row, 0))
    assert isinstance(shown, Memory) and shown.entities and shown.metadata["nested"] == {"n": 2}
    assert model.index(row, 3).data(MEMORY_ROLE) == shown and model.index(row, 1).data(ID_ROLE) == noted
    shown.metadata["tags"].append("changed")  # a copy: what the model holds stays as it was
    assert model.memory_at(model.index(row, 0)).metadata["tags"] == ["move", "friends"]


def test_pack_and_unpack_round_trip_a_memory_without_extras(engine):
    memory = engine.get(seed(engine)[0])
    memory.entities, memory.metadata = [], {}
    assert unpack(pack(memory)) == memory


def test_loaded_rows_give_the_cycle_collector_nothing_to_walk(qtbot, shell):
    engine = shell.backend.engine
    seed(engine, varied(30), step=timedelta(hours=3))
    model = _loaded(qtbot, shell, page_size=7)
    assert model.loaded == 30
    edited = model.memories()[2]
    engine.edit(edited.id, content="The seminar moved to Thursday afternoon.")
    model.replace(engine.get(edited.id))  # what the window does after an edit
    gc.collect()
    rows = [model.index(r, 0) for r in range(model.rowCount()) if not model.is_day(r)]
    assert len(rows) == 30
    untracked = [not gc.is_tracked(row) for row in model._rows if isinstance(row, tuple)]
    assert len(untracked) == 30 and all(untracked)
    assert not any(isinstance(item, Memory) for item in model._rows)
    assert model.memory_at(model.index_of(edited.id)).content == "The seminar moved to Thursday afternoon."


def test_settle_collector_freezes_what_is_alive():
    try:
        settle_collector()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()  # the rest of the test run collects as usual
