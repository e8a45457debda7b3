"""Build the normalisation table that llama.cpp's SentencePiece (UGM) tokenizer reads.

llama.cpp normalises text for a SentencePiece model only through `tokenizer.ggml.precompiled_charsmap`:
a 4-byte length, then an XOR-compressed double array (a byte trie packed into 32-bit units), then
NUL-terminated replacement strings. Every key is the UTF-8 spelling of the text to replace; the trie
leads from its bytes to the offset of its replacement. Without this table full-width punctuation
(`，` `？`), compatibility characters and odd spaces would reach the vocabulary unnormalised.

How llama.cpp walks it (llama-vocab.cpp, `normalize_prefix`): `node = BASE(0)`; for each input byte
`c`: `node ^= c`, stop unless `LCHECK(node) == c`, note `LEAF(node)`, `node ^= BASE(node)`; on a leaf
the unit at `node` holds the replacement offset. So each trie node owns an "offset" o = its position
XOR its BASE; its child for byte c sits at o ^ c and its value (if any) at o itself. Offsets must be
unique: LCHECK holds only the byte, not the parent, so two nodes sharing an offset could see each
other's children.
"""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Mapping

_VALUE_FLAG = 1 << 31
_LEAF_FLAG = 1 << 8
_MAX_BASE = (1 << 21) - 1  # BASE has 21 bits (10-30) when its shift flag, bit 9, is clear


class _Node:
    __slots__ = ("children", "value")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.value: int | None = None


def build_charsmap(replacements: Mapping[str, str]) -> bytes:
    """The precompiled charsmap that replaces each key (longest match first) by its value.

    >>> blob = build_charsmap({"\\uff0c": ",", "\\u3000": " "})
    >>> lookup(blob, "\\uff0c".encode())
    ','
    """
    if not replacements:
        raise ValueError("a charsmap needs at least one replacement")
    strings = bytearray()
    root = _Node()
    for key in sorted(replacements):
        if not key or "\0" in key or "\0" in replacements[key]:
            raise ValueError(f"unusable charsmap entry {key!r}")
        node = root
        for byte in key.encode("utf-8"):
            node = node.children.setdefault(byte, _Node())
        node.value = len(strings)
        strings += replacements[key].encode("utf-8") + b"\0"
    units = _place(root)
    return struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + bytes(strings)


def _place(root: _Node) -> list[int]:
    """Lay the trie out breadth first, each node at the lowest offset whose slots are all free.

    Every node also reserves the slot at its offset itself (where its value goes, if it has one):
    a reserved slot is never another node's offset, so offsets stay unique without a separate check.
    """
    units: list[int] = [0]
    used = bytearray(1024)  # 1 where a unit is placed or reserved (position 0 is the root's own)
    used[0] = 1
    lowest_free = 256  # below 256, o ^ c could land on position 0
    queue: deque[tuple[_Node, int]] = deque([(root, 0)])
    while queue:
        node, position = queue.popleft()
        labels = sorted(node.children)
        if not labels and node.value is None:
            continue
        needed = [0, *labels]
        offset = _free_offset(used, needed, lowest_free)
        base = position ^ offset
        if base > _MAX_BASE:
            raise ValueError("charsmap too large for llama.cpp's 21-bit BASE")
        top = max(offset ^ c for c in needed) + 1
        if top > len(units):
            units.extend([0] * (top - len(units)))
        if top > len(used):
            used.extend(bytearray(max(top, 2 * len(used)) - len(used)))
        units[position] |= base << 10
        for c in labels:
            child = node.children[c]
            slot = offset ^ c
            used[slot] = 1
            units[slot] = c | (_LEAF_FLAG if child.value is not None else 0)
            queue.append((child, slot))
        used[offset] = 1
        if node.value is not None:
            units[offset] = _VALUE_FLAG | node.value
        while lowest_free < len(used) and used[lowest_free]:
            lowest_free += 1
    return units


def _free_offset(used: bytearray, needed: list[int], start: int) -> int:
    """The lowest offset from `start` whose slot and child slots (offset ^ label) are all free."""
    offset = used.find(0, start)
    while True:
        if offset < 0:
            offset = len(used)
        if all((offset ^ c) >= len(used) or not used[offset ^ c] for c in needed):
            return offset
        offset = used.find(0, offset + 1)


def lookup(charsmap: bytes, data: bytes) -> str | None:
    """The replacement for the longest key that prefixes `data`, walking the table as llama.cpp does."""
    (size,) = struct.unpack_from("<I", charsmap, 0)
    units = struct.unpack_from(f"<{size // 4}I", charsmap, 4)
    strings = charsmap[4 + size :]

    def base(i: int) -> int:
        return (units[i] >> 10) << ((units[i] & (1 << 9)) >> 6)

    found: str | None = None
    node = base(0)
    for c in data:
        if c == 0:
            break
        node ^= c
        if node >= len(units) or units[node] & (_VALUE_FLAG | 0xFF) != c:
            break
        leaf = bool(units[node] & _LEAF_FLAG)
        node ^= base(node)
        if leaf:
            start = units[node] & (_VALUE_FLAG - 1)
            found = strings[start : strings.index(b"\0", start)].decode("utf-8")
    return found
