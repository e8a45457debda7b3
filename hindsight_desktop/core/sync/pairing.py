"""The pairing code: the sync key as a person can read it out and type it on a new device.

"HS1-" then base32 (RFC 4648, no padding) of the 32-byte key and a 2-byte checksum (the first bytes of
its SHA-256), in groups of four. Case, spaces and dashes do not matter when it is typed back.
"""

from __future__ import annotations

import base64
import hashlib

from hindsight_desktop.core.errors import PairingCodeInvalid
from hindsight_desktop.core.sync.crypto import KEY_BYTES

PREFIX = "HS1"
_CHECK_BYTES = 2
_GROUP = 4


def _check(key: bytes) -> bytes:
    return hashlib.sha256(b"hindsight-pairing|" + key).digest()[:_CHECK_BYTES]


def encode(key: bytes) -> str:
    text = base64.b32encode(key + _check(key)).decode("ascii").rstrip("=")
    groups = [text[i : i + _GROUP] for i in range(0, len(text), _GROUP)]
    return "-".join([PREFIX, *groups])


def decode(code: str) -> bytes:
    """The sync key in `code`; PairingCodeInvalid naming what is wrong."""
    if not isinstance(code, str) or not code.strip():
        raise PairingCodeInvalid("the pairing code is empty; copy it from `sync setup` on the first device")
    text = "".join(code.split()).replace("-", "").upper()
    if not text.startswith(PREFIX):
        raise PairingCodeInvalid(f"a pairing code starts with {PREFIX}-; check that the whole code was copied")
    body = text[len(PREFIX) :]
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except ValueError:
        raise PairingCodeInvalid("the pairing code has letters that cannot be in one; check it for typos") from None
    if len(raw) != KEY_BYTES + _CHECK_BYTES:
        raise PairingCodeInvalid("the pairing code is too short or too long; check that the whole code was copied")
    key, check = raw[:KEY_BYTES], raw[KEY_BYTES:]
    if _check(key) != check:
        raise PairingCodeInvalid("the pairing code's checksum does not match; check it for typos")
    return key
