"""The stats dashboard: counts per layer and status, growth, activity, hit rate, the used share (of the
memories searches returned, how many the assistants' replies relied on, as they report it), most recalled,
clients.

Numbers come from `engine.stats`, `engine.count` (one query per week of growth), `engine.events` and a
paged scan for the most recalled memories, all on a worker.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.charts import BarChart, ColumnChart, Tile
from hindsight_desktop.app.icons import app_icon
from hindsight_desktop.app.shortcuts_sheet import close_on_escape
from hindsight_desktop.app.workers import Task
from hindsight_desktop.core.records import MemoryFilter

if TYPE_CHECKING:  # the engine is imported on a worker (or when a command runs), never at start-up
    from hindsight_desktop.core.engine import MemoryEngine

WEEKS = 12
DAYS = 14


@dataclass
class StatsData:
    totals: dict[str, Any]
    growth: list[tuple[str, float]] = field(default_factory=list)  # memories added per week
    daily: list[tuple[str, float]] = field(default_factory=list)  # engine events per day
    client_activity: list[tuple[str, float]] = field(default_factory=list)
    top: list[tuple[str, float]] = field(default_factory=list)  # (first words, times recalled)
    searches: list[tuple[str, float]] = field(default_factory=list)  # searches per day
    found: list[tuple[str, float]] = field(default_factory=list)  # of which found something


def _growth(engine: MemoryEngine, now: datetime) -> list[tuple[str, float]]:
    ends = [now - timedelta(weeks=k) for k in range(WEEKS, -1, -1)]
    totals = [engine.count(MemoryFilter(until=end)) for end in ends]
    return [
        (fmt.local(ends[i]).strftime("%d %b").lstrip("0"), float(totals[i] - totals[i - 1]))
        for i in range(1, len(ends))
    ]


def _activity(engine: MemoryEngine, now: datetime) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    events = engine.events(limit=5000)
    start = (fmt.local(now) - timedelta(days=DAYS - 1)).date()
    per_day = Counter(fmt.day_of(e.at) for e in events if fmt.day_of(e.at) >= start)
    days = [start + timedelta(days=i) for i in range(DAYS)]
    daily = [(d.strftime("%d %b").lstrip("0"), float(per_day.get(d, 0))) for d in days]
    clients = Counter(e.client for e in events)
    return daily, [(name, float(n)) for name, n in clients.most_common(8)]


def _searches(engine: MemoryEngine, now: datetime) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    by_day = {row["day"]: row for row in engine.search_activity(DAYS)}
    days = [(now - timedelta(days=DAYS - 1 - i)).date() for i in range(DAYS)]
    label = [d.strftime("%d %b").lstrip("0") for d in days]
    searches = [(label[i], float(by_day.get(d.isoformat(), {}).get("searches", 0))) for i, d in enumerate(days)]
    found = [(label[i], float(by_day.get(d.isoformat(), {}).get("found", 0))) for i, d in enumerate(days)]
    return searches, found


def gather(engine: MemoryEngine, progress: Callable[[int, int], None] | None = None) -> StatsData:
    now = datetime.now(UTC)
    data = StatsData(totals=engine.stats(), growth=_growth(engine, now))
    data.daily, data.client_activity = _activity(engine, now)
    data.top = [(fmt.one_line(m.content, 60), float(m.access_count)) for m in engine.most_recalled(8)]
    data.searches, data.found = _searches(engine, now)
    return data


class StatsWindow(QWidget):
    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.data: StatsData | None = None
        self.setWindowTitle("Hindsight Desktop — Stats")
        close_on_escape(self)
        self.setWindowIcon(app_icon())
        self.resize(1000, 760)
        self.tiles = {
            key: Tile(caption)
            for key, caption in (
                ("memories", "memories"),
                ("active", "active"),
                ("links", "links"),
                ("searches", "searches"),
                ("hit_rate", "search hit rate"),
                ("used", "used"),
            )
        }
        self.layers, self.statuses = BarChart("By layer"), BarChart("By status")
        self.growth, self.daily = (
            ColumnChart("New memories per week"),
            ColumnChart("Activity per day (writes, edits, forgets)"),
        )
        self.clients, self.client_activity = BarChart("Memories per client"), BarChart("Recent activity per client")
        self.top = BarChart("Most recalled")
        self.searches = ColumnChart("Searches per day")
        tiles = QHBoxLayout()
        for tile in self.tiles.values():
            tiles.addWidget(tile)
        grid = QGridLayout()
        grid.setSpacing(12)
        for i, chart in enumerate(
            (
                self.layers,
                self.statuses,
                self.growth,
                self.daily,
                self.clients,
                self.client_activity,
                self.searches,
                self.top,
            )
        ):
            grid.addWidget(chart, i // 2, i % 2)
        self.footer = QLabel()
        self.footer.setWordWrap(True)
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(16, 16, 16, 16)
        column.setSpacing(12)
        column.addLayout(tiles)
        column.addLayout(grid)
        column.addWidget(self.footer)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def refresh(self) -> Task | None:
        if not self.backend.is_ready:
            return None
        self.footer.setText("Counting…")
        return self.backend.call(
            gather,
            name="stats",
            progress=True,
            on_done=self.show_data,
            on_error=lambda exc: self.footer.setText(f"Could not count: {exc}"),
        )

    def show_data(self, data: StatsData) -> None:
        self.data = data
        t = data.totals
        self.tiles["memories"].set_value(f"{t['memories']:,}")
        self.tiles["active"].set_value(f"{t['by_status'].get('active', 0):,}")
        self.tiles["links"].set_value(f"{t['links']:,}")
        self.tiles["searches"].set_value(f"{t['searches']:,}")
        self.tiles["hit_rate"].set_value(_percent(t["hit_rate"]))
        self.tiles["used"].set_value(_percent(t["used"]))
        self.tiles["used"].setToolTip(_used_note(t["used_by_client"]))
        self.layers.set_items([(k, float(v)) for k, v in sorted(t["by_layer"].items(), key=lambda kv: -kv[1])])
        self.statuses.set_items([(k, float(v)) for k, v in sorted(t["by_status"].items(), key=lambda kv: -kv[1])])
        self.growth.set_items(data.growth, note=f"{t['memories']:,} in all, by when they happened")
        self.daily.set_items(data.daily)
        self.clients.set_items([(k, float(v)) for k, v in sorted(t["by_client"].items(), key=lambda kv: -kv[1])[:8]])
        self.client_activity.set_items(data.client_activity)
        self.top.set_items(data.top, note="times recalled")
        found = sum(v for _, v in data.found)
        asked = sum(v for _, v in data.searches)
        self.searches.set_items(
            data.searches,
            note=(f"{found:.0f} of {asked:.0f} found something in {DAYS} days" if asked else "no searches yet"),
        )
        self.footer.setText(f"Model {t['model']} · {fmt.count(t['vectors'], 'vector')} · database {t['database']}")


def _percent(share: float | None) -> str:
    return "–" if share is None else f"{share * 100:.0f}%"


def _used_note(by_client: dict[str, float | None]) -> str:
    """The used share explained, with each assistant's."""
    lines = ["Of the memories searches returned, how many the assistant's reply relied on (as it reports)."]
    lines += [f"{client}: {_percent(share)}" for client, share in by_client.items()]
    return "\n".join(lines)
