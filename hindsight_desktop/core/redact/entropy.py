"""Random-looking tokens with no label and no known prefix (an AWS secret key pasted alone, a session
cookie): found by how random their characters are, not by their shape.

A candidate is a run of base64/URL-safe characters of 20 or more. It is a secret when, counting only
its letters and digits, it mixes at least two of lower case, upper case and digits, its Shannon
entropy is close to that of random text of the same length, and it does not split into words: cut
into pieces (a capitalised or lower-case word, a run of capitals, a run of digits), random text gives
pieces of about 2 characters, while CamelCase names, product names, paths and branch names give 3-5.
Random tokens drawn from lower case and digits only split into longer pieces and are caught less
often (about 7 in 10); most such services add a prefix or a label, which other rules catch.

Kept on purpose, and why:
- hexadecimal strings (git commit SHAs, checksums, hashes): developers store them all the time and a
  hex run carries no sign of being secret; a hex key after a label (`api_key=...`) is still redacted;
- UUIDs: identifiers of orders, requests and sessions; fixed 8-4-4-4-12 hex shape, so hex anyway;
- anything inside a URL without credentials (document and video ids); a token in a query string is
  found by its label (`?token=...`, `&sig=...`) and user:password@ by the connection-string rule;
- names with a short hash joined by "-" or "_" (pod, build and container names): no part of 12 or more
  characters that is not hexadecimal;
- codes in dash-separated groups of capitals and digits ("SN-2024-AB12-CD34", "ORD-7F3K-9XQ2"): the
  format of order, booking, serial and licence numbers, which people store and look up;
- digits only (phone, order, ID numbers: personal identifiers are a setting of their own).
Public random ids that are not secret (crypto wallet addresses, IPFS ids) are redacted: nothing in the
text tells them from a key.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

MIN_LENGTH = 20
MIN_ALNUM = 16  # base64's "+" and "/" do not count as letters or digits
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{20,}")
# A scheme starts where no scheme character precedes it and its run is possessive: a long run of "a."
# before "://" is read once, not once per starting point.
_URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*+://\S++|(?<![\w.])www\.\S++")
_HEX = re.compile(r"[0-9a-fA-F-]+")
_SEPARATORS = re.compile(r"[-_.]")
MIN_PART = 12
_GROUPED_CODE = re.compile(r"[A-Z0-9]{1,8}(?:-[A-Z0-9]{1,8})+")
_PIECE = re.compile(r"[A-Z][a-z]+|[a-z]+|[A-Z]+|[0-9]+")
# Measured on 3,000 random strings per alphabet and length: mean piece length p95 is 2.6 for base64 of
# 20 characters, while names like "MacBookPro16M3Max2023" give 2.6 and "getUserById" style give 4+;
# between 2.5 and 3.2 a random string is told apart by its few vowels (a fifth of its letters).
MAX_PIECE = 2.5
MAX_PIECE_FEW_VOWELS = 3.2
FEW_VOWELS = 0.25
ENTROPY_SHARE = 0.80  # of log2(length), the most a string of that length can have, capped at 6 bits


def _classes(ch: str) -> int:
    return 0 if ch.islower() else 1 if ch.isupper() else 2


def shannon_bits(text: str) -> float:
    """Bits per character of `text`'s own character frequencies."""
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values()) if n else 0.0


def looks_random(token: str) -> bool:
    core = token.rstrip("=")
    if len(core) < MIN_LENGTH or _HEX.fullmatch(core) or _GROUPED_CODE.fullmatch(core):
        return False
    # Names joined by "-" or "_" with a short hash ("api-server-7d9f8b6c5d-x2k4p", a pod or build name)
    # are identifiers; a random token cut by the odd "-" or "_" still has a long random part.
    longest = max(_SEPARATORS.split(core), key=len)
    if len(longest) < MIN_PART or _HEX.fullmatch(longest):
        return False
    alnum = [ch for ch in core if ch.isascii() and ch.isalnum()]
    if len(alnum) < MIN_ALNUM:
        return False
    if len({_classes(ch) for ch in alnum}) < 2:
        return False
    if shannon_bits(core) < ENTROPY_SHARE * min(6.0, math.log2(len(core))):
        return False
    word = "".join(alnum)
    piece = len(word) / len(_PIECE.findall(word))
    if piece <= MAX_PIECE:
        return True
    letters = [ch for ch in word if ch.isalpha()]
    vowels = sum(ch in "aeiouAEIOU" for ch in letters) / max(1, len(letters))
    return piece <= MAX_PIECE_FEW_VOWELS and vowels <= FEW_VOWELS


def _url_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _URL.finditer(text)] if "://" in text or "www." in text else []


def find(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each random-looking token outside URLs."""
    urls = _url_spans(text)
    for m in _CANDIDATE.finditer(text):
        start, end = m.span()
        if any(a <= start < b for a, b in urls):
            continue
        # A trailing "-" or "/" is punctuation in prose ("the key abc...xyz/"), not part of the token.
        while end > start and text[end - 1] in "-/_":
            end -= 1
        if looks_random(text[start:end]):
            yield start, end
