"""The export formats' names, in a module that imports nothing: the CLI's argument parser and the
app's main thread list them without loading the core (export_formats.py holds their writers)."""

from __future__ import annotations

# Format name (also the file suffix) -> what a person reads in a file dialog.
EXPORT = {"json": "JSON", "jsonl": "JSON Lines", "md": "Markdown", "csv": "CSV"}
