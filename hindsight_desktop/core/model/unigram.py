"""A SentencePiece unigram tokenizer for the default model, in a few MB instead of llama.cpp's ~90 MB.

llama.cpp keeps a tokenizer for XLM-RoBERTa's 250k-piece vocabulary in tries and maps that take about
127 MB of a process's memory (measured; the model's weights are 72 MB). The default model's GGUF
therefore carries short placeholder token names, which llama.cpp loads in ~35 MB, and the real
vocabulary lives in a sidecar file read by this module. Pieces are kept only as 64-bit hashes in sorted
arrays (~4 MB): every substring of a text is hashed and looked up in one vectorised search.

The result is the same as llama.cpp's unigram ("UGM") tokenizer over the same vocabulary: the same
normalisation (a per-character table, then runs of spaces become one "▁" before each word), the same
Viterbi search over piece scores (ties go to the first path found), the same penalty for a character no
piece covers, and runs of unknown characters merged into one <unk>. tests/unit/core/model/test_e5_model.py checks
the ids against a reference tokenizer and the source model.
"""

from __future__ import annotations

import functools
import math
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model.checksum import sha256_file
from hindsight_desktop.core.store.private_files import private_bytes_writer

# GGUF keys of our own: the model's ids come from this module, reading the named sidecar file; and the
# model ids of earlier files whose vectors this file reproduces exactly (comma-separated).
TOKENIZER_KEY = "hindsight.tokenizer"
TOKENIZER_KIND = "unigram"
TOKENIZER_FILE_KEY = "hindsight.tokenizer.file"
TOKENIZER_SHA_KEY = "hindsight.tokenizer.sha256"
SAME_VECTORS_KEY = "hindsight.same_vectors_as"
# What a piece is, as stored in the sidecar.
NORMAL, UNKNOWN, CONTROL = 1, 2, 3
SPACE = "\u2581"  # SentencePiece's visible space
UNKNOWN_PENALTY = 10.0  # below the lowest piece's score, as SentencePiece and llama.cpp do
# Characters past this are not tokenized: the model reads its first 512 tokens only, and no piece is
# longer than 16 characters, so these hold them (the rest would only cost time and memory).
LONGEST_TEXT = 8192
WORDS_CACHED = 8192
_FORMAT = 1


class UnigramTokenizer:
    """Text -> token ids for one SentencePiece unigram vocabulary."""

    def __init__(
        self,
        pieces: Sequence[str],
        scores: Sequence[float],
        kinds: Sequence[int],
        normalise: dict[str, str],
        *,
        bos: int,
        eos: int,
        unk: int,
    ) -> None:
        if not (len(pieces) == len(scores) == len(kinds)) or not pieces:
            raise ModelError("a tokenizer needs one score and one kind for every piece")
        self.bos, self.eos, self.unk = bos, eos, unk
        kinds_array = np.asarray(kinds, dtype=np.uint8)
        scores_array = np.asarray(scores, dtype=np.float32)
        usable = np.flatnonzero(kinds_array == NORMAL)
        if not len(usable):
            raise ModelError("a tokenizer needs at least one ordinary piece")
        # Should two pieces be the same text, the first id wins (none are, in XLM-R's vocabulary).
        hashes = np.zeros(len(usable), dtype=np.int64)
        self._longest = 1
        for row, i in enumerate(usable):  # no list of 250k ints: its memory would stay with the process
            piece = pieces[int(i)]
            hashes[row] = _key(piece)
            self._longest = max(self._longest, len(piece))
        keys, first = np.unique(hashes, return_index=True)
        chosen = usable[first]
        self._keys = keys
        self._ids = chosen.astype(np.int32)
        self._scores = scores_array[chosen].astype(np.float64)
        self._unknown_score = float(scores_array[usable].min()) - UNKNOWN_PENALTY
        self._table = {ord(k): (v or None) for k, v in normalise.items() if len(k) == 1}
        # Words recur (the "passage: " prefix, common words), so their segmentations are kept.
        self._word_ids = functools.lru_cache(maxsize=WORDS_CACHED)(self._segment)

    # ---- the steps ------------------------------------------------------------------------------
    def words(self, text: str) -> list[str]:
        """The per-character table, then each word with one "▁" before it (extra spaces dropped)."""
        mapped = text[:LONGEST_TEXT].translate(self._table)
        return [SPACE + word for word in mapped.split(" ") if word]

    def _segment(self, word: str) -> tuple[int, ...]:
        """The best-scoring segmentation of one normalised word, as ids.

        A word at a time is exact, not an approximation: no piece holds a "▁" past its first
        character, so every path through a text splits before each "▁" (and the unknown runs that
        are merged never cross one)."""
        n = len(word)
        # Every substring up to the longest piece, one length at a time (comprehensions are the fast
        # path in Python), then looked up all at once.
        hashes: list[int] = []
        starts: list[np.ndarray] = []
        for length in range(1, min(self._longest, n) + 1):
            hashes.extend([hash(word[i : i + length]) ^ length for i in range(n - length + 1)])  # _key, inlined
            starts.append(np.arange(n - length + 1))
        wanted = np.asarray(hashes, dtype=np.int64)
        where = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
        found = np.flatnonzero(self._keys[where] == wanted)
        start = np.concatenate(starts)[found]
        size = np.repeat(np.arange(1, len(starts) + 1), [len(s) for s in starts])[found]
        order = np.lexsort((size, start))  # by start, then shortest first: llama.cpp's order
        rows = where[found][order]
        return tuple(
            self._best_path(
                n, start[order].tolist(), size[order].tolist(), self._ids[rows].tolist(), self._scores[rows].tolist()
            )
        )

    def _best_path(
        self, n: int, starts: list[int], lengths: list[int], ids: list[int], scores: list[float]
    ) -> list[int]:
        best = [-math.inf] * (n + 1)
        best[0] = 0.0
        came_from = [0] * (n + 1)
        token = [self.unk] * (n + 1)
        k, total = 0, len(starts)
        for i in range(n):
            here = best[i]
            single = False
            while k < total and starts[k] == i:
                end = i + lengths[k]
                single = single or lengths[k] == 1
                if here + scores[k] > best[end]:  # strictly better: a tie keeps the first path found
                    best[end], came_from[end], token[end] = here + scores[k], i, ids[k]
                k += 1
            if not single and here + self._unknown_score > best[i + 1]:
                best[i + 1], came_from[i + 1], token[i + 1] = here + self._unknown_score, i, self.unk
        out: list[int] = []
        at, previous_unknown = n, False
        while at > 0:
            unknown = token[at] == self.unk
            if not (unknown and previous_unknown):  # a run of unknown characters is one <unk>
                out.append(token[at])
            previous_unknown = unknown
            at = came_from[at]
        out.reverse()
        return out

    def pieces(self, text: str) -> list[int]:
        """The ids of `text` (no <s> or </s>)."""
        ids: list[int] = []
        for word in self.words(text):
            ids.extend(self._word_ids(word))
        return ids

    def encode(self, text: str) -> list[int]:
        """<s> ids </s>, as the model was trained to read a text."""
        return [self.bos, *self.pieces(text), self.eos]

    def llama_tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        """Stands in for `llama_cpp.Llama.tokenize`, which llama-cpp-python's `embed` calls."""
        decoded = text.decode("utf-8", errors="replace")
        return self.encode(decoded) if add_bos else self.pieces(decoded)


# ---- the sidecar file ---------------------------------------------------------------------------
def save(
    path: Path,
    pieces: Sequence[bytes],
    scores: np.ndarray,
    kinds: Sequence[int],
    normalise: dict[str, str],
    *,
    bos: int,
    eos: int,
    unk: int,
) -> str:
    """Write the vocabulary atomically to `path` (a .npz file); returns its SHA-256."""
    offsets = np.zeros(len(pieces) + 1, dtype=np.uint32)
    offsets[1:] = np.cumsum([len(p) for p in pieces])
    keys = sorted(normalise)
    values = [normalise[key].encode("utf-8") for key in keys]
    value_offsets = np.zeros(len(values) + 1, dtype=np.uint32)
    value_offsets[1:] = np.cumsum([len(v) for v in values])
    arrays: dict[str, Any] = {
        "format": np.asarray([_FORMAT, bos, eos, unk], dtype=np.int64),
        "pieces": np.frombuffer(b"".join(pieces), dtype=np.uint8),
        "offsets": offsets,
        "scores": np.asarray(scores, dtype=np.float32),
        "kinds": np.asarray(kinds, dtype=np.uint8),
        "norm_from": np.asarray([ord(k) for k in keys], dtype=np.uint32),
        "norm_to": np.frombuffer(b"".join(values), dtype=np.uint8),
        "norm_offsets": value_offsets,
    }
    with private_bytes_writer(path) as handle:
        np.savez(handle, **arrays)
    digest = sha256_file(path)
    return digest


def load(path: Path, expected_sha256: str | None = None) -> UnigramTokenizer:
    """Read a sidecar written by `save`, refusing a missing, damaged or different file."""
    if not path.is_file():
        raise ModelError(f"the model's tokenizer file is missing: {path}")
    if expected_sha256 and sha256_file(path) != expected_sha256:
        raise ModelError(f"the model's tokenizer file {path} does not belong to this model (checksum differs)")
    try:
        with np.load(path, allow_pickle=False) as data:
            header = data["format"].tolist()
            blob, offsets = data["pieces"].tobytes(), data["offsets"]
            scores, kinds = data["scores"], data["kinds"]
            norm_from, norm_to, norm_offsets = data["norm_from"], data["norm_to"].tobytes(), data["norm_offsets"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise ModelError(f"the model's tokenizer file {path} cannot be read: {exc}") from exc
    if header[0] != _FORMAT:
        raise ModelError(f"{path} is a tokenizer file of format {header[0]}; this version reads {_FORMAT}")
    pieces = _Pieces(blob, offsets)
    normalise = {
        chr(int(cp)): norm_to[norm_offsets[i] : norm_offsets[i + 1]].decode("utf-8") for i, cp in enumerate(norm_from)
    }
    return UnigramTokenizer(pieces, scores, kinds, normalise, bos=header[1], eos=header[2], unk=header[3])


class _Pieces(Sequence[str]):
    """The pieces decoded one at a time from the blob, so all 250k never sit in memory as strings."""

    def __init__(self, blob: bytes, offsets: np.ndarray) -> None:
        self._blob, self._offsets = blob, offsets  # an array, not a list: see UnigramTokenizer.__init__

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._blob[int(self._offsets[index]) : int(self._offsets[index + 1])].decode("utf-8")


def _key(piece: str) -> int:
    """A piece's 64-bit lookup key. Python hashes a string's raw storage, so "eg" (two one-byte
    characters) and "来" (one two-byte character) hash alike: 485 such pairs in XLM-R's vocabulary.
    Mixing in the length tells them apart."""
    return hash(piece) ^ len(piece)
