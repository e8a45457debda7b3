"""Export and import through `hindsight_desktop.core.portable.transfer`, run on a worker with progress and Cancel."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hindsight_desktop.core.portable.formats import EXPORT
from hindsight_desktop.core.records import MemoryFilter

if TYPE_CHECKING:  # the engine is imported on the worker, never on the main thread (see backend.py)
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.core.portable.importer import ImportReport

FORMATS = {name: f"{label} (*.{name})" for name, label in EXPORT.items()}  # the file dialog's filters
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


def export_job(engine: MemoryEngine, fmt: str, path: str, filters: MemoryFilter | None,
               ids: list[str] | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Everything `filters` selects, or only `ids` when given (an export of the selection)."""
    from hindsight_desktop.core.portable.transfer import export_memories  # on the worker: see above

    return export_memories(engine, fmt, path, filters=filters, progress=progress, ids=ids or None)


def import_job(engine: MemoryEngine, path: str, progress: Progress | None = None) -> ImportReport:
    from hindsight_desktop.core.portable.transfer import import_memories  # on the worker: see above

    return import_memories(engine, path, progress=progress)


def describe(result: Mapping[str, Any] | ImportReport, verb: str) -> str:
    """A one-line account of the counts an export (a dict) or an import (a report) returned."""
    data = result if isinstance(result, Mapping) else result.to_dict()
    numbers = {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
    if numbers:
        return f"{verb}: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in numbers.items()) + "."
    return f"{verb}."
