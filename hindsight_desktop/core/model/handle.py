"""A model file as the engine holds it: its identity at once, the model itself only when text must be embedded.

Opening a memory needs to know which model its vectors came from (the id, the size of a vector, its
languages), and the write gate and the score scale need the vectors of a few fixed sentences (the
calibration probes, the gate's prototypes). None of that needs the model loaded once this computer
has loaded it before: the first real load writes a card with the model's identity, and every fixed
sentence embedded is kept, per model, in the cache folder. So `stats`, `show` or `export` open the
memory without loading the model, and a second process with the same model never embeds a probe again.

The card is trusted only while the file is the one it was written for (same size, modification and
change times, inode); the real load checks the id again and refuses a file that is not the card's.
Only sentences in the handle's `fixed` set are ever written to the cache: never a person's text.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_desktop.config import default_cache_dir
from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model.embedder import PASSAGE, Embedder, load_embedder
from hindsight_desktop.core.store.private_files import private_dir, private_writer

CARD_VERSION = 1
PROBE_CACHE_VERSION = 1
CARDS_DIR, PROBES_DIR = "model-cards", "model-probes"


@dataclass(frozen=True)
class Card:
    """What the engine reads of a model without running it."""

    model_id: str
    dim: int
    multilingual: bool
    same_vectors_as: frozenset[str]
    name: str


def _stamp(path: Path) -> dict[str, int]:
    info = path.stat()
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "ctime_ns": info.st_ctime_ns, "ino": info.st_ino}


def _card_file(path: Path) -> Path:
    # Named by the resolved path, so the card holds no folder name of its own.
    digest = hashlib.sha256(str(path.resolve()).encode("utf-8")).hexdigest()[:24]
    return default_cache_dir() / CARDS_DIR / f"{digest}.json"


def read_card(path: Path) -> Card | None:
    """The card written for this very file, or None (no card, another file, an unreadable one)."""
    try:
        data = json.loads(_card_file(path).read_text(encoding="utf-8"))
        if data.get("version") != CARD_VERSION or data.get("stamp") != _stamp(path):
            return None
        return Card(
            str(data["model_id"]),
            int(data["dim"]),
            bool(data["multilingual"]),
            frozenset(str(x) for x in data["same_vectors_as"]),
            str(data["name"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_card(path: Path, embedder: Embedder) -> None:
    """Remember a loaded model's identity for the next process (a cache: a failure only costs a load)."""
    data = {
        "version": CARD_VERSION,
        "stamp": _stamp(path),
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "multilingual": embedder.multilingual,
        "same_vectors_as": sorted(embedder.same_vectors_as),
        "name": embedder.name,
    }
    target = _card_file(path)
    with contextlib.suppress(OSError):
        private_dir(target.parent)
        with private_writer(target) as handle:
            json.dump(data, handle)


class ProbeVectors:
    """The vectors of fixed sentences for one model, kept in the cache folder between processes."""

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_id)
        self.file = default_cache_dir() / PROBES_DIR / f"{safe}.json"
        self._lock = threading.Lock()
        self._vectors: dict[str, dict[str, str]] | None = None

    def _load(self) -> dict[str, dict[str, str]]:
        if self._vectors is None:
            try:
                data = json.loads(self.file.read_text(encoding="utf-8"))
                ok = data.get("version") == PROBE_CACHE_VERSION and data.get("model_id") == self.model_id
                self._vectors = {str(k): dict(v) for k, v in data["vectors"].items()} if ok else {}
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                self._vectors = {}
        return self._vectors

    def get(self, texts: list[str], kind: str) -> np.ndarray | None:
        """Their vectors when every one is kept, else None."""
        with self._lock:
            kept = self._load().get(kind, {})
            found = [kept.get(t) for t in texts]
        if any(v is None for v in found):
            return None
        try:
            return np.stack([np.frombuffer(base64.b64decode(v), dtype="<f4") for v in found])  # type: ignore[arg-type]
        except (ValueError, TypeError):
            return None

    def put(self, texts: Iterable[str], vectors: Iterable[np.ndarray], kind: str) -> None:
        with self._lock:
            kept = self._load().setdefault(kind, {})
            added = False
            for text, vector in zip(texts, vectors, strict=True):
                if text not in kept:
                    kept[text] = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")
                    added = True
            if not added:
                return
            data = {"version": PROBE_CACHE_VERSION, "model_id": self.model_id, "vectors": self._vectors}
            with contextlib.suppress(OSError):
                private_dir(self.file.parent)
                with private_writer(self.file) as handle:
                    json.dump(data, handle)


class ModelHandle:
    """An Embedder's stand-in: identity from the card (or the model, loaded to learn it), the model
    loaded on the first text that is not a kept probe. Safe to share between threads and engines."""

    def __init__(self, path: Path, fixed: frozenset[str]) -> None:
        self.path = Path(path)
        self.fixed = fixed
        self._lock = threading.Lock()
        self._model: Embedder | None = None
        self._card = read_card(self.path)
        if self._card is None:
            self.load()
        assert self._card is not None
        self._probes = ProbeVectors(self._card.model_id)

    # ---- identity: from the card ---------------------------------------------------------------
    @property
    def model_id(self) -> str:
        return self._card_now().model_id

    @property
    def dim(self) -> int:
        return self._card_now().dim

    @property
    def multilingual(self) -> bool:
        return self._card_now().multilingual

    @property
    def same_vectors_as(self) -> frozenset[str]:
        return self._card_now().same_vectors_as

    @property
    def name(self) -> str:
        return self._card_now().name

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _card_now(self) -> Card:
        assert self._card is not None
        return self._card

    # ---- the model: on first need --------------------------------------------------------------
    def load(self) -> Embedder:
        with self._lock:
            if self._model is None:
                model = load_embedder(self.path)
                if self._card is not None and model.model_id != self._card.model_id:
                    raise ModelError(
                        f"the model file {self.path} changed while it was in use (it is now {model.model_id}, "
                        f"was {self._card.model_id}); open the memory again"
                    )
                if self._card is None:
                    write_card(self.path, model)
                    self._card = Card(model.model_id, model.dim, model.multilingual, model.same_vectors_as, model.name)
                self._model = model
            return self._model

    def embed(self, texts: list[str], kind: str = PASSAGE) -> np.ndarray:
        """As Embedder.embed; a batch of kept probe sentences is answered without the model."""
        probes = isinstance(texts, list) and bool(texts) and all(isinstance(t, str) and t in self.fixed for t in texts)
        if probes:
            kept = self._probes.get(texts, kind)
            if kept is not None:
                return kept
        vectors = self.load().embed(texts, kind)
        if probes:
            self._probes.put(texts, vectors, kind)
        return vectors

    def embed_one(self, text: str, kind: str = PASSAGE) -> np.ndarray:
        return self.embed([text], kind)[0]

    def close(self) -> None:
        if self._model is not None:
            self._model.close()

    def __getattr__(self, name: str) -> Any:
        # Anything else an Embedder offers (token_ids, prefixes): the model's own.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.load(), name)


_handles: dict[str, ModelHandle] = {}
_handles_lock = threading.Lock()


def model_handle(path: Path, fixed: frozenset[str], *, lazy: bool) -> ModelHandle:
    """The process's handle on a GGUF file (one per file); with `lazy` False the model is loaded now."""
    key = str(Path(path).resolve())
    with _handles_lock:
        handle = _handles.get(key)
        if handle is None or handle.fixed != fixed:
            handle = _handles[key] = ModelHandle(Path(path), fixed)
    if not lazy:
        handle.load()
    return handle


def forget_handles() -> None:
    """Drop the process's handles (tests that start over with a fresh cache folder)."""
    with _handles_lock:
        _handles.clear()
