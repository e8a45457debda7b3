"""A search request, checked: what the engine's `search` arguments become before recall runs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hindsight_desktop.core import validate
from hindsight_desktop.core.errors import InvalidInput

MODES = ("hybrid", "vector", "keyword")


@dataclass
class Query:
    text: str
    limit: int = 5
    layers: tuple[str, ...] | None = None
    types: tuple[str, ...] | None = None
    since: datetime | None = None
    until: datetime | None = None
    client: str | None = None  # who asks: private memories of other clients stay hidden
    written_by: str | None = None  # only memories this client wrote
    deep: bool = False
    mode: str = "hybrid"

    @classmethod
    def checked(
        cls,
        now: datetime,
        query: str,
        *,
        limit: int,
        layer: str | list[str] | None,
        type: str | list[str] | None,
        time_range_days: float | None,
        since: datetime | str | None,
        until: datetime | str | None,
        client: str | None,
        written_by: str | None,
        deep: bool,
        mode: str,
    ) -> Query:
        """The request from a caller's arguments; a bad one raises InvalidInput naming the field."""
        text = validate.query(query)
        limit = validate.positive_int(limit, "limit", high=200)
        if mode not in MODES:
            raise InvalidInput(f"mode must be one of {', '.join(MODES)}")
        days = validate.days(time_range_days, "time_range_days")
        return cls(
            text=text,
            limit=limit,
            layers=validate.labels(layer, validate.layer, "layer"),
            types=validate.labels(type, validate.type_label, "type"),
            since=now - timedelta(days=days) if days is not None else validate.when(since, "since"),
            until=validate.when(until, "until"),
            client=client,
            written_by=written_by,
            deep=bool(deep),
            mode=mode,
        )
