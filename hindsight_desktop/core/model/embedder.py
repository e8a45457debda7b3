"""The local embedding model, run by llama.cpp: loaded once per process, safe to call from threads."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

from hindsight_desktop.core.errors import InvalidInput, ModelError
from hindsight_desktop.core.model import cpu, unigram
from hindsight_desktop.core.model.checksum import sha256_file
from hindsight_desktop.core.model.default_model import ensure_default_model
from hindsight_desktop.core.model.thread_choice import ThreadChooser

# ggml's CPU threads come from OpenMP and meet at a barrier after every step of the model. Left to
# spin for long (OpenMP's default), they starve other processes on a two-core laptop; made to sleep at
# once (OMP_WAIT_POLICY=PASSIVE), every barrier costs a wake-up and two threads are slower than one. A
# short spin gives two threads their speed and still lets a waiting thread sleep soon (measured:
# bench/NOTES.md). Read when libgomp loads.
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "3000")

# llama.cpp's BERT graph needs a whole sequence in one micro-batch; 512 is the model's context.
_CONTEXT = 512
_GGUF_MAGIC = b"GGUF"
EMBED_GROUP = 4
# What a text is embedded as: a question asked of the memory, or a memory stored in it. Models trained
# with instructions (e5: "query: " / "passage: ") place the two apart; others embed both alike.
QUERY, PASSAGE = "query", "passage"
_PREFIX_KEYS = {QUERY: "hindsight.query_prefix", PASSAGE: "hindsight.passage_prefix"}
_LANGUAGES_KEY = "hindsight.languages"
_parallel_lock = threading.Lock()
_default_params_lock = threading.Lock()


class Embedder:
    """One GGUF embedding model. `embed` returns L2-normalised float32 rows (dot product = cosine)."""

    def __init__(self, model_path: Path, *, threads: int | None = None) -> None:
        model_path = Path(model_path)
        _check_gguf_file(model_path)
        try:
            import llama_cpp
        except ImportError as exc:  # pragma: no cover - a broken install
            raise ModelError("llama-cpp-python is not installed") from exc
        self.path = model_path
        self.model_id = f"{model_path.stem}:{sha256_file(model_path)[:12]}"
        self._lock = threading.Lock()
        self._waiting = 0  # calls waiting for `_lock`: the thread choice serves a queue differently
        self._waiting_lock = threading.Lock()
        self._closed = False
        self._threads = threads or min(4, os.cpu_count() or 2)
        self._threads_now = self._threads
        self._chooser = ThreadChooser(self._threads)
        try:
            with _quiet_stderr(), _sequences_per_call(EMBED_GROUP), _no_weight_repacking_where_amx():
                self._llm = llama_cpp.Llama(
                    model_path=str(model_path),
                    embedding=True,
                    n_ctx=_CONTEXT,
                    n_batch=_CONTEXT,
                    n_ubatch=_CONTEXT,
                    n_threads=self._threads,
                    n_threads_batch=self._threads,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp could not load {model_path}: {exc}") from exc
        self.dim = int(self._llm.n_embd())
        if self.dim <= 0:
            raise ModelError(f"{model_path} reports no embedding size; is it an embedding model?")
        metadata = dict(self._llm.metadata or {})
        self.prefixes = {kind: metadata.get(key, "") for kind, key in _PREFIX_KEYS.items()}
        self.name = metadata.get("general.name", model_path.stem)
        self.multilingual = metadata.get(_LANGUAGES_KEY) == "multilingual"
        # Model ids of earlier files that give exactly these vectors (a memory made with one keeps them).
        self.same_vectors_as = frozenset(filter(None, metadata.get(unigram.SAME_VECTORS_KEY, "").split(",")))
        self._tokenize = self._llm.tokenize
        if metadata.get(unigram.TOKENIZER_KEY) == unigram.TOKENIZER_KIND:
            # The default model's vocabulary is not in the GGUF (unigram.py says why): llama-cpp-python's
            # `embed` tokenizes through the instance's `tokenize`, so ours stands in for it.
            name = Path(metadata.get(unigram.TOKENIZER_FILE_KEY, "")).name
            if not name:
                raise ModelError(f"{model_path} does not name its tokenizer file")
            sidecar = model_path.with_name(name)
            self._tokenize = self._llm.tokenize = unigram.load(  # type: ignore[method-assign]
                sidecar, metadata.get(unigram.TOKENIZER_SHA_KEY)
            ).llama_tokenize
        elif metadata.get(unigram.TOKENIZER_KEY):
            raise ModelError(
                f"{model_path} needs a tokenizer this version does not have: {metadata[unigram.TOKENIZER_KEY]!r}"
            )
        release_freed_memory()

    def token_ids(self, text: str, kind: str = PASSAGE) -> list[int]:
        """The ids the model reads for `text` embedded as `kind` (before truncation to its context)."""
        return list(self._tokenize((self.prefixes[kind] + (text.strip() or " ")).encode("utf-8"), True, False))

    def embed(self, texts: list[str], kind: str = PASSAGE) -> np.ndarray:
        """Embed many texts as `kind` (PASSAGE: stored memories; QUERY: questions); an empty list gives
        a (0, dim) array."""
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise InvalidInput("embed() takes a list of strings")
        if kind not in _PREFIX_KEYS:
            raise InvalidInput(f"unknown embedding kind {kind!r}; use 'query' or 'passage'")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Empty strings would embed only the special tokens; a space keeps shapes uniform and harmless.
        # Outer white space is stripped: SentencePiece drops it anyway, and other tokenizers should agree.
        prefix = self.prefixes[kind]
        cleaned = [prefix + t.strip() if t.strip() else prefix + " " for t in texts]
        rows: list = []
        with self._waiting_lock:
            self._waiting += 1
        with self._lock:
            with self._waiting_lock:
                self._waiting -= 1
            if self._closed:
                raise ModelError(f"the model {self.path.name} was closed (the process is ending)")
            # A few texts per llama.cpp call: one big call makes it grow (and keep) buffers for every
            # sequence at once, and is slower per text than small groups (bench/NOTES.md).
            for start in range(0, len(cleaned), EMBED_GROUP):
                group = cleaned[start : start + EMBED_GROUP]
                threads = self._use_threads(self._chooser.choose(self._waiting))
                started = time.perf_counter()
                rows.extend(self._llm.embed(group, normalize=False, truncate=True))
                self._chooser.record(threads, sum(len(t) for t in group), time.perf_counter() - started)
        vectors = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)

    def _use_threads(self, wanted: int) -> int:
        import llama_cpp

        if wanted != self._threads_now:
            llama_cpp.llama_set_n_threads(self._llm.ctx, wanted, wanted)
            self._threads_now = wanted
        return wanted

    def close(self) -> None:
        """Free the model now; later calls to `embed` raise ModelError. Waits for a call in progress."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._llm.close()

    def embed_one(self, text: str, kind: str = PASSAGE) -> np.ndarray:
        return self.embed([text], kind)[0]


@contextlib.contextmanager
def _sequences_per_call(limit: int):
    """Make llama-cpp-python size its context for `limit` sequences per call instead of 256.

    For an embedding model it asks llama.cpp for as many parallel sequences as it allows, and llama.cpp
    reserves an output row of vocabulary size for each: with e5's 250k-token vocabulary that is 256 MB
    (measured RSS 498 MB against 281 MB capped at 4). We never embed more than EMBED_GROUP texts per call.
    """
    import llama_cpp.llama_cpp as low_level

    with _parallel_lock:
        original = low_level.llama_max_parallel_sequences
        low_level.llama_max_parallel_sequences = lambda: min(limit, original())
        try:
            yield
        finally:
            low_level.llama_max_parallel_sequences = original


@contextlib.contextmanager
def _no_weight_repacking_where_amx():
    """Load the model without llama.cpp's extra weight layouts on a processor that lists AMX.

    With AMX listed, ggml lays the weights out for AMX tiles, and a machine that lists AMX without
    running it (virtual machines) dies with SIGILL on the first embedding, a crash no Python code can
    catch. The plain CPU layout runs everywhere; other processors keep the repacked one. llama-cpp-python
    takes no argument for this, so its default model parameters are adjusted while the model loads."""
    if not cpu.advertises_amx():
        yield
        return
    import llama_cpp.llama_cpp as low_level

    with _default_params_lock:
        original = low_level.llama_model_default_params

        def without_extra_layouts():
            params = original()
            params.use_extra_bufts = False
            return params

        low_level.llama_model_default_params = without_extra_layouts
        try:
            yield
        finally:
            low_level.llama_model_default_params = original


def release_freed_memory() -> None:
    """Hand the C heap's free blocks back to the system. Loading a model (and its tokenizer) frees tens of
    thousands of small blocks that glibc would otherwise keep for the life of the process (16 MB
    measured for the default model). Only glibc has `malloc_trim`; elsewhere this does nothing."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: another C library (musl)
        ctypes.CDLL(None).malloc_trim(0)


def _check_gguf_file(path: Path) -> None:
    """Refuse a missing or non-GGUF file with a clear message before llama.cpp sees it."""
    if not path.is_file():
        raise ModelError(f"model file not found: {path}")
    with open(path, "rb") as handle:
        if handle.read(4) != _GGUF_MAGIC:
            raise ModelError(f"{path} is not a GGUF model file")


@contextlib.contextmanager
def _quiet_stderr():
    """llama.cpp prints load logs on fd 2 even with verbose=False in some builds; keep them off the console."""
    try:
        saved = os.dup(2)
    except OSError:  # no real stderr (some GUI launchers)
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


@atexit.register
def _close_loaded() -> None:
    """Free the shared models before the interpreter tears its modules down: llama-cpp-python's own
    finaliser, run later, finds its C functions already gone and prints an ignored TypeError."""
    with _cache_lock:
        for embedder in _cache.values():
            embedder.close()


def load_embedder(model_path: Path) -> Embedder:
    """The shared Embedder for a GGUF file: loaded once per process."""
    key = str(Path(model_path).resolve())
    with _cache_lock:
        if key not in _cache:
            _cache[key] = Embedder(Path(model_path))
        return _cache[key]


def default_embedder(data_dir: Path | None = None) -> Embedder:
    """The packaged multilingual-e5-small, converted to GGUF under `data_dir/models` on first use."""
    from hindsight_desktop.config import default_data_dir

    base = Path(data_dir) if data_dir is not None else default_data_dir()
    return load_embedder(ensure_default_model(base / "models"))
