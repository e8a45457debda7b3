"""JSON read from an import file, refused with InvalidInput rather than failing inside the parser.

A file someone hands the person can be built to break a naive reader: nesting thousands of levels deep
(the decoder recurses), a number of millions of digits, NaN or Infinity (not JSON, and never
comparable), a file or a line of gigabytes. Each is refused with a message naming the file and, where
it helps, the line.

>>> load('{"a": [1, 2]}', "x.json")
{'a': [1, 2]}
>>> load('[' * 100 + ']' * 100, "x.json")
Traceback (most recent call last):
hindsight_desktop.core.errors.InvalidInput: x.json: JSON nested more than 32 levels deep
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from hindsight_desktop.core.errors import InvalidInput

# An export of 100k memories with their vectors is well under this; a bigger file is not ours.
MAX_FILE_BYTES = 1 << 30
# One JSON Lines record: a memory (32 KB of text, 16 KB of metadata, a vector) or an event; far less.
MAX_LINE_CHARS = 1 << 20
# Records nest a few levels (memory -> metadata -> a value); metadata may nest a little more.
MAX_DEPTH = 32


class _NotJson(ValueError):
    """A value the JSON standard does not have (NaN, Infinity, a float that overflows)."""


def _constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJson(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is too large")
    return value


def read_bytes(path: Path) -> bytes:
    """The whole file, refused before reading when it is not a regular file (a FIFO, a device would
    never end) or too large to be an import; a file that grows while read is cut off and refused."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInput(f"{Path(path).name} is not a regular file")
        _check_size(Path(path), info.st_size)
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    _check_size(Path(path), len(raw))
    return raw


def _check_size(path: Path, size: int) -> None:
    if size > MAX_FILE_BYTES:
        raise InvalidInput(
            f"{path.name} is {size / (1 << 20):.0f} MB; an import file may be at most "
            f"{MAX_FILE_BYTES >> 20} MB (split it, or export less)"
        )


def load(text: str, where: str, *, line: bool = False) -> Any:
    """The value of one JSON text. `where` names the file (or, with `line`, the file and line)."""
    if line and len(text) > MAX_LINE_CHARS:
        raise InvalidInput(f"{where}: a line of {len(text)} characters; a record may be at most {MAX_LINE_CHARS}")
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float)
    except json.JSONDecodeError as exc:
        if line:
            raise InvalidInput(f"{where}: not valid JSON ({exc.msg}, column {exc.colno})") from None
        raise InvalidInput(f"{where}, line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InvalidInput(f"{where}: JSON nested more than {MAX_DEPTH} levels deep") from None
    except _NotJson as exc:
        raise InvalidInput(f"{where}: not valid JSON ({exc})") from None
    except ValueError as exc:  # an integer beyond the interpreter's digit limit
        raise InvalidInput(f"{where}: not valid JSON (a number too long to read: {str(exc)[:80]})") from None
    _check_depth(value, where)
    return value


def _check_depth(value: Any, where: str) -> None:
    """Walk the decoded value without recursion; refuse more than MAX_DEPTH levels of arrays and objects."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            raise InvalidInput(f"{where}: JSON nested more than {MAX_DEPTH} levels deep")
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
