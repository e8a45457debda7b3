"""EmbedCache.held: recall asks it before handing a question to the embedding thread."""

from __future__ import annotations

import numpy as np

from hindsight_desktop.core.context import EmbedCache


class CountingEmbed:
    """Stands for the model: a distinct vector per text, and a count of what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def __call__(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        self.asked += [(kind, t) for t in texts]
        return np.array([[float(len(t)), float(kind == "query")] for t in texts], dtype=np.float32)


def test_held_gives_a_remembered_embedding_and_computes_nothing():
    model = CountingEmbed()
    cache = EmbedCache(model, size=2)
    assert cache.held("where do I live?", "query") is None
    assert model.asked == []  # asking what is held never calls the model
    first = cache(["where do I live?"], "query")[0]
    held = cache.held("where do I live?", "query")
    assert held is not None and np.array_equal(held, first)
    assert cache.held("where do I live?", "passage") is None  # a question and a memory differ
    assert model.asked == [("query", "where do I live?")]


def test_held_leaves_the_eviction_order_alone():
    model = CountingEmbed()
    cache = EmbedCache(model, size=2)
    cache(["a"])
    cache(["bb"])
    cache.held("a")  # not a use: "a" is still the oldest
    cache(["ccc"])
    assert cache.held("a") is None and cache.held("bb") is not None and cache.held("ccc") is not None


def test_held_reads_what_an_import_keeps():
    model = CountingEmbed()
    cache = EmbedCache(model, size=1)
    kept: dict[tuple[str, str], np.ndarray] = {}
    with cache.keeping(kept):
        cache(["one", "two"])  # past the cache's size, but kept for the import
        assert cache.held("one") is not None
    assert cache.held("one") is None and cache.held("two") is not None
