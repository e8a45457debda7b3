"""Export and import: the person's memories in portable files, and other tools' memories brought in.

Called through the engine (`MemoryEngine.export`, `MemoryEngine.import_file`), on its parts:

>>> engine.export("json", "memories.json")                              # doctest: +SKIP
{'format': 'json', 'memories': 1204, 'links': 388, 'events': 5120, 'path': 'memories.json'}
>>> engine.import_file("memory.json", dry_run=True).to_dict()          # doctest: +SKIP
{'format': 'mcp-memory', 'created': 40, 'duplicates': 2, ...}

Export formats: `json` (a versioned bundle: memories with every field, links, event history, and
with `embeddings=True` their vectors), `jsonl` (the same, one record per line), `md` (for reading,
grouped by layer and day) and `csv` (one row per memory). Import formats: the two lossless ones
(restored as they were, same ids), `mcp-memory` (the official MCP memory server's memory.json),
`markdown`/`text` (one memory per paragraph) and `lines` (ChatGPT or Claude memories, one per line);
these go through the write pipeline. An import is one transaction: a bad file changes nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, Any, TextIO

from hindsight_desktop import __version__
from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import EncryptionError, InvalidInput
from hindsight_desktop.core.portable import encrypted, import_formats, json_input, own_format, plan_files, seal
from hindsight_desktop.core.portable.export_formats import WRITERS
from hindsight_desktop.core.portable.importer import ImportReport, restore_bundle, write_items
from hindsight_desktop.core.portable.plan_files import ImportPlan
from hindsight_desktop.core.records import EXPORT_FORMATS, MemoryFilter
from hindsight_desktop.core.store import meta, models
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.private_files import private_bytes_writer, private_writer
from hindsight_desktop.core.timeutil import to_db

Progress = Callable[[int, int], None]


def export_memories(
    parts: Parts,
    fmt: str,
    path_or_stream: str | os.PathLike[str] | IO[str],
    filters: MemoryFilter | None = None,
    progress: Progress | None = None,
    *,
    embeddings: bool = False,
    ids: list[str] | None = None,
    encrypt_key: bytes | None = None,
) -> dict[str, Any]:
    """Write every memory (or those `filters` and `ids` select) to a file, atomically, or to an open
    text stream. `progress(done, total)` is called as memories are written. Returns what was written.
    With `encrypt_key` the file is an encrypted export (portable/encrypted.py) under that key."""
    if ids:
        filters = dataclasses.replace(filters or MemoryFilter(), ids=tuple(ids))
    fmt = (fmt or "").strip().lower()
    if fmt == "markdown":
        fmt = "md"
    if fmt not in WRITERS:
        raise InvalidInput(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    filtered = filters is not None and filters != MemoryFilter()
    with_vectors = bool(embeddings) and fmt in ("json", "jsonl")
    key = _seal_key(parts.store) if fmt in ("json", "jsonl") else None
    digest = seal.Digest()

    def tapped(kind: str, records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for record in records:
            digest.add(kind, record)
            yield record

    trailer = None if key is None else (lambda: {seal.FIELD: seal.sign(key, digest.hexdigest())})
    # One read transaction on a pooled read connection: the export sees one consistent state while
    # searches and writes go on (store/readers.py).
    with parts.store.read() as db, _output(path_or_stream, encrypt_key) as out:
        state = models.read_state(db)
        total = own_format.count(db, filters)
        header = {
            "format": own_format.FORMAT,
            "version": own_format.VERSION,
            "exported_at": to_db(parts.clock()),
            "app_version": __version__,
            "model": state.active.model_id if state.active else None,
            "embeddings": with_vectors,
            "memories": total,
            "filters": _filters(filters) if filtered else None,
        }
        rows = tapped("memory", _counting(own_format.memories(db, filters, with_vectors), total, progress))
        counts = WRITERS[fmt](
            out,
            header,
            rows,
            lambda ids: tapped("link", own_format.links(db, ids if filtered else None)),
            lambda ids: tapped("event", own_format.events(db, ids if filtered else None)),
            trailer,
        )
    where = None if hasattr(path_or_stream, "write") else str(path_or_stream)
    return {"format": fmt, **counts, "path": where, **({"encrypted": True} if encrypt_key else {})}


def import_memories(
    parts: Parts,
    path: str | os.PathLike[str],
    fmt: str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
    *,
    keep_writers: bool = False,
    key: bytes | None = None,
) -> ImportReport:
    """Bring memories in from a file; with `dry_run` report what would happen and change nothing.

    The whole file is checked first (errors name the line or field), then written in one transaction.
    Who wrote each memory is kept only for a bundle this data folder sealed (seal.py), or when the
    person says, with `keep_writers`, that the file is their own; otherwise every writer becomes
    "import:<writer>" and nothing stays pinned. Other formats are written as "import:<source>".
    An encrypted export is opened with `key` (a recovery key's), else with this memory file's own key."""
    plan = plan_import(parts, path, fmt, key=key)
    return run_plan(parts, plan, dry_run, progress, keep_writers=keep_writers)


def plan_import(
    parts: Parts, path: str | os.PathLike[str], fmt: str | None = None, *, key: bytes | None = None
) -> ImportPlan:
    """Read, decrypt and parse the file once. The plan can then be previewed (`run_plan(dry_run=True)`)
    and imported, which reuses the parse and the preview's embeddings instead of doing them again."""
    source = Path(path)
    raw = json_input.read_bytes(source)
    seen = plan_files.fingerprint(source, raw)
    text = _text_of(raw, source, key or parts.store.key)
    chosen = import_formats.normalise(fmt) or import_formats.detect(source, text)
    name = source.name
    if chosen in ("json", "jsonl"):
        parse = import_formats.parse_bundle if chosen == "json" else import_formats.parse_bundle_lines
        return ImportPlan(source, chosen, fmt, seen, bundle=parse(text, name))
    if chosen == "mcp-memory":
        items = import_formats.parse_mcp_memory(text, name)
    elif chosen == "lines":
        items = import_formats.parse_lines(text, name)
    else:
        items = import_formats.parse_paragraphs(text, name, chosen)
    if not items:
        raise InvalidInput(f"{name}: no memories found in the file")
    return ImportPlan(source, chosen, fmt, seen, items=items)


def run_plan(
    parts: Parts,
    plan: ImportPlan,
    dry_run: bool = False,
    progress: Progress | None = None,
    *,
    keep_writers: bool = False,
) -> ImportReport:
    """Preview (`dry_run`) or import a planned file. A file changed since it was planned is refused
    (InvalidInput): what was previewed is what gets written, or nothing is."""
    if plan.runs:
        plan_files.check_unchanged(plan.source, plan.seen)
    if not dry_run:
        with parts.store.read() as db:
            meta.refuse_if_paused(db, "resume it before importing")
    report = ImportReport(format=plan.format, source=str(plan.source), dry_run=bool(dry_run))
    with plan.embeddings_kept(parts):
        _run(parts, plan, report, progress, keep_writers)
    plan.runs += 1
    return report


def _run(parts: Parts, plan: ImportPlan, report: ImportReport, progress: Progress | None, keep_writers: bool) -> None:
    if plan.bundle is not None:
        with parts.store.read() as db:
            report.sealed = seal.verify(seal.key_for_import(db), plan.bundle.digest, plan.bundle.seal)
        # Restoring rewrites records in place (writers, redactions): each run gets its own copy of them.
        bundle = dataclasses.replace(
            plan.bundle,
            memories=[dict(m) for m in plan.bundle.memories],
            links=list(plan.bundle.links),
            events=list(plan.bundle.events),
        )
        restore_bundle(parts, bundle, report, progress, trusted=report.sealed or keep_writers)
    else:
        assert plan.items is not None
        write_items(parts, plan.items, import_formats.source_writer(plan.format, plan.asked), report, progress)


def _filters(filters: MemoryFilter | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in dataclasses.asdict(filters or MemoryFilter()).items():
        if isinstance(value, datetime):
            out[key] = to_db(value)
        elif isinstance(value, tuple):
            out[key] = list(value)
        else:
            out[key] = value
    return out


def _counting(rows: Iterable[dict[str, Any]], total: int, progress: Progress | None) -> Iterator[dict[str, Any]]:
    for done, row in enumerate(rows, 1):
        yield row
        if progress is not None and (done % 100 == 0 or done == total):
            progress(done, total)


def _text_of(raw: bytes, source: Path, key: bytes | None) -> str:
    """The file's text; an encrypted export is decrypted in memory, never written out plain."""
    if encrypted.is_encrypted(raw):
        if key is None:
            raise EncryptionError(
                f"{source.name} is an encrypted export and this memory file has no key to try: give the "
                "recovery key of the memory it came from with `import --key`"
            )
        raw = encrypted.decrypt(raw, key, source.name)
    return import_formats.decode(raw, source)


@contextlib.contextmanager
def _output(target: str | os.PathLike[str] | IO[str], encrypt_key: bytes | None = None) -> Iterator[TextIO]:
    """An open stream as it is; a path is written to a temporary file renamed into place at the end,
    so a failed export never leaves half a file where a good one was. With `encrypt_key`, what is
    written is encrypted on its way to the file."""
    if hasattr(target, "write"):
        if encrypt_key is not None:
            raise InvalidInput("an encrypted export is binary: give a file to write it to (--output)")
        yield target  # type: ignore[misc]
        return
    path = Path(target)
    if path.is_dir():
        raise InvalidInput(f"cannot export to {path}: it is a folder; give a file name inside it")
    if not path.parent.is_dir():
        missing = "does not exist" if not path.parent.exists() else "is not a folder"
        raise InvalidInput(f"cannot export to {path}: the folder {path.parent} {missing}; create it first")
    # Created exclusively with mode 0600: an export holds private memories, whatever folder it lands in.
    with contextlib.ExitStack() as stack:
        try:
            if encrypt_key is None:
                handle = stack.enter_context(private_writer(path))
            else:
                raw = stack.enter_context(private_bytes_writer(path))
                handle = stack.enter_context(encrypted.text_writer(raw, encrypt_key))
        except OSError as exc:
            raise InvalidInput(f"cannot export to {path}: {exc.strerror or exc}") from None
        yield handle


def _seal_key(store: Store) -> bytes:
    """The data folder's seal key, made in a write transaction the first time only."""
    with store.read() as db:
        key = seal.key_for_import(db)
    if key is None:
        with store.write() as db:
            key = seal.key_for_export(db)
    return key
