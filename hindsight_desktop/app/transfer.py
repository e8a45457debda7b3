"""Export and import through `hindsight_desktop.core.portable`, on a worker with progress and cancel.

The portable module is optional here: while it does not exist, the actions say so instead of failing.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from hindsight_desktop.core.models import MemoryFilter

FORMATS = {"json": "JSON (*.json)", "jsonl": "JSON Lines (*.jsonl)", "md": "Markdown (*.md)", "csv": "CSV (*.csv)"}
IMPORT_FORMATS = ("json", "jsonl")  # the app's own formats; the others are for reading, not round trips
NOT_AVAILABLE = "Export and import are not available in this version (hindsight_desktop.core.portable is missing)."


def portable() -> ModuleType | None:
    try:
        return importlib.import_module("hindsight_desktop.core.portable")
    except ImportError:
        return None


def available() -> bool:
    return portable() is not None


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


def _relay(progress: Callable[[int, int], None] | None) -> Callable[..., None] | None:
    """Accept whatever counts the exporter reports (done, or done and total)."""
    if progress is None:
        return None

    def report(*args: Any, **kwargs: Any) -> None:
        numbers = [a for a in (*args, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
        progress(numbers[0] if numbers else 0, numbers[1] if len(numbers) > 1 else 0)

    return report


def supports_ids() -> bool:
    """Whether the exporter can take a list of ids (an export of the selection)."""
    module = portable()
    return module is not None and "ids" in inspect.signature(module.export_memories).parameters


def export_job(engine: Any, fmt: str, path: str, filters: MemoryFilter | None, ids: list[str] | None = None,
               progress: Callable[[int, int], None] | None = None) -> Any:
    module = portable()
    if module is None:
        raise RuntimeError(NOT_AVAILABLE)
    extra = {"ids": ids} if ids else {}
    return module.export_memories(engine, fmt, path, filters=filters, progress=_relay(progress), **extra)


def import_job(engine: Any, path: str, progress: Callable[[int, int], None] | None = None) -> Any:
    module = portable()
    if module is None:
        raise RuntimeError(NOT_AVAILABLE)
    return module.import_memories(engine, path, progress=_relay(progress))


def describe(result: Any, verb: str) -> str:
    """A one-line account of what an export or import returned (a count, a dict, or a record)."""
    if isinstance(result, int):
        return f"{verb} {result:,} memories."
    data = result if isinstance(result, dict) else getattr(result, "__dict__", {})
    numbers = {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
    if numbers:
        return f"{verb}: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in numbers.items()) + "."
    return f"{verb}."
