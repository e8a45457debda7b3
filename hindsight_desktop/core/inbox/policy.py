"""Whether one write is stored, held in the inbox or refused: the client's policy, then the product's
own reading of the text (directives.py), never the type the client claims."""

from __future__ import annotations

from dataclasses import dataclass

from hindsight_desktop.core.errors import NotAllowed
from hindsight_desktop.core.identities import SYSTEM, imported_source, is_person
from hindsight_desktop.core.inbox.directives import Reading, classify

REVIEW_REASON = "This assistant is on review: the person approves what it proposes before anyone can recall it."


@dataclass(frozen=True)
class Hold:
    """A write to keep in the inbox: why, and what the directive reading found."""

    reason: str
    reading: Reading
    by_policy: bool  # the client is on review (else only its directive waits)


def decide(client: str, policy: str, review_directives: bool, content: str, *, by_hand: bool) -> Hold | None:
    """None: write as usual. A Hold: keep it for the person. Raises NotAllowed for a read-only client.

    `by_hand` is the person's own addition or an import of their history: it never waits."""
    if by_hand or is_person(client) or client == SYSTEM or imported_source(client) is not None:
        return None
    if policy == "read-only":
        raise NotAllowed(
            f"client {client!r} is read-only: the person allows it to search memory but not to write, change or "
            "forget anything (the person can change this in Settings → Clients)"
        )
    reading = classify(content)
    if policy == "review":
        return Hold(REVIEW_REASON, reading, by_policy=True)
    if review_directives and reading.directive:
        return Hold(reading.reason, reading, by_policy=False)
    return None
