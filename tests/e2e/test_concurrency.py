"""Several processes on one memory file (the tray app plus stdio MCP processes): no lock errors, no lost writes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

WRITER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from hindsight_desktop.core.model.default_model import ensure_default_model
    from hindsight_desktop.core.model.embedder import load_embedder
    from hindsight_desktop.core.engine import MemoryEngine
    data, models, name, n = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    engine = MemoryEngine(data, embedder=load_embedder(ensure_default_model(models)))
    ids = []
    for i in range(n):
        text = f"Remember: {name} note {i} says parcel {i * 7919} goes to shelf {i}."
        r = engine.write(text, client=name, gate=False)
        ids.append(r.id)
        engine.search(f"parcel {i}", client=name, limit=3)
    print(json.dumps(ids))
    """
)


def test_three_processes_write_at_once_without_losing_anything(tmp_path, model_dir):
    data = tmp_path / "data"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(data), str(model_dir), f"client{k}", "40"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(3)
    ]
    acknowledged: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert "locked" not in err
        acknowledged.extend(json.loads(out.strip().splitlines()[-1]))
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.core.model.default_model import ensure_default_model
    from hindsight_desktop.core.model.embedder import load_embedder

    with MemoryEngine(data, embedder=load_embedder(ensure_default_model(model_dir))) as engine:
        assert len(set(acknowledged)) == 120
        for mid in acknowledged:
            assert engine.get(mid).content.startswith("Remember:")
        assert engine.stats()["vectors"] == 120
