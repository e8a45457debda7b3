"""A model is measured once per computer: a second process with the same model, even on a new memory
file, embeds no calibration probe and no gate prototype again, and a command that only reads (`stats`)
does not load the model at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.mcp import env_for, prepare_data_dir

# Opens a memory in a fresh process and counts what the real model did there.
_COUNT = """
import json, sys
from pathlib import Path
from hindsight_desktop.core.engine import PROBE_TEXTS, MemoryEngine
from hindsight_desktop.core.model import embedder as model

counts = {"loads": 0, "texts": 0, "probes": 0}
load, embed = model.Embedder.__init__, model.Embedder.embed

def counted_load(self, *args, **kwargs):
    counts["loads"] += 1
    load(self, *args, **kwargs)

def counted_embed(self, texts, *args, **kwargs):
    counts["texts"] += len(texts)
    counts["probes"] += sum(t in PROBE_TEXTS for t in texts)
    return embed(self, texts, *args, **kwargs)

model.Embedder.__init__, model.Embedder.embed = counted_load, counted_embed
data, operation = Path(sys.argv[1]), sys.argv[2]
with MemoryEngine(data, lazy_model=True) as engine:
    if operation == "write":
        engine.write("My sister Priya lives in Toronto.", explicit=True)
    else:
        engine.stats()
print(json.dumps(counts))
"""


def _count(data_dir: Path, operation: str, cache: Path) -> dict[str, int]:
    proc = subprocess.run(
        [sys.executable, "-c", _COUNT, str(data_dir), operation],
        env=env_for(data_dir, HINDSIGHT_CACHE_DIR=str(cache)),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_second_process_with_the_same_model_measures_nothing(tmp_path, model_dir, embedder):
    cache = tmp_path / "cache"  # this computer's cache folder, empty: nothing measured yet
    first = _count(prepare_data_dir(tmp_path / "a", model_dir), "write", cache)
    assert first["loads"] == 1 and first["probes"] > 50  # the probes and the prototypes, measured here

    again = _count(prepare_data_dir(tmp_path / "b", model_dir), "write", cache)  # a new memory file
    assert again == {"loads": 1, "texts": 1, "probes": 0}  # the model loads for the text it writes, no more

    for folder in ("b", "c"):  # an existing memory, and one `stats` creates: no model at all
        assert _count(prepare_data_dir(tmp_path / folder, model_dir), "stats", cache) == {
            "loads": 0,
            "texts": 0,
            "probes": 0,
        }
