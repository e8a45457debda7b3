"""Model handles: the model's identity from a card written by the first real load, the model itself
loaded only for text that is not a kept probe, and nothing but the fixed probe sentences in the cache."""

from __future__ import annotations

import os

import numpy as np
import pytest

from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model import handle


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HINDSIGHT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_second_handle_knows_the_model_and_its_probes_without_loading_it(cache, embedder):
    fixed = frozenset({"The museum is closed on Mondays."})
    first = handle.ModelHandle(embedder.path, fixed)
    assert first.loaded and first.model_id == embedder.model_id  # no card yet: loaded to learn it
    probe = first.embed(["The museum is closed on Mondays."], "passage")
    first.embed(["My PIN is 4821 and my sister lives in Leeds."], "passage")

    second = handle.ModelHandle(embedder.path, fixed)
    assert not second.loaded
    known = (second.model_id, second.dim, second.multilingual)
    assert known == (embedder.model_id, embedder.dim, embedder.multilingual)
    assert np.array_equal(second.embed(["The museum is closed on Mondays."], "passage"), probe)
    assert not second.loaded  # a kept probe needs no model
    assert second.embed(["The museum is closed on Mondays."], "query").shape == (1, embedder.dim)
    assert second.loaded  # the same sentence as a question was never kept: the model loads for it

    kept = "".join(p.read_text() for p in (cache / handle.PROBES_DIR).iterdir())
    assert "Mondays" in kept and "4821" not in kept and "Leeds" not in kept  # only fixed sentences


def test_a_card_holds_only_for_the_file_it_was_written_for(cache, embedder, tmp_path):
    copy = tmp_path / "model.gguf"
    copy.write_bytes(b"GGUF-not-really")
    handle.write_card(copy, embedder)
    assert handle.read_card(copy).model_id == embedder.model_id
    os.utime(copy, ns=(1, 1))  # the file changed (or was replaced): its card no longer speaks for it
    assert handle.read_card(copy) is None
    handle.write_card(copy, embedder)
    stale = handle.ModelHandle(copy, frozenset())  # a card, but the real file is not that model
    assert not stale.loaded
    with pytest.raises(ModelError):
        stale.embed(["anything"])
