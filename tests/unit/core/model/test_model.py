"""The default model: converted from the packaged weights, run by llama.cpp, shared and thread-safe."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model.checksum import sha256_file
from hindsight_desktop.core.model.default_model import DEFAULT_MODEL_FILE, ensure_default_model
from hindsight_desktop.core.model.embedder import Embedder, load_embedder


def test_conversion_is_checksummed_and_reused(model_dir):
    path = ensure_default_model(model_dir)
    assert path.name == DEFAULT_MODEL_FILE
    stamp = path.stat().st_mtime_ns
    assert ensure_default_model(model_dir).stat().st_mtime_ns == stamp  # checksum matched: not rebuilt
    assert (model_dir / (DEFAULT_MODEL_FILE + ".sha256")).read_text().split()[0]


def test_conversion_is_reproducible(model_dir, tmp_path):
    """The same weights must give the same file: its checksum is part of the model id, and a new id
    would make every stored vector look like another model's (a needless full re-embed)."""
    again = ensure_default_model(tmp_path)
    assert sha256_file(again) == sha256_file(ensure_default_model(model_dir))


def _private_cache(model_dir, tmp_path, monkeypatch):
    """A cache of this test's own holding a copy of the session's converted model: the data folders
    below share its file, and this test writes into it."""
    import shutil

    from hindsight_desktop.core.model import default_model

    cache = tmp_path / "cache"
    cache.mkdir()
    for part in default_model.model_files(ensure_default_model(model_dir)):
        shutil.copyfile(part, cache / part.name)
        (cache / part.name).chmod(0o600)
    monkeypatch.setattr(default_model, "machine_model_dir", lambda: cache)
    return cache


def test_corrupt_model_file_is_rebuilt(tmp_path, model_dir, monkeypatch):
    _private_cache(model_dir, tmp_path, monkeypatch)
    path = ensure_default_model(tmp_path / "data")
    with open(path, "r+b") as handle:
        handle.seek(1000)
        handle.write(b"garbage!")
    rebuilt = ensure_default_model(tmp_path / "data")
    assert Embedder(rebuilt).dim == 384


def test_data_folders_share_the_one_converted_copy(tmp_path, model_dir, monkeypatch):
    import shutil

    from hindsight_desktop.core.model import default_model
    from hindsight_desktop.core.model.default_model import checksum_file, model_files
    from hindsight_desktop.core.model.e5_convert import tokenizer_file

    cache = _private_cache(model_dir, tmp_path, monkeypatch)
    cached = cache / DEFAULT_MODEL_FILE
    first, second = (ensure_default_model(tmp_path / name / "models") for name in ("one", "two"))
    # One file on disk, three names: the cache's and each data folder's (a hard link, not a copy).
    assert first.stat().st_ino == second.stat().st_ino == cached.stat().st_ino and cached.stat().st_nlink == 3
    assert tokenizer_file(first).stat().st_ino == tokenizer_file(cached).stat().st_ino
    assert checksum_file(first).read_text() == checksum_file(cached).read_text()  # each folder has its own
    assert first.stat().st_mode & 0o777 == 0o600
    (cache / "elsewhere").mkdir()
    loose = cache / "elsewhere" / DEFAULT_MODEL_FILE
    for part in model_files(cached):
        shutil.copyfile(part, loose.parent / part.name)  # 0644: others could read it
    monkeypatch.setattr(default_model, "machine_model_dir", lambda: loose.parent)
    copied = ensure_default_model(tmp_path / "three" / "models")
    assert copied.stat().st_ino != loose.stat().st_ino and copied.stat().st_mode & 0o777 == 0o600  # copied, 0600
    monkeypatch.setattr(default_model, "machine_model_dir", lambda: cache)
    # The cache is safe to delete: each data folder keeps a whole model of its own.
    shutil.rmtree(cache)
    assert ensure_default_model(tmp_path / "one" / "models") == first and Embedder(first).dim == 384
    # Damaged through any of its names, the file is caught by its checksum and rebuilt in each folder.
    with open(second, "r+b") as handle:
        handle.seek(1000)
        handle.write(b"garbage!")
    assert sha256_file(first) != checksum_file(first).read_text().split()[0]  # the damage reached both names
    for folder in ("one", "two"):
        path = ensure_default_model(tmp_path / folder / "models")
        assert sha256_file(path) == checksum_file(path).read_text().split()[0]
    assert sha256_file(first) == sha256_file(second) == sha256_file(ensure_default_model(model_dir))


def test_embeddings_are_normalised_and_meaningful(embedder):
    vectors = embedder.embed(["I live in Beijing.", "My home is in Beijing, China.", "The printer is out of ink."])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    # e5's cosines sit in a high, narrow band: what matters is the gap between related and unrelated.
    assert similar - unrelated > 0.1


def test_model_is_loaded_once_per_process(model_dir, embedder):
    assert load_embedder(ensure_default_model(model_dir)) is embedder


def test_threads_get_the_same_vectors(embedder):
    texts = [f"memory number {i} about trains and coffee" for i in range(24)]
    expected = embedder.embed(texts)
    with ThreadPoolExecutor(max_workers=4) as pool:
        rows = list(pool.map(lambda t: embedder.embed([t])[0], texts))
    # A 4-bit model rounds its 8-bit activations per block, so one text alone and four together (another
    # summation order) differ in the fourth decimal; as vectors they are the same (cosine > 0.9999).
    assert np.min(np.sum(np.stack(rows) * expected, axis=1)) > 0.9999
    assert np.allclose(np.stack(rows), expected, atol=3e-3)


def test_thread_count_does_not_change_the_vectors(embedder):
    """The embedder switches between one and several llama.cpp threads as the machine gets busy;
    a memory's vector must not depend on which it got."""
    texts = ["On Tuesday I met Caroline at the Lisbon office.", "记住：护照在书桌左边的抽屉里。"]
    by_threads = {}
    for threads in embedder._chooser.options:
        embedder._use_threads(threads)
        by_threads[threads] = embedder._llm.embed(texts, normalize=True)
    first = np.asarray(by_threads[1])
    for rows in by_threads.values():
        assert np.min(np.sum(np.asarray(rows) * first, axis=1)) > 0.9999
        assert np.allclose(np.asarray(rows), first, atol=3e-3)


def test_invalid_model_files_fail_clearly(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        Embedder(tmp_path / "missing.gguf")
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a model at all")
    with pytest.raises(ModelError, match="not a GGUF"):
        Embedder(bogus)


def test_a_model_without_its_tokenizer_file_fails_clearly(model_dir, tmp_path):
    """The default model's vocabulary lives beside the GGUF; a copy without it is refused by name, and
    `ensure_default_model` puts a missing one back."""
    import shutil

    from hindsight_desktop.core.model.e5_convert import tokenizer_file

    source = ensure_default_model(model_dir)
    alone = tmp_path / "copied" / source.name
    alone.parent.mkdir()
    shutil.copyfile(source, alone)
    with pytest.raises(ModelError, match="tokenizer file is missing"):
        Embedder(alone)
    shutil.copyfile(tokenizer_file(source), tokenizer_file(alone))
    with open(tokenizer_file(alone), "r+b") as handle:
        handle.seek(200)
        handle.write(b"garbage!")
    with pytest.raises(ModelError, match="does not belong"):
        Embedder(alone)
    kept = tmp_path / "kept"
    path = ensure_default_model(kept)
    tokenizer_file(path).unlink()
    assert Embedder(ensure_default_model(kept)).dim == 384


def test_a_memory_made_with_an_equivalent_file_keeps_its_vectors(tmp_path, embedder, clock):
    """A memory whose model row names an earlier file of the same model (converter version 1, which kept
    the vocabulary in the GGUF) adopts the new file's id: no switch, no re-embed."""
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.core.store import models

    old_id = next(iter(embedder.same_vectors_as))
    with MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock) as engine:
        written = engine.write("My passport number ends in 4471.", client="t", gate=False)
        with engine.store.write() as db:
            db.execute("UPDATE models SET model_id = ?, path = ?", (old_id, str(tmp_path / "gone.gguf")))
    with MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock) as engine:
        with engine.store.read() as db:
            state = models.read_state(db)
            renamed = db.execute("SELECT detail FROM events WHERE kind = 'model_renamed'").fetchall()
        assert state.switch is None and state.active is not None
        assert state.active.model_id == embedder.model_id
        assert len(renamed) == 1 and old_id in renamed[0][0]
        hits = engine.search("what is my passport number?", mode="vector").hits
        assert hits and hits[0].memory.id == written.id


def test_a_closed_model_refuses_to_embed(model_dir):
    own = Embedder(ensure_default_model(model_dir))  # not the shared one: this test closes it
    assert own.embed_one("hello").shape == (own.dim,)
    own.close()
    own.close()  # twice is harmless
    with pytest.raises(ModelError, match="was closed"):
        own.embed(["hello"])
