"""What the processor says it can do, where that changes how llama.cpp must be asked to run."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

_CPUINFO = Path("/proc/cpuinfo")


@cache
def advertises_amx() -> bool:
    """True when Linux lists Intel AMX tiles among the processor's flags.

    Virtual machines may list the flag and grant the tile permission yet trap the first tile
    instruction (seen on a Firecracker guest: SIGILL in ggml's AMX matrix multiply), so a flag is not
    proof that AMX runs. Outside Linux there is no such listing, and we assume no AMX."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        text = _CPUINFO.read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and " amx_tile" in line for line in text.splitlines())
