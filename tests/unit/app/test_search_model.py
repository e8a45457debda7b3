"""The timeline's search results say how sure each result is, and "Nothing relevant found" when none is
likely to answer (the MCP tool's nothing_relevant rule); the why panel says the same. Real widgets on the
real engine."""

from __future__ import annotations

from PySide6.QtCore import Qt
from support.app import seed

from hindsight_desktop.app import why_panel
from hindsight_desktop.app.search_model import NOTHING_RELEVANT, sureness

MEMORIES = [
    ("My car's number plate is KX19 ABC.", "fact", 0.6),
    ("I am allergic to penicillin.", "fact", 0.7),
    ("I prefer green tea over coffee.", "preference", 0.5),
    ("My sister Anna lives in Berlin.", "fact", 0.5),
]


def _search(qtbot, shell, text: str):
    window = shell.open_timeline()
    qtbot.waitUntil(lambda: window.timeline.total is not None and not window.timeline.loading, timeout=20_000)
    window.search_field.setText(text)
    task = window.run_search()
    qtbot.waitUntil(lambda: task.is_finished and window.results.rowCount() > 0, timeout=30_000)
    return window


def test_a_result_that_answers_shows_its_confidence_in_words(qtbot, shell):
    seed(shell.backend.engine, MEMORIES)
    window = _search(qtbot, shell, "what am I allergic to?")
    results = window.results
    first = results.index(0, 0)
    assert results.index(0, 1).data() == "I am allergic to penicillin."
    assert first.data().endswith(" sure") and first.data() == sureness(results.hits[0].confidence)
    assert "Confidence" in first.data(Qt.ItemDataRole.ToolTipRole)
    assert not results.nothing_relevant
    assert NOTHING_RELEVANT not in window.count_label.text()
    assert results.headerData(1, Qt.Orientation.Horizontal) == "Memory"
    assert window.selected() == [results.hits[0].memory]  # the first result is chosen for the why panel
    assert window.why.hit is results.hits[0]
    assert " sure " in why_panel.heading(results.hits[0]) and "weak" not in why_panel.summary(results.hits[0], None)


def test_a_search_with_no_likely_answer_says_nothing_relevant_and_lists_weak_matches(qtbot, shell):
    seed(shell.backend.engine, MEMORIES)
    window = _search(qtbot, shell, "what is my favourite football team?")
    results = window.results
    assert results.nothing_relevant
    assert window.count_label.text().startswith(f"{NOTHING_RELEVANT} for “what is my favourite football team?”")
    assert NOTHING_RELEVANT in results.headerData(1, Qt.Orientation.Horizontal)
    cells = [results.index(row, 0).data() for row in range(results.rowCount())]
    assert cells and all(cell.endswith(" weak") for cell in cells), cells
    assert results.index(0, 1).data(Qt.ItemDataRole.ForegroundRole) is not None  # greyed
    assert "Probably not an answer" in why_panel.summary(results.hits[0], None)
    assert why_panel.heading(results.hits[0]).count("weak") == 1
