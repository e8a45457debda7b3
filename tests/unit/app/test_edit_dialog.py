"""The edit dialog's scope and date fields, saved through the real engine: the date shown and edited in
local time, stored as UTC, and both changes in the memory's history."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from PySide6.QtCore import QDate, QDateTime, QTime
from support.app import seed, wait

from hindsight_desktop.app.edit_dialog import EditDialog


@pytest.fixture
def kolkata(monkeypatch):
    """A local zone 5:30 ahead of UTC (no summer time), so local and UTC differ visibly."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_scope_and_date_are_edited_in_local_time_and_recorded(qtbot, shell, kolkata):
    engine = shell.backend.engine
    memory = engine.get(seed(engine, [("We moved into the flat on Elm Street.", "event", 0.6)])[0])
    dialog = EditDialog(memory)
    qtbot.addWidget(dialog)
    assert dialog.changes() == {}  # nothing moved by showing it: the minute it shows is the stored one
    local = memory.occurred_at.astimezone()
    shown = dialog.occurred.dateTime()
    assert (shown.date().toString("yyyy-MM-dd"), shown.time().toString("HH:mm")) == (
        local.strftime("%Y-%m-%d"),
        local.strftime("%H:%M"),
    )
    assert dialog.scope.currentData() == "shared"
    dialog.scope.setCurrentIndex(dialog.scope.findData("private"))
    dialog.occurred.setDateTime(QDateTime(QDate(2025, 5, 3), QTime(14, 0)))  # 14:00 in Kolkata
    changes = dialog.changes()
    assert changes == {"scope": "private", "occurred_at": datetime(2025, 5, 3, 8, 30, tzinfo=UTC)}
    window = shell.open_timeline()
    wait(qtbot, window.actions_.edit(memory, changes))
    stored = engine.get(memory.id)
    assert stored.scope == "private" and stored.occurred_at == datetime(2025, 5, 3, 8, 30, tzinfo=UTC)
    edits = [e.detail for e in engine.events(memory.id) if e.kind == "edit"]
    assert edits == [{"scope": "private", "occurred_at": "2025-05-03T08:30:00.000Z"}]
    again = EditDialog(stored)
    qtbot.addWidget(again)
    assert again.occurred.dateTime().time().toString("HH:mm") == "14:00" and again.changes() == {}
    assert again.scope.currentData() == "private"
