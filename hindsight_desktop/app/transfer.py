"""Export and import through the engine (`export`, `import_file`), run on a worker with progress and Cancel."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hindsight_desktop.core.records import EXPORT_FORMATS, MemoryFilter

if TYPE_CHECKING:  # the engine is imported on the worker, never on the main thread (see backend.py)
    from hindsight_desktop.core.engine import ImportReport, MemoryEngine

FORMATS = {name: f"{label} (*.{name})" for name, label in EXPORT_FORMATS.items()}  # the file dialog's filters
Progress = Callable[[int, int], None]


def format_for(path: str, chosen_filter: str = "") -> str:
    """The format from the file's extension, else from the filter the person picked."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return suffix
    if suffix == "markdown":
        return "md"
    for key, label in FORMATS.items():
        if label == chosen_filter:
            return key
    return "json"


def export_job(
    engine: MemoryEngine,
    fmt: str,
    path: str,
    filters: MemoryFilter | None,
    ids: list[str] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Everything `filters` selects, or only `ids` when given (an export of the selection)."""
    return engine.export(fmt, path, filters=filters, progress=progress, ids=ids or None)


def import_job(engine: MemoryEngine, path: str, progress: Progress | None = None) -> ImportReport:
    return engine.import_file(path, progress=progress)


def describe(result: Mapping[str, Any] | ImportReport, verb: str) -> str:
    """A one-line account of the counts an export (a dict) or an import (a report) returned."""
    data = result if isinstance(result, Mapping) else result.to_dict()
    numbers = {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
    if numbers:
        return f"{verb}: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in numbers.items()) + "."
    return f"{verb}."
