"""The open timeline follows changes another process makes, keeping the person's place: selection,
scroll position and filters; the client filter learns the new writer."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

from support.app import seed, varied

WRITER = textwrap.dedent("""
    import sys
    from hindsight_desktop.core.engine import MemoryEngine
    with MemoryEngine(sys.argv[1]) as engine:
        for text in sys.argv[2:]:
            engine.write(text, client="other-process", type="note", importance=0.9, explicit=True)
""")


def write_elsewhere(data_dir: Path, *texts: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", WRITER, str(data_dir), *texts], capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr


def test_the_timeline_shows_another_process_writes_and_keeps_the_place(qtbot, shell, model_dir: Path):
    engine = shell.backend.engine
    data_dir = Path(engine.data_dir)
    (data_dir / "models").symlink_to(model_dir, target_is_directory=True)  # the writer's model
    seed(engine, varied(80), step=timedelta(hours=3))
    window = shell.open_timeline()
    window.resize(900, 500)
    bar = window.filter_bar
    bar.type.setCurrentText("note")  # a filter the new memory matches, which must stay set
    qtbot.waitUntil(lambda: window.timeline.total == 80 and not window.timeline.loading, timeout=20_000)
    chosen = window.timeline.memories()[30].id
    window.go_to(chosen)
    scroll = window.timeline_view.verticalScrollBar()
    qtbot.waitUntil(lambda: scroll.maximum() > 0, timeout=10_000)
    position = scroll.value()
    assert position > 0  # deep enough that a reset would move it
    assert bar.client.findText("other-process") == -1

    write_elsewhere(data_dir, "Quinn keeps the spare bike lock code in the garage drawer.")

    def arrived() -> bool:
        return any(m.client == "other-process" for m in window.timeline.memories())

    qtbot.waitUntil(arrived, timeout=20_000)
    qtbot.waitUntil(lambda: window.timeline.total == 81, timeout=10_000)  # the count follows the rows
    assert window.selected_ids() == [chosen]
    assert scroll.value() == position
    assert bar.type.currentText() == "note"
    qtbot.waitUntil(lambda: bar.client.findText("other-process") >= 0, timeout=10_000)

    forgotten = window.timeline.memories()[5].id
    done = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", "forget", forgotten],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HINDSIGHT_DATA_DIR": str(data_dir)},
    )
    assert done.returncode == 0, done.stderr
    qtbot.waitUntil(lambda: forgotten not in {m.id for m in window.timeline.memories()}, timeout=20_000)
    assert window.selected_ids() == [chosen]
