"""Export and import through the engine (`export`, `import_file`), run on a worker with progress and Cancel."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.core.records import EXPORT_FORMATS, MemoryFilter

if TYPE_CHECKING:  # the engine is imported on the worker, never on the main thread (see backend.py)
    from hindsight_desktop.core.engine import ImportPlan, ImportReport, MemoryEngine

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
    """Everything (`filters` None), what `filters` selects, or only `ids` when given (the selection)."""
    return engine.export(fmt, path, filters=filters, progress=progress, ids=ids or None)


def export_sizes(engine: MemoryEngine, shown: MemoryFilter) -> tuple[int, int, int]:
    """(memories in all, links in all, memories the timeline shows now): what the export dialog offers."""
    numbers = engine.stats()
    return int(numbers["memories"]), int(numbers["links"]), engine.count(shown)


def import_job(engine: MemoryEngine, plan: ImportPlan, progress: Progress | None = None) -> ImportReport:
    """The import of a previewed file: parsed and embedded already, checked unchanged since the preview."""
    return engine.run_import_plan(plan, progress=progress)


def preview_job(
    engine: MemoryEngine, path: str, progress: Progress | None = None
) -> tuple[ImportPlan, ImportReport] | str:
    """The dry run: the file's plan (kept for the import) and the report of what the import would do, or
    why the file is refused (nothing changes)."""
    from hindsight_desktop.core.errors import HindsightError

    try:
        plan = engine.plan_import(path)
        return plan, engine.run_import_plan(plan, dry_run=True, progress=progress)
    except HindsightError as exc:
        return in_app(str(exc))


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def export_words(result: Mapping[str, Any]) -> str:
    """What an export wrote, in plain words."""
    parts = [_count(int(result.get("memories", 0)), "memory", "memories"), _count(int(result.get("links", 0)), "link")]
    if "events" in result:
        parts.append(_count(int(result["events"]), "history event"))
    where = f" to {result['path']}" if result.get("path") else ""
    return f"Exported {', '.join(parts)}{where}."


def _are(n: int, would: bool) -> str:
    return "would be" if would else ("was" if n == 1 else "were")


def import_words(report: ImportReport) -> str:
    """What an import did, or (a dry run) would do, in plain words."""
    would = report.dry_run
    lines = [
        f"{'The file holds' if would else 'Read'} {_count(report.read, 'item')}.",
        f"{_count(report.created, 'new memory', 'new memories')} {_are(report.created, would)} added.",
    ]
    if report.duplicates:
        lines.append(f"{_count(report.duplicates, 'item')} repeat what your memory already holds: merged, not added.")
    if report.skipped_existing:
        lines.append(
            f"{_count(report.skipped_existing, 'memory', 'memories')} already here (same id): "
            + ("left as it is." if report.skipped_existing == 1 else "left as they are.")
        )
    if report.superseded:
        n = report.superseded
        lines.append(f"{_count(n, 'older statement')} {_are(n, would)} replaced by newer ones.")
    if report.redactions:
        n = report.redactions
        lines.append(f"{_count(n, 'secret')} {_are(n, would)} hidden before storing.")
    if report.reattributed:
        lines.append(
            f"{_count(report.reattributed, 'memory', 'memories')} name a writer this computer cannot confirm: "
            "they are marked as imported."
        )
    if report.dangling_refs:
        lines.append(
            f"{_count(report.dangling_refs, 'memory', 'memories')} say a newer memory replaced them, but that one "
            "is not in the file: they stay current."
        )
    if report.links or report.events:
        lines.append(f"Also {_count(report.links, 'link')} and {_count(report.events, 'history event')}.")
    if would:
        lines.append("Nothing has been written yet.")
    return "\n".join(lines)


def refused_words(reason: str) -> str:
    return f"This file cannot be imported: {reason}\nNothing was changed."
