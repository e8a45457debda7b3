"""The parts every engine operation needs, bundled so the write, recall and forget modules stay small."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from threading import Lock

import numpy as np

from hindsight_desktop.config import Settings
from hindsight_desktop.core.model.calibration import Calibration
from hindsight_desktop.core.store.database import Store
from hindsight_desktop.core.store.vectors import VectorIndex
from hindsight_desktop.core.write.gate import WriteScorer


class EmbedCache:
    """Remembers the last few embeddings, so the write gate and the store share one model call per text.

    `kind` is "passage" for text that is stored and "query" for a question (see embedder.QUERY).
    """

    def __init__(self, embed: Callable[..., np.ndarray], size: int = 256) -> None:
        self._embed = embed
        self._size = size
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = Lock()

    def __call__(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if (kind, t) not in self._items]
        if missing:
            fresh = self._embed(missing, kind)
            with self._lock:
                for text, vector in zip(missing, fresh, strict=True):
                    self._items[(kind, text)] = vector
                    self._items.move_to_end((kind, text))
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        with self._lock:
            found = {t: self._items.get((kind, t)) for t in texts}
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
    extra: dict = field(default_factory=dict)

    def centred_question(self, vector: np.ndarray, asked: str) -> np.ndarray:
        """The question vector as recall compares it with memories: less the average question."""
        return np.asarray(vector, dtype=np.float32) - self.question_centres[self.calibration.script(asked)]
