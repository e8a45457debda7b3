"""The recovery key: the file's 256-bit key in a form a person can write down.

Base32 (letters and 2-7, no look-alike digits 0/1/8/9), in groups of four, with three check bytes so a
mistyped group is refused instead of being tried as a key.

>>> key = bytes(range(32))
>>> decode(encode(key)) == key
True
"""

from __future__ import annotations

import base64
import hashlib

from hindsight_desktop.core.errors import InvalidInput

KEY_BYTES = 32
_CHECK = 3  # 32 + 3 bytes = 280 bits = 56 base32 letters exactly: 14 groups, no padding


def _check(key: bytes) -> bytes:
    return hashlib.sha256(b"hindsight-recovery\x00" + key).digest()[:_CHECK]


def encode(key: bytes) -> str:
    if len(key) != KEY_BYTES:
        raise ValueError("a memory key is 32 bytes")
    text = base64.b32encode(key + _check(key)).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def decode(text: str) -> bytes:
    """The key in a recovery key as typed (case, spaces and dashes do not matter); InvalidInput otherwise."""
    letters = "".join(ch for ch in text.upper() if ch.isalnum())
    letters = letters.replace("0", "O").replace("1", "I").replace("8", "B")  # read-alike slips
    try:
        raw = base64.b32decode(letters)
    except ValueError:
        raw = b""
    if len(raw) != KEY_BYTES + _CHECK:
        raise InvalidInput("that is not a recovery key: it has 56 letters and digits 2-7, in 14 groups of four")
    key, check = raw[:KEY_BYTES], raw[KEY_BYTES:]
    if check != _check(key):
        raise InvalidInput(
            "that recovery key has a typing mistake (its check letters do not match); look at each group again"
        )
    return key
