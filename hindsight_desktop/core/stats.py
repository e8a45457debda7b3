"""The numbers the app's statistics view and `hindsight-desktop stats` show: counts, links, vectors,
searches, how often they found something and how much of what they returned the replies used."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.identities import PERSON_WRITERS
from hindsight_desktop.core.store import memories, relations, searches
from hindsight_desktop.core.timeutil import to_db


def numbers(parts: Parts) -> dict[str, Any]:
    """Memories by layer, status and client, links, vectors, the model, the search hit rate and the used
    share (of the memories searches returned, how many a reply relied on), in all and per client."""
    with parts.store.read() as db:
        by_layer, by_status, by_client = (memories.count_by(db, c) for c in ("layer", "status", "client"))
        logged, found = searches.totals(db)
        # The person's own searches (app, CLI) report no use: the share is the assistants'.
        assistants = {c: n for c, n in searches.use_totals(db).items() if c not in PERSON_WRITERS}
        links = relations.count(db)
        vectors = parts.vectors.count(db)
    return {
        "memories": sum(by_layer.values()),
        "by_layer": by_layer,
        "by_status": by_status,
        "by_client": by_client,
        "links": links,
        "vectors": vectors,
        "model": parts.model_id,
        "searches": logged,
        "hit_rate": round(found / logged, 4) if logged else None,
        "used": used_share(sum(r for r, _ in assistants.values()), sum(u for _, u in assistants.values())),
        "used_by_client": {client: used_share(returned, used) for client, (returned, used) in assistants.items()},
        "database": str(parts.store.path),
    }


def used_share(returned: int, used: int) -> float | None:
    """The share of returned memories reported used, at most 1 (a memory may be reported used more often
    than it was returned); None before anything was returned."""
    return round(min(1.0, used / returned), 4) if returned else None


def search_activity(parts: Parts, since: datetime) -> list[dict[str, Any]]:
    """Searches per UTC day since `since` and how many found something."""
    with parts.store.read() as db:
        days = searches.per_day(db, to_db(since))
    return [{"day": day, "searches": n, "found": found} for day, n, found in days]
