"""Encrypted exports: an export file only the memory's recovery key opens (`export --encrypt`,
`import --key`), written and read as a stream, so the plain text never reaches the disk.

The file, all integers big-endian:

    magic   8 bytes   b"HSDXENC1"
    salt   16 bytes   random, per file
    check  16 bytes   HMAC-SHA256(K, b"hindsight-desktop export key check"), first 16 bytes
    chunks            AES-256-GCM under K, each 65,536 bytes of plain text (the last one shorter, maybe
                      empty) followed by its 16-byte tag; nonce = 4 zero bytes + the chunk's 8-byte
                      number from 0; associated data = the 40 header bytes + 1 byte, 1 on the last
                      chunk and 0 on the others

K = HKDF-SHA256(the 32-byte key, salt, info b"hindsight-desktop export v1"), so every file has a key of
its own and the counter nonces never repeat under one key. The key is the memory file's key (what its
recovery key writes down), so the recovery key opens the export on any computer. The check tells a wrong
key from a changed file before any chunk is opened; the last-chunk flag makes a file cut short (or
lengthened) fail as changed, like any altered byte. AES-GCM and HKDF come from `cryptography`.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import secrets
from collections.abc import Iterator
from typing import Any, BinaryIO

from hindsight_desktop.core.errors import EncryptionError, InvalidInput

MAGIC = b"HSDXENC1"
SALT_BYTES = 16
CHECK_BYTES = 16
HEADER_BYTES = len(MAGIC) + SALT_BYTES + CHECK_BYTES
CHUNK = 65_536
TAG = 16
INFO = b"hindsight-desktop export v1"
CHECK_LABEL = b"hindsight-desktop export key check"


def _file_key(key: bytes, salt: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=INFO).derive(key)


def _check(file_key: bytes) -> bytes:
    return hmac.new(file_key, CHECK_LABEL, hashlib.sha256).digest()[:CHECK_BYTES]


def _nonce(number: int) -> bytes:
    return b"\0\0\0\0" + number.to_bytes(8, "big")


def is_encrypted(head: bytes) -> bool:
    return head.startswith(MAGIC)


class EncryptingWriter(io.BufferedIOBase):
    """A binary stream that encrypts what is written into `out`; `close()` writes the last chunk."""

    def __init__(self, out: BinaryIO, key: bytes) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        super().__init__()
        if len(key) != 32:
            raise ValueError("an export key is 32 bytes")
        salt = secrets.token_bytes(SALT_BYTES)
        file_key = _file_key(key, salt)
        self._header = MAGIC + salt + _check(file_key)
        self._aead = AESGCM(file_key)
        self._out = out
        self._pending = bytearray()
        self._number = 0
        out.write(self._header)

    def writable(self) -> bool:
        return True

    @property
    def name(self) -> str:  # what TextIOWrapper reports as its name
        return str(getattr(self._out, "name", ""))

    def write(self, data: Any) -> int:
        self._pending += bytes(data)
        while len(self._pending) > CHUNK:  # a full chunk is written only once more follows it
            self._seal(bytes(self._pending[:CHUNK]), last=False)
            del self._pending[:CHUNK]
        return len(data)

    def _seal(self, plain: bytes, *, last: bool) -> None:
        aad = self._header + (b"\1" if last else b"\0")
        self._out.write(self._aead.encrypt(_nonce(self._number), plain, aad))
        self._number += 1

    def close(self) -> None:
        if not self.closed:
            self._seal(bytes(self._pending), last=True)
            self._pending.clear()
        super().close()


def text_writer(out: BinaryIO, key: bytes) -> io.TextIOWrapper:
    """A UTF-8 text stream over an EncryptingWriter; closing it seals the file."""
    return io.TextIOWrapper(EncryptingWriter(out, key), encoding="utf-8", newline="")


def _chunks(raw: bytes) -> Iterator[tuple[int, bytes, bool]]:
    body = raw[HEADER_BYTES:]
    step = CHUNK + TAG
    count = max(1, -(-len(body) // step))
    for number in range(count):
        yield number, body[number * step : (number + 1) * step], number == count - 1


def decrypt(raw: bytes, key: bytes, name: str) -> bytes:
    """The plain bytes of an encrypted export: EncryptionError for a key that is not its key,
    InvalidInput for a file that was changed, cut short or lengthened."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if len(raw) < HEADER_BYTES + TAG or not is_encrypted(raw):
        raise InvalidInput(f"{name} is not a whole encrypted export (it is cut short, or another kind of file)")
    header = raw[:HEADER_BYTES]
    file_key = _file_key(key, header[len(MAGIC) : len(MAGIC) + SALT_BYTES])
    if not hmac.compare_digest(_check(file_key), header[len(MAGIC) + SALT_BYTES :]):
        raise EncryptionError(
            f"{name} is an encrypted export that this key does not open (or its header was changed): give the "
            "recovery key of the memory "
            "it was exported from (`import --key`), as it was when the export was made"
        )
    aead = AESGCM(file_key)
    out = bytearray()
    for number, sealed, last in _chunks(raw):
        try:
            out += aead.decrypt(_nonce(number), sealed, header + (b"\1" if last else b"\0"))
        except InvalidTag:
            raise InvalidInput(
                f"{name} was changed after it was exported (chunk {number + 1} fails its check, or the file was "
                "cut short): nothing was imported; use an untouched copy"
            ) from None
    return bytes(out)
