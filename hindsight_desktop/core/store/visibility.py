"""Who may see a memory, written once: a shared memory is seen by every client, a private one only by
the client that wrote it, and the person at the desktop (viewer None) sees everything.

Kept apart from memories.py, which imports the data records: records.py builds its filter clause
from this module, so it must import nothing of the core.
"""

from __future__ import annotations


def visible_to(viewer: str | None, alias: str = "m") -> tuple[str, tuple[str, ...]]:
    """An SQL condition over the memories table aliased `alias` (empty: unaliased) that hides other
    clients' private memories from `viewer`, with its arguments."""
    if viewer is None:
        return "1", ()
    prefix = f"{alias}." if alias else ""
    return f"({prefix}scope = 'shared' OR {prefix}client = ?)", (viewer,)


def privacy_group(alias: str = "") -> str:
    """An SQL expression naming the set of viewers a memory belongs to: 'shared' for a shared memory,
    'private:<client>' for a private one. Memories compared with each other (contradictions) must be in
    one group, so that no client's private statement ever decides what another client sees."""
    prefix = f"{alias}." if alias else ""
    return f"CASE WHEN {prefix}scope = 'shared' THEN 'shared' ELSE 'private:' || {prefix}client END"


def group_of(scope: str, client: str) -> str:
    """The privacy group (as `privacy_group` names it) of a memory with this scope and writer."""
    return "shared" if scope == "shared" else f"private:{client}"


# When a statement counts as made, for deciding which of two statements is newer (supersession) and
# how recent a memory is: the time it happened, but never later than when it was written, so a
# claimed future date can neither win a contradiction nor stay "new" forever.
STATED_AT = "min({p}occurred_at, {p}created_at)"


def stated_at(alias: str = "") -> str:
    """STATED_AT as an SQL expression over the memories table aliased `alias` (empty: unaliased)."""
    return STATED_AT.format(p=f"{alias}." if alias else "")
