"""The numbers the app's statistics view and `hindsight-desktop stats` show: counts, links, vectors,
searches and how often they found something."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hindsight_desktop.core.context import Parts
from hindsight_desktop.core.store import memories, relations, searches
from hindsight_desktop.core.timeutil import to_db


def numbers(parts: Parts) -> dict[str, Any]:
    """Memories by layer, status and client, links, vectors, the model and the search hit rate."""
    with parts.store.read() as db:
        by_layer, by_status, by_client = (memories.count_by(db, c) for c in ("layer", "status", "client"))
        logged, found = searches.totals(db)
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
        "database": str(parts.store.path),
    }


def search_activity(parts: Parts, since: datetime) -> list[dict[str, Any]]:
    """Searches per UTC day since `since` and how many found something."""
    with parts.store.read() as db:
        days = searches.per_day(db, to_db(since))
    return [{"day": day, "searches": n, "found": found} for day, n, found in days]
