"""A memory's id and its content hash: what the writer, upkeep, import and redaction stamp on a record."""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import unicodedata


def new_id() -> str:
    """Sortable by creation time, unique across processes."""
    return f"mem_{int(time.time() * 1000):011x}{secrets.token_hex(4)}"


def content_hash(text: str) -> str:
    folded = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()
