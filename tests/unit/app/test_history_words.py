"""The detail pane's history says what an edit changed in plain words, not field names."""

from __future__ import annotations

from datetime import UTC, datetime

from hindsight_desktop.app.detail_pane import _event_line
from hindsight_desktop.core.records import Event, edit_words


def test_an_edit_of_scope_and_date_reads_as_words():
    event = Event(
        id=1,
        at=datetime(2026, 12, 2, 7, 0, tzinfo=UTC),
        kind="edit",
        memory_id="mem_1",
        client="desktop",
        detail={"scope": "private", "occurred_at": "2025-08-03T12:00:00Z"},
    )
    line = _event_line(event)
    assert "edited: changed who sees it, changed when it happened" in line
    assert "scope" not in line and "occurred_at" not in line


def test_every_editable_field_has_words_and_the_old_text_is_not_listed():
    detail = {"content": "new", "previous_content": "old", "importance": 0.9, "pinned": True, "type": "fact"}
    assert edit_words(detail) == (
        "changed the text, changed how much it matters, pinned it, changed the type"
    )
    assert edit_words({"pinned": 0}) == "unpinned it"
    assert edit_words({"future_field": 1}) == "changed future field"
