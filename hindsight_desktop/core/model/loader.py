"""Load the embedding model(s) the memory file uses and assemble the engine's parts around them.

The memory file, not the settings, says which model is in use: every process that opens it (the
tray app, each stdio MCP process, the CLI) must embed queries with the model its vectors came from.
The model given to the engine, or configured in the settings, is used for a new file; for an
existing one it is used only when it is the recorded model (or the target of a switch). When the
recorded model cannot be loaded any more (the file was deleted), the engine starts a switch to the
configured one, since that is the only way to keep recall working.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from hindsight_desktop.config import Settings
from hindsight_desktop.core.context import EmbedCache, Parts
from hindsight_desktop.core.errors import HindsightError, ModelError
from hindsight_desktop.core.model import calibration, switching
from hindsight_desktop.core.model.default_model import DEFAULT_MODEL_FILE
from hindsight_desktop.core.model.embedder import Embedder, default_embedder, load_embedder
from hindsight_desktop.core.store import meta, models
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.events import log_event
from hindsight_desktop.core.store.vectors import VectorIndex
from hindsight_desktop.core.timeutil import to_db
from hindsight_desktop.core.write.gate import WriteScorer

_DEFAULT_STEM = Path(DEFAULT_MODEL_FILE).stem + ":"


@dataclass
class Loaded:
    parts: Parts
    state: models.SpaceState
    embedder: Embedder  # the model new text is embedded with: the target during a switch


class ModelSource:
    """Where embedders come from: the one handed to the engine, the settings, the packaged default."""

    def __init__(self, data_dir: Path, settings: Settings, given: Embedder | None) -> None:
        self.data_dir, self.settings, self.given = data_dir, settings, given

    def configured(self) -> Embedder:
        if self.given is not None:
            return self.given
        if self.settings.embedding_model:
            return load_embedder(Path(self.settings.embedding_model))
        return default_embedder(self.data_dir)

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
            yield lambda: load_embedder(recorded)
        if configured:
            yield lambda: load_embedder(Path(configured))
        if row.model_id.startswith(_DEFAULT_STEM):  # the default is rebuilt from the packaged weights
            yield lambda: default_embedder(self.data_dir)


def load(store: Store, source: ModelSource, settings: Settings, clock: Callable[[], datetime]) -> Loaded:
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
            raise ModelError(f"neither {state.active.model_id} nor {state.target.model_id if state.target else '?'} "
                             "can be loaded; choose a model with `hindsight-desktop model use PATH`")
        if _adopt_new_ids(store, state, active, target, clock()):
            continue  # read the state again under the new ids
        _record_paths(store, state, active, target)
        current = target if target is not None else active
        assert current is not None
        return Loaded(_parts(store, settings, clock, state, active, target), state, current)
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


def _adopt_new_ids(store: Store, state: models.SpaceState, active: Embedder | None, target: Embedder | None,
                   now: datetime) -> bool:
    """Rename a model row found under a newer file's id (one that gives exactly its vectors, such as the
    default model after its vocabulary moved out of the GGUF), so the vectors stay without a re-embed."""
    renames = [(e, row) for e, row in ((active, state.active), (target, state.target))
               if e is not None and row is not None and e.model_id != row.model_id]
    if not renames:
        return False
    changed = False
    with store.write() as db:
        if models.read_state(db) != state:
            return True  # another process changed it: look again
        for embedder, row in renames:
            if models.rename(db, row.num, embedder.model_id):
                log_event(db, to_db(now), "model_renamed", None, "system",
                          {"from": row.model_id, "to": embedder.model_id})
                changed = True
        if changed:
            models.bump_generation(db)
    return changed


def _record_paths(store: Store, state: models.SpaceState, *found: Embedder | None) -> None:
    stale = [(e, row) for e, row in zip(found, (state.active, state.target), strict=True)
             if e is not None and row is not None and _path(e) and row.path != _path(e)]
    if stale:
        with store.write() as db:
            for embedder, row in stale:
                models.set_path(db, row.num, _path(embedder))


def _path(embedder: Embedder) -> str | None:
    path = getattr(embedder, "path", None)
    return None if path is None else str(Path(path).resolve())


def _parts(store: Store, settings: Settings, clock: Callable[[], datetime], state: models.SpaceState,
           active: Embedder | None, target: Embedder | None) -> Parts:
    assert state.active is not None
    old_cache = EmbedCache(active.embed) if active is not None else None
    vectors: VectorIndex | switching.SwitchingIndex
    scorer_embed: EmbedCache | None  # the gate's model: the one new text is embedded with
    if state.switch is None or state.target is None:
        assert old_cache is not None
        vectors = VectorIndex(state.active.num, state.active.dim)
        embed = scorer_embed = old_cache
    else:
        new_cache = EmbedCache(target.embed) if target is not None else None
        vectors = switching.SwitchingIndex(VectorIndex(state.target.num, state.target.dim),
                                           VectorIndex(state.active.num, state.active.dim),
                                           has_new=new_cache is not None, has_old=old_cache is not None)
        embed = EmbedCache(switching.JointEmbed(new_cache, state.target.dim, old_cache, state.active.dim))
        scorer_embed = new_cache if new_cache is not None else old_cache
    scale_model = target if target is not None else active  # the model new text is embedded with
    assert scale_model is not None
    scale = _calibration(store, scale_model)
    scorer = WriteScorer(embed=scorer_embed, weights=dict(settings.signal_weights),
                         threshold=settings.write_threshold, calibration=scale)
    scorer.warm()  # the prototypes are embedded here, never inside a write transaction
    # Parts.vectors is typed VectorIndex; a SwitchingIndex offers the same methods over joint vectors.
    parts = Parts(store=store, vectors=vectors, embed=embed, scorer=scorer,  # type: ignore[arg-type]
                  settings=settings, clock=clock, model_id=state.active.model_id, calibration=scale,
                  question_centres=_question_centres(store, state, active, target, scale))
    parts.extra["state"] = state
    parts.extra["embedders"] = {row.num: e for row, e in ((state.active, active), (state.target, target))
                                if row is not None and e is not None}
    return parts


def _question_centres(store: Store, state: models.SpaceState, active: Embedder | None, target: Embedder | None,
                      scale: calibration.Calibration) -> dict[str, np.ndarray]:
    """Each language's average question, laid out like the vectors recall compares: one model's, or
    during a switch [new | old], each half centred with its own model's average (zeros for a model
    this process cannot load: its half of every question is zeros already)."""
    if state.switch is None or state.target is None:
        return {lang: scale.centre(lang) for lang in calibration.SCRIPTS}
    assert state.active is not None
    halves = []
    for embedder, dim in ((target, state.target.dim), (active, state.active.dim)):
        own = _calibration(store, embedder) if embedder is not None else None
        halves.append({lang: own.centre(lang) if own is not None else np.zeros(dim, np.float32)
                       for lang in calibration.SCRIPTS})
    return {lang: np.concatenate([halves[0][lang], halves[1][lang]]) for lang in calibration.SCRIPTS}


def _calibration(store: Store, embedder: Embedder) -> calibration.Calibration:
    """The model's measured score scale: from this process, the memory file, or measured now (the
    model runs outside any transaction; the result is saved for the next process)."""
    key = calibration.META_PREFIX + embedder.model_id
    with store.read() as db:
        stored = meta.get(db, key, "") or None
    scale, fresh = calibration.cached(embedder.model_id, stored, embedder.embed)
    if fresh:
        with store.write() as db:
            meta.put(db, key, scale.to_json())
    return scale
