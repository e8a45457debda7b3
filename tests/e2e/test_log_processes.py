"""Several processes of one kind share one log file (two assistants each start an `mcp` bridge): real
processes write at once across many rotations, and every line survives whole, exactly once."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

WRITERS = 4
LINES = 400
# Small files and enough copies that nothing written is rotated away: the test can then find every line.
MAX_BYTES = 8_000
BACKUPS = 60

WRITER = textwrap.dedent(
    """
    import logging, os, sys, time
    from pathlib import Path
    from hindsight_desktop import logs

    logs.MAX_BYTES, logs.BACKUPS = {max_bytes}, {backups}
    name, go = sys.argv[1], Path(sys.argv[2])
    assert logs.setup("mcp") is not None
    log = logging.getLogger("hindsight_desktop.bridge")
    (go.parent / ("ready-" + name)).touch()
    while not go.exists():  # start together, so the writes and rotations overlap
        time.sleep(0.005)
    for n in range({lines}):
        log.info("writer %s line %04d %s end", name, n, "x" * (n % 37))
    """
)
LINE = re.compile(r"^\S+Z INFO hindsight_desktop\.bridge: writer (w\d) line (\d{4}) (x*) end$")


def test_processes_writing_one_file_across_rotations_lose_no_line(tmp_path: Path):
    folder = tmp_path / "logs"
    go = tmp_path / "go"
    script = WRITER.format(max_bytes=MAX_BYTES, backups=BACKUPS, lines=LINES)
    env = {**os.environ, "HINDSIGHT_LOG_DIR": str(folder)}
    procs = [
        subprocess.Popen([sys.executable, "-c", script, f"w{i}", str(go)], env=env, stderr=subprocess.PIPE, text=True)
        for i in range(WRITERS)
    ]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("ready-*"))) < WRITERS and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    errors = [proc.communicate(timeout=120)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * WRITERS, errors
    assert not any(errors), errors  # the handler reports a failed write or rotation on stderr

    files = sorted(folder.glob("mcp.log*"))
    rotated = [p for p in files if p.name != "mcp.log"]
    assert len(rotated) >= 10 and len(rotated) < BACKUPS  # it rotated many times, and kept everything
    assert not list(folder.glob("*.rotate.*"))  # no half-done rotation left behind
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in [*files, folder / ".__mcp.lock"])

    seen: dict[tuple[str, int], int] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            match = LINE.match(line)
            assert match, f"a broken or interleaved line in {path.name}: {line!r}"
            n = int(match[2])
            assert match[3] == "x" * (n % 37), f"a line lost part of its text: {line!r}"
            seen[(match[1], n)] = seen.get((match[1], n), 0) + 1
    expected = {(f"w{i}", n) for i in range(WRITERS) for n in range(LINES)}
    assert set(seen) == expected, f"missing: {sorted(expected - set(seen))[:10]}"
    assert set(seen.values()) == {1}  # none written twice

    # Each writer's lines stay in their order across the files (oldest file is the highest number).
    def age(path: Path) -> int:
        return -int(path.suffix[1:]) if path.name != "mcp.log" else 0

    order: dict[str, list[int]] = {f"w{i}": [] for i in range(WRITERS)}
    for path in sorted(files, key=age):
        for line in path.read_text(encoding="utf-8").splitlines():
            match = LINE.match(line)
            assert match
            order[match[1]].append(int(match[2]))
    assert all(numbers == list(range(LINES)) for numbers in order.values())
