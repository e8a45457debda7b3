"""The parts every engine operation needs, bundled so the write, recall and forget modules stay small,
and `assemble`, the one place they are built (around the models model/loader.py loaded)."""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from threading import Lock
from typing import TYPE_CHECKING

import numpy as np

from hindsight_desktop.config import Settings
from hindsight_desktop.core.model import calibration, switching
from hindsight_desktop.core.model.calibration import Calibration
from hindsight_desktop.core.store import meta, models
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.vectors import VectorIndex
from hindsight_desktop.core.write.gate import WriteScorer

if TYPE_CHECKING:
    from hindsight_desktop.core.model.embedder import Embedder
    from hindsight_desktop.core.model.loader import Loaded


class EmbedCache:
    """Remembers the last few embeddings, so the write gate and the store share one model call per text.

    `kind` is "passage" for text that is stored and "query" for a question (see embedder.QUERY).
    """

    def __init__(self, embed: Callable[..., np.ndarray], size: int = 256) -> None:
        self._embed = embed
        self._size = size
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = Lock()
        self._kept: dict[tuple[str, str], np.ndarray] | None = None

    @contextlib.contextmanager
    def keeping(self, kept: dict[tuple[str, str], np.ndarray]) -> Iterator[None]:
        """While open, every embedding is also kept in `kept` (without a size limit) and looked up there
        first: an import's preview and the import itself then embed each of the file's texts once."""
        with self._lock:
            self._kept = kept
        try:
            yield
        finally:
            with self._lock:
                self._kept = None

    def held(self, text: str, kind: str = "passage") -> np.ndarray | None:
        """The embedding of `text` when it is remembered, else None; nothing is computed or reordered."""
        with self._lock:
            found = self._items.get((kind, text))
            if found is None and self._kept is not None:
                found = self._kept.get((kind, text))
            return found

    def __call__(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        with self._lock:
            if self._kept is not None:
                for text in texts:
                    if (kind, text) in self._kept and (kind, text) not in self._items:
                        self._items[(kind, text)] = self._kept[(kind, text)]
            missing = [t for t in dict.fromkeys(texts) if (kind, t) not in self._items]
        if missing:
            fresh = self._embed(missing, kind)
            with self._lock:
                for text, vector in zip(missing, fresh, strict=True):
                    self._items[(kind, text)] = vector
                    self._items.move_to_end((kind, text))
                    if self._kept is not None:
                        self._kept[(kind, text)] = vector
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        with self._lock:
            kept_too = self._kept or {}
            found = {t: self._items.get((kind, t), kept_too.get((kind, t))) for t in texts}
        kept = [v for v in (found[t] for t in texts) if v is not None]
        if len(kept) < len(texts):  # evicted by a very large batch: embed directly
            return self._embed(texts, kind)
        return np.stack(kept) if texts else self._embed([], kind)

    def discard(self, texts: list[str]) -> None:
        """Forget the embeddings of these texts (of every kind): a purged memory leaves no vector here."""
        gone = set(texts)
        with self._lock:
            for key in [k for k in self._items if k[1] in gone]:
                del self._items[key]
            if self._kept is not None:
                for key in [k for k in self._kept if k[1] in gone]:
                    del self._kept[key]
        inner = getattr(self._embed, "discard", None)  # a switch's JointEmbed holds two more caches
        if inner is not None:
            inner(texts)


@dataclass
class Parts:
    store: Store
    vectors: VectorIndex
    embed: EmbedCache
    scorer: WriteScorer
    settings: Settings
    clock: Callable[[], datetime]
    model_id: str
    calibration: Calibration  # the score scale of the model new text is embedded with
    # The average question per language, shaped like `embed`'s vectors (two models' during a switch):
    # recall subtracts it from a question before comparing, as `calibration` was measured (calibration.py).
    question_centres: dict[str, np.ndarray]
    state: models.SpaceState  # the file's model rows (active, switch target) these parts were built on
    # The models this process could load, by model row number (the re-embed needs the target's).
    embedders: dict[int, Embedder] = field(default_factory=dict)

    def centred_question(self, vector: np.ndarray, asked: str) -> np.ndarray:
        """The question vector as recall compares it with memories: less the average question."""
        return np.asarray(vector, dtype=np.float32) - self.question_centres[self.calibration.script(asked)]


def assemble(store: Store, settings: Settings, clock: Callable[[], datetime], loaded: Loaded) -> Parts:
    """The engine's parts on the loaded models: one model's vectors, or during a switch both models'."""
    state, active, target = loaded.state, loaded.active, loaded.target
    assert state.active is not None
    old_cache = EmbedCache(active.embed) if active is not None else None
    vectors: VectorIndex | switching.SwitchingIndex
    scorer_embed: EmbedCache | None  # the gate's model: the one new text is embedded with
    if state.switch is None or state.target is None:
        assert old_cache is not None
        vectors = VectorIndex(state.active.num, state.active.dim, store.read_apart)
        embed = scorer_embed = old_cache
    else:
        new_cache = EmbedCache(target.embed) if target is not None else None
        vectors = switching.SwitchingIndex(
            VectorIndex(state.target.num, state.target.dim, store.read_apart),
            VectorIndex(state.active.num, state.active.dim, store.read_apart),
            has_new=new_cache is not None,
            has_old=old_cache is not None,
        )
        embed = EmbedCache(switching.JointEmbed(new_cache, state.target.dim, old_cache, state.active.dim))
        scorer_embed = new_cache if new_cache is not None else old_cache
    scale_model = target if target is not None else active  # the model new text is embedded with
    assert scale_model is not None
    scale = _calibration(store, scale_model)
    scorer = WriteScorer(
        embed=scorer_embed, weights=dict(settings.signal_weights), threshold=settings.write_threshold, calibration=scale
    )
    scorer.warm()  # the prototypes are embedded here, never inside a write transaction
    # Parts.vectors is typed VectorIndex; a SwitchingIndex offers the same methods over joint vectors.
    parts = Parts(
        store=store,
        vectors=vectors,  # type: ignore[arg-type]
        embed=embed,
        scorer=scorer,
        settings=settings,
        clock=clock,
        model_id=state.active.model_id,
        calibration=scale,
        question_centres=_question_centres(store, state, active, target, scale),
        state=state,
        embedders={
            row.num: e
            for row, e in ((state.active, active), (state.target, target))
            if row is not None and e is not None
        },
    )
    return parts


def _question_centres(
    store: Store,
    state: models.SpaceState,
    active: Embedder | None,
    target: Embedder | None,
    scale: calibration.Calibration,
) -> dict[str, np.ndarray]:
    """Each language's average question, laid out like the vectors recall compares: one model's, or
    during a switch [new | old], each half centred with its own model's average (zeros for a model
    this process cannot load: its half of every question is zeros already)."""
    if state.switch is None or state.target is None:
        return {lang: scale.centre(lang) for lang in calibration.SCRIPTS}
    assert state.active is not None
    halves = []
    for embedder, dim in ((target, state.target.dim), (active, state.active.dim)):
        own = _calibration(store, embedder) if embedder is not None else None
        halves.append(
            {lang: own.centre(lang) if own is not None else np.zeros(dim, np.float32) for lang in calibration.SCRIPTS}
        )
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
