"""The encrypted export format (portable/encrypted.py) on its own: streams of every size read back, and a
wrong key, an altered byte, a file cut short or lengthened are each refused by name."""

from __future__ import annotations

import io
import os

import pytest

from hindsight_desktop.core.errors import EncryptionError, InvalidInput
from hindsight_desktop.core.portable import encrypted

KEY = bytes(range(32))


def _seal(plain: bytes, key: bytes = KEY) -> bytes:
    out = io.BytesIO()
    writer = encrypted.EncryptingWriter(out, key)
    for start in range(0, len(plain), 10_000):  # written in pieces, as an export is
        writer.write(plain[start : start + 10_000])
    writer.close()
    return out.getvalue()


@pytest.mark.parametrize("size", [0, 1, encrypted.CHUNK - 1, encrypted.CHUNK, encrypted.CHUNK + 1, 3 * encrypted.CHUNK])
def test_every_size_reads_back_and_the_text_is_not_in_the_file(size):
    plain = (b"Remember: the spare key is under the blue flowerpot. " * (size // 50 + 1))[:size]
    raw = _seal(plain)
    assert raw.startswith(encrypted.MAGIC) and (size < 20 or b"flowerpot" not in raw)
    chunks = max(1, -(-size // encrypted.CHUNK))
    assert len(raw) == encrypted.HEADER_BYTES + size + chunks * encrypted.TAG
    assert encrypted.decrypt(raw, KEY, "x.json") == plain


def test_two_exports_of_the_same_text_differ():
    assert _seal(b"same text") != _seal(b"same text")  # a fresh salt, so a fresh key, per file


def test_a_wrong_key_is_named():
    raw = _seal(b"some memories")
    with pytest.raises(EncryptionError, match="this key does not open"):
        encrypted.decrypt(raw, os.urandom(32), "x.json")


@pytest.mark.parametrize("where", ["first chunk", "last chunk", "tag"])
def test_an_altered_byte_is_named(where):
    raw = bytearray(_seal(os.urandom(2 * encrypted.CHUNK + 5)))
    spot = {"first chunk": encrypted.HEADER_BYTES + 3, "last chunk": len(raw) - encrypted.TAG - 2, "tag": len(raw) - 1}
    raw[spot[where]] ^= 0x01
    with pytest.raises(InvalidInput, match="was changed after it was exported"):
        encrypted.decrypt(bytes(raw), KEY, "x.json")


def test_a_file_cut_at_a_chunk_boundary_or_lengthened_is_refused():
    raw = _seal(os.urandom(2 * encrypted.CHUNK + 5))
    whole_chunk = encrypted.CHUNK + encrypted.TAG
    cut = raw[: encrypted.HEADER_BYTES + whole_chunk]  # the first chunk alone, whole
    with pytest.raises(InvalidInput, match="was changed"):
        encrypted.decrypt(cut, KEY, "x.json")
    with pytest.raises(InvalidInput, match="was changed"):
        encrypted.decrypt(raw + raw[encrypted.HEADER_BYTES : encrypted.HEADER_BYTES + 40], KEY, "x.json")
    with pytest.raises(InvalidInput, match="not a whole encrypted export"):
        encrypted.decrypt(raw[:30], KEY, "x.json")
