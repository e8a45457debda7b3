"""A memory's vector travels with it when both devices use the same model, and is embedded again on
arrival when they do not; the keyword index is rebuilt on arrival either way."""

from __future__ import annotations

import numpy as np

from hindsight_desktop.core.engine import MemoryEngine


def _vector(engine: MemoryEngine, memory_id: str) -> np.ndarray:
    parts = engine.current_parts()
    with engine.store.read() as db:
        rowid = db.execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()[0]
        return parts.vectors.vectors(db, [rowid])[rowid]


class Counting:
    def __init__(self, embed):
        self.embed, self.texts = embed, []

    def __call__(self, texts, kind="passage"):
        self.texts.extend(texts)
        return self.embed(texts, kind)

    def held(self, text, kind="passage"):  # a look-up of what is remembered embeds nothing
        return self.embed.held(text, kind)


def test_same_model_carries_the_vector_and_another_model_embeds_again(pair, monkeypatch):
    a, b = pair
    counting = Counting(b.current_parts().embed)
    monkeypatch.setattr(b.current_parts(), "embed", counting)
    carried = a.write("The allotment plot number is 14B, by the east gate", explicit=True)
    a.sync_now()
    b.sync_now()
    assert "The allotment plot number is 14B, by the east gate" not in counting.texts
    assert np.array_equal(_vector(a, carried.id), _vector(b, carried.id))
    assert b.search("allotment east gate", mode="keyword").hits[0].memory.id == carried.id

    monkeypatch.setattr(a.current_parts(), "model_id", "another-model:000000000000")
    other = a.write("我的自行车锁是蓝色的，钥匙在厨房抽屉里", explicit=True)
    a.sync_now()
    b.sync_now()
    assert "我的自行车锁是蓝色的，钥匙在厨房抽屉里" in counting.texts  # embedded here, not taken
    assert b.search("自行车锁", mode="vector").hits[0].memory.id == other.id
    assert b.check_indexes().ok
