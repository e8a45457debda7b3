"""Load the embedding model(s) the memory file uses (context.assemble builds the engine's parts on them).

The memory file, not the settings, says which model is in use: every process that opens it (the
tray app, each stdio MCP process, the CLI) must embed queries with the model its vectors came from.
The model given to the engine, or configured in the settings, is used for a new file; for an
existing one it is used only when it is the recorded model (or the target of a switch). When the
recorded model cannot be loaded any more (the file was deleted), the engine starts a switch to the
configured one, since that is the only way to keep recall working.

Model files are opened through handles (handle.py): with `lazy`, the model itself loads only when
text must be embedded, so a command that only reads the memory never loads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from hindsight_desktop.config import Settings
from hindsight_desktop.core.errors import HindsightError, ModelError
from hindsight_desktop.core.identities import SYSTEM
from hindsight_desktop.core.model.default_model import DEFAULT_MODEL_FILE, ensure_default_model
from hindsight_desktop.core.model.embedder import Embedder
from hindsight_desktop.core.model.handle import model_handle
from hindsight_desktop.core.store import models
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.timeutil import to_db

_DEFAULT_STEM = Path(DEFAULT_MODEL_FILE).stem + ":"


@dataclass
class Loaded:
    state: models.SpaceState
    active: Embedder | None  # None: the recorded model cannot be loaded here (its half of a switch is absent)
    target: Embedder | None  # the model being switched to, when there is a switch and it loads here

    @property
    def embedder(self) -> Embedder:
        """The model new text is embedded with: the target during a switch."""
        current = self.target if self.target is not None else self.active
        assert current is not None  # load() never returns without one
        return current


class ModelSource:
    """Where embedders come from: the one handed to the engine, the settings, the packaged default.
    Files are opened as handles (handle.py): `lazy` leaves the model unloaded until text is embedded;
    `fixed` are the sentences whose vectors are kept per model between processes (the probes)."""

    def __init__(
        self,
        data_dir: Path,
        settings: Settings,
        given: Embedder | None,
        *,
        lazy: bool = False,
        fixed: frozenset[str] = frozenset(),
    ) -> None:
        self.data_dir, self.settings, self.given = data_dir, settings, given
        self.lazy, self.fixed = lazy, fixed

    def open(self, path: Path) -> Embedder:
        # A handle stands for an Embedder everywhere the engine uses one.
        return model_handle(path, self.fixed, lazy=self.lazy)  # type: ignore[return-value]

    def default(self) -> Embedder:
        """The packaged default model, built under the data folder if needed."""
        return self.open(ensure_default_model(self.data_dir / "models"))

    def configured(self) -> Embedder:
        if self.given is not None:
            return self.given
        if self.settings.embedding_model:
            return self.open(Path(self.settings.embedding_model))
        return self.default()

    def find(self, row: models.ModelRow) -> Embedder | None:
        """The embedder for a recorded model, or None when no file with its checksum can be found."""
        for attempt in self._attempts(row):
            try:
                found = attempt()
            except HindsightError:
                continue
            if found.model_id == row.model_id or row.model_id in found.same_vectors_as:
                return found
        return None

    def _attempts(self, row: models.ModelRow) -> Iterator[Callable[[], Embedder]]:
        given, configured = self.given, self.settings.embedding_model
        if given is not None:
            yield lambda: given
        if row.path:
            recorded = Path(row.path)
            yield lambda: self.open(recorded)
        if configured:
            yield lambda: self.open(Path(configured))
        if row.model_id.startswith(_DEFAULT_STEM):  # the default is rebuilt from the packaged weights
            yield self.default


def load(store: Store, source: ModelSource, clock: Callable[[], datetime]) -> Loaded:
    for _ in range(4):  # another process may change the model while this one starts: look again
        with store.read() as db:
            state = models.read_state(db)
        if state.active is None:
            _adopt(store, source.configured(), clock())
            continue
        active = source.find(state.active)
        target = source.find(state.target) if state.target is not None else None
        if state.switch is None and active is None:
            _switch_away_from_missing(store, state, source.configured(), clock())
            continue
        if active is None and target is None:
            raise ModelError(
                f"neither {state.active.model_id} nor {state.target.model_id if state.target else '?'} "
                "can be loaded; choose a model with `hindsight-desktop model use PATH`"
            )
        if _adopt_new_ids(store, state, active, target, clock()):
            continue  # read the state again under the new ids
        _record_paths(store, state, active, target)
        return Loaded(state, active, target)
    raise ModelError("the embedding model kept changing while the memory was opened; try again")


def _adopt(store: Store, embedder: Embedder, now: datetime) -> None:
    with store.write() as db:
        if models.read_state(db).active is None:
            row = models.register(db, embedder.model_id, embedder.dim, _path(embedder), now)
            models.set_active(db, row.num)
            models.bump_generation(db)


def _switch_away_from_missing(store: Store, seen: models.SpaceState, embedder: Embedder, now: datetime) -> None:
    with store.write() as db:
        state = models.read_state(db)
        if state != seen or state.active is None:
            return
        if embedder.model_id == state.active.model_id:  # the same model, found somewhere else
            models.set_path(db, state.active.num, _path(embedder))
            return
        row = models.register(db, embedder.model_id, embedder.dim, _path(embedder), now)
        models.begin_switch(db, state.active, row, now)


def _adopt_new_ids(
    store: Store, state: models.SpaceState, active: Embedder | None, target: Embedder | None, now: datetime
) -> bool:
    """Rename a model row found under a newer file's id (one that gives exactly its vectors, such as the
    default model after its vocabulary moved out of the GGUF), so the vectors stay without a re-embed."""
    renames = [
        (e, row)
        for e, row in ((active, state.active), (target, state.target))
        if e is not None and row is not None and e.model_id != row.model_id
    ]
    if not renames:
        return False
    changed = False
    with store.write() as db:
        if models.read_state(db) != state:
            return True  # another process changed it: look again
        for embedder, row in renames:
            if models.rename(db, row.num, embedder.model_id):
                log_event(
                    db, to_db(now), "model_renamed", None, SYSTEM, {"from": row.model_id, "to": embedder.model_id}
                )
                changed = True
        if changed:
            models.bump_generation(db)
    return changed


def _record_paths(store: Store, state: models.SpaceState, *found: Embedder | None) -> None:
    stale = [
        (e, row)
        for e, row in zip(found, (state.active, state.target), strict=True)
        if e is not None and row is not None and _path(e) and row.path != _path(e)
    ]
    if stale:
        with store.write() as db:
            for embedder, row in stale:
                models.set_path(db, row.num, _path(embedder))


def _path(embedder: Embedder) -> str | None:
    path = getattr(embedder, "path", None)
    return None if path is None else str(Path(path).resolve())
