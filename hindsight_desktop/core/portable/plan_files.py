"""An import planned once: the file read and parsed a single time, checked unchanged before each later run,
and the embeddings its preview computed kept for the import itself (they are most of an import's time).

    plan = transfer.plan_import(parts, "memories.json")
    preview = transfer.run_plan(parts, plan, dry_run=True)   # parses nothing again; embeds the texts
    result = transfer.run_plan(parts, plan)                  # same file? then it embeds nothing again

The vectors are kept by the store's embedding cache (context.EmbedCache.keeping), which the write gate
shares, so both the pipeline's and the gate's embeddings are computed once.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.model import switching
from hindsight_desktop.core.portable.import_formats import Bundle, Item

_READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class Fingerprint:
    """What identifies the file's content: its size and modification time, and a hash of its bytes."""

    size: int
    mtime_ns: int
    sha256: str


def fingerprint(source: Path, raw: bytes) -> Fingerprint:
    """The fingerprint of `raw`, the bytes just read from `source`."""
    stat = source.stat()
    return Fingerprint(len(raw), stat.st_mtime_ns, hashlib.sha256(raw).hexdigest())


def check_unchanged(source: Path, seen: Fingerprint) -> None:
    """Raise InvalidInput when the file is gone or differs from when it was planned. Size and time are
    checked first; the hash catches a same-size rewrite within the clock's resolution."""
    try:
        stat = source.stat()
        changed = stat.st_size != seen.size or stat.st_mtime_ns != seen.mtime_ns or _hash(source) != seen.sha256
    except OSError as exc:
        problem = exc.strerror or exc
        raise InvalidInput(f"{source.name} cannot be read any more ({problem}); nothing was imported") from None
    if changed:
        raise InvalidInput(
            f"{source.name} changed after it was previewed; nothing was imported: preview it again to import it"
        )


def _hash(source: Path) -> str:
    digest = hashlib.sha256()
    with open(source, "rb") as handle:
        while chunk := handle.read(_READ_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class ImportPlan:
    """A parsed import file: a bundle of the app's own format, or items for the write pipeline."""

    source: Path
    format: str
    asked: str | None  # the format the caller named, if any (it names the imported writer)
    seen: Fingerprint
    bundle: Bundle | None = None
    items: list[Item] | None = None
    runs: int = 0
    _space: tuple[str, bool] | None = field(default=None, repr=False)
    _vectors: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        """How many records the file holds."""
        return len(self.bundle.memories) if self.bundle is not None else len(self.items or [])

    @contextlib.contextmanager
    def embeddings_kept(self, parts: Parts) -> Iterator[None]:
        """For one run: the store's embedding cache keeps every vector in the plan and finds earlier runs'
        there, while the model in use is the same."""
        space = (parts.model_id, isinstance(parts.vectors, switching.SwitchingIndex))
        if space != self._space:  # another model (or a switch started): earlier vectors do not apply
            self._space, self._vectors = space, {}
        with parts.embed.keeping(self._vectors):
            yield
