"""Helpers for the app tests (no tests here): a started Shell on a temporary data and config dir,
seeded memories, and waiting for worker tasks while the Qt event loop keeps running."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from hindsight_desktop.app.shell import Shell
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.app.workers import Task
from hindsight_desktop.config import Settings

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import MemoryEngine

TOKEN_ENV = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "HINDSIGHT_TOKEN_STORE": "file"}
BASE = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)

SEEDS = [
    ("My passport expires in March 2031.", "fact", 0.8),
    ("I prefer window seats on long flights.", "preference", 0.6),
    ("Dentist appointment with Dr. Okafor on 2 December at 10:30.", "event", 0.7),
    ("Always answer me in British English.", "instruction", 0.9),
    ("To reset the router, hold the back button for ten seconds.", "skill", 0.5),
    ("我的女儿在上海读大学。", "fact", 0.7),
]


PEOPLE = ("Amara", "Bruno", "Chen Wei", "Dana", "Elif", "Farid", "Greta", "Hiro", "Ines")
THINGS = (
    "the blue kayak",
    "a sourdough starter",
    "the tax return",
    "my violin lessons",
    "the garden shed",
    "a trip to Lisbon",
)
DOINGS = ("asked me about", "helped me fix", "wants to borrow", "reminded me of", "is planning")


def varied(n: int) -> list[tuple[str, str, float]]:
    """`n` distinct notes (different enough that the engine keeps each, instead of merging repeats)."""
    out = []
    for i in range(n):
        person, thing = PEOPLE[i % len(PEOPLE)], THINGS[(i // len(PEOPLE)) % len(THINGS)]
        doing = DOINGS[(i // (len(PEOPLE) * len(THINGS))) % len(DOINGS)]
        out.append((f"{person} {doing} {thing} (note {i}).", "note", 0.5))
    return out


class FakeIdle:
    """The OS idle time, set by the test."""

    name = "test idle"

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds

    def idle_seconds(self) -> float | None:
        return self.seconds


@pytest.fixture
def app_paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data")


@pytest.fixture
def token_store(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in TOKEN_ENV.items():
        monkeypatch.setenv(key, value)


def start_shell(qtbot: Any, paths: AppPaths, embedder: Any, **options: Any) -> Shell:
    options = {
        "serve": False,
        "tray": True,
        "idle_source": FakeIdle(),
        "scheduler_interval_ms": 3_600_000,
        "activity_interval_ms": 3_600_000,
        **options,
    }
    shell = Shell(paths, options.pop("settings", Settings()), embedder=embedder, **options)
    shell.start()
    qtbot.waitUntil(lambda: shell.backend.is_ready or shell.backend.error is not None, timeout=30_000)
    assert shell.backend.error is None
    return shell


@pytest.fixture
def shell(qtbot: Any, app_paths: AppPaths, embedder: Any, token_store: None) -> Iterator[Shell]:
    app_shell = start_shell(qtbot, app_paths, embedder)
    yield app_shell
    app_shell.shutdown()


def wait(qtbot: Any, task: Task | None, timeout: int = 30_000) -> Any:
    """The task's result, after letting the event loop deliver it; its error is raised here."""
    assert task is not None, "no task was started"
    qtbot.waitUntil(lambda: task.is_finished, timeout=timeout)
    if task.error is not None:
        raise task.error
    return task.result


def seed(
    engine: MemoryEngine,
    items: list[tuple[str, str, float]] = SEEDS,
    start: datetime = BASE,
    step: timedelta = timedelta(hours=7),
) -> list[str]:
    """Write memories by hand, one every `step` going back from `start` (oldest last)."""
    ids = []
    for i, (content, kind, importance) in enumerate(items):
        result = engine.write(content, type=kind, importance=importance, explicit=True, occurred_at=start - i * step)
        ids.append(result.id)
    return ids
