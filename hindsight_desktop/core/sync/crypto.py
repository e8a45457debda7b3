"""Sealing and opening sync files: AES-256-GCM under the sync key, with a small clear header.

A file is MAGIC, one byte of kind, two bytes of sync format version, a 12-byte random nonce, then the
ciphertext. The authenticated data binds the kind, the writing device, the file's sequence number and
the format version, so a file renamed, moved to another device's folder or given another header fails
to open. The header is readable before decryption so a file from a newer format is refused by name.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"HSYNC"
KEY_BYTES = 32
_NONCE_BYTES = 12
_HEADER = struct.Struct(">5sBH")
KINDS = {"folder": 1, "device": 2, "changes": 3, "snapshot": 4}


class Unreadable(Exception):
    """A file that cannot be opened; the message is the reason a report shows."""


class TooNew(Unreadable):
    """A file in a sync format newer than this program reads."""


@dataclass(frozen=True)
class Sealed:
    kind: str
    device: str
    seq: int


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=KEY_BYTES * 8)


def _aad(what: Sealed, version: int) -> bytes:
    return f"hindsight-sync|{what.kind}|{what.device}|{what.seq}|{version}".encode()


def seal(key: bytes, what: Sealed, plaintext: bytes, version: int) -> bytes:
    nonce = os.urandom(_NONCE_BYTES)
    header = _HEADER.pack(MAGIC, KINDS[what.kind], version)
    return header + nonce + AESGCM(key).encrypt(nonce, plaintext, _aad(what, version))


def format_version(data: bytes) -> int:
    """The sync format version in a file's header; Unreadable when it has none."""
    if len(data) < _HEADER.size + _NONCE_BYTES + 16:
        raise Unreadable("truncated (shorter than a sealed file)")
    magic, _kind, version = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise Unreadable("not a Hindsight sync file")
    return int(version)


def open_sealed(key: bytes, what: Sealed, data: bytes, newest: int) -> bytes:
    """The plaintext, or Unreadable/TooNew with the reason."""
    version = format_version(data)
    if version > newest:
        raise TooNew(
            f"written by a newer Hindsight Desktop (sync format {version}, this one reads up to {newest}); "
            "update Hindsight Desktop on this device"
        )
    _magic, kind, _ = _HEADER.unpack_from(data)
    if kind != KINDS[what.kind]:
        raise Unreadable(f"not a {what.kind} file")
    nonce = data[_HEADER.size : _HEADER.size + _NONCE_BYTES]
    try:
        return AESGCM(key).decrypt(nonce, data[_HEADER.size + _NONCE_BYTES :], _aad(what, version))
    except InvalidTag:
        raise Unreadable("failed authentication (damaged, truncated, or not written with this folder's key)") from None
