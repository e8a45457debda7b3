"""The seal on an export: how an import tells the person's own bundle from one made up elsewhere.

An own-format record says who wrote a memory and whether it is pinned, and "desktop" reads as the
person's own words ("You said…"). Anyone can write such a file, so a bundle's claims are believed only
when it carries a seal this data folder made: an HMAC-SHA256, under a key kept in the memory file's meta
table, over every record of the bundle in order. Each record is read the same way on both sides (its
JSON with sorted keys), so a seal made at export matches at import as long as nothing was changed.

>>> digest = Digest()
>>> digest.add("memory", {"id": "mem_1", "client": "desktop"})
>>> sign(b"k" * 32, digest.hexdigest()) == sign(b"k" * 32, digest.hexdigest())
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

import apsw

from hindsight_desktop.core.store import meta

KEY = "export_seal_key"
FIELD = "seal"  # the bundle's last top-level field, or a JSON Lines record {"record": "seal", "seal": …}


class Digest:
    """A running SHA-256 over records, each tagged with its kind (memory, link, event)."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def add(self, kind: str, record: dict[str, Any]) -> None:
        body = {k: v for k, v in record.items() if k != "record"}
        text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        self._hash.update(f"{kind}\x00{text}\n".encode())  # dumps escapes newlines: one line per record

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def sign(key: bytes, digest: str) -> str:
    return hmac.new(key, digest.encode("ascii"), hashlib.sha256).hexdigest()


def key_for_export(db: apsw.Connection) -> bytes:
    """This data folder's key, made on first use (needs a write transaction)."""
    stored = meta.get(db, KEY, "")
    if not stored:
        stored = secrets.token_hex(32)
        meta.put(db, KEY, stored)
    return bytes.fromhex(stored)


def key_for_import(db: apsw.Connection) -> bytes | None:
    """The key, or None when this data folder never exported (so no bundle can be its own)."""
    stored = meta.get(db, KEY, "")
    return bytes.fromhex(stored) if stored else None


def verify(key: bytes | None, digest: str, seal: Any) -> bool:
    """True when `seal` is what this data folder's key makes of `digest`."""
    if key is None or not isinstance(seal, str):
        return False
    return hmac.compare_digest(sign(key, digest), seal)
