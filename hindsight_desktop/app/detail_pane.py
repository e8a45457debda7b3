"""The detail pane: one memory in full, with its links (click to go there) and its history. When an
archived memory was taken with others in one forget (an assistant's bulk forget, typically), the pane
offers to restore that whole forget."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QUrl, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.core.identities import PERSON_WRITERS
from hindsight_desktop.core.records import Event, Link, Memory, edit_words

if TYPE_CHECKING:  # the engine is imported on a worker (or when a command runs), never at start-up
    from hindsight_desktop.core.engine import MemoryEngine

MAX_LINKS = 20
EVENT_WORDS = {
    "write": "remembered",
    "reinforce": "repeated",
    "supersede": "replaced an older memory",
    "edit": "edited",
    "link": "linked",
    "forget": "forgotten",
    "restore": "restored",
    "purge": "purged",
    "merge": "merged a duplicate",
    "pin": "pinned",
}


@dataclass(frozen=True)
class Batch:
    """The forget that archived the shown memory together with others, restorable as one."""

    id: str
    by: str  # who forgot (an assistant's name, or the person's)
    at: datetime
    size: int  # how many of it are still archived, the shown memory included


@dataclass
class Extras:
    """What the pane loads on a worker after showing the memory itself."""

    links: list[Link] = field(default_factory=list)
    previews: dict[str, str] = field(default_factory=dict)  # linked id -> its first words
    events: list[Event] = field(default_factory=list)
    batch: Batch | None = None


def load_extras(engine: MemoryEngine, memory_id: str) -> Extras:
    from hindsight_desktop.core.errors import NotFound

    links = engine.links(memory_id)[:MAX_LINKS]
    previews = {}
    for link in links:
        other = link.target_id if link.source_id == memory_id else link.source_id
        try:
            previews[other] = fmt.one_line(engine.get(other).content, 90)
        except NotFound:  # purged meanwhile
            previews[other] = "(gone)"
    events = engine.events(memory_id, limit=50)
    return Extras(links, previews, events, _batch_of(engine, memory_id, events))


def _batch_of(engine: MemoryEngine, memory_id: str, events: list[Event]) -> Batch | None:
    """The batch of the forget that archived this memory, when that forget took others too and this
    memory is still archived by it (not restored, not archived again by maintenance)."""
    latest = next((e for e in events if e.kind in ("forget", "restore")), None)  # events come newest first
    if latest is None or latest.kind != "forget":
        return None
    batch = (latest.detail or {}).get("batch")  # maintenance's archives carry none
    if not isinstance(batch, str) or not batch:
        return None
    members = engine.forget_batch(batch)
    if memory_id not in members or len(members) < 2:  # alone: the plain Restore does the same
        return None
    return Batch(batch, latest.client, latest.at, len(members))


def _batch_html(batch: Batch) -> str:
    who = "You" if batch.by in PERSON_WRITERS else fmt.esc(batch.by)
    return (
        f"<p>{who} archived this with {fmt.count(batch.size - 1, 'other memory')} in one forget, "
        f"{fmt.esc(fmt.when(batch.at))}. <a href='batch:{fmt.esc(batch.id)}'>Restore all "
        f"{batch.size:,} memories of that forget</a></p>"
    )


def _event_line(e: Event) -> str:
    what = EVENT_WORDS.get(e.kind, e.kind)
    detail = e.detail or {}
    if e.kind == "edit":
        changed = edit_words(detail)
        what += f": {changed}" if changed else ""
    elif e.kind == "forget":
        what = (
            "purged"
            if detail.get("mode") == "purge"
            else f"archived{' (' + str(detail['why']) + ')' if detail.get('why') else ''}"
        )
    elif e.kind == "write" and "layer" in detail:
        what += f" as {detail['layer']}"
    return (
        f"<tr><td class=m>{fmt.esc(fmt.when(e.at))}</td><td>{fmt.esc(what)}</td>"
        f"<td class=m>by {fmt.esc(e.client)}</td></tr>"
    )


def render_html(m: Memory, extras: Extras | None, muted: str, accent: str) -> str:
    """The pane's page. Plain HTML that QTextBrowser renders (its CSS subset)."""
    style = (
        f"<style>td{{padding:2px 10px 2px 0}} .m{{color:{muted}}} h3{{margin:14px 0 4px 0}}"
        f" a{{color:{accent};text-decoration:none}}</style>"
    )
    flags = [m.type, m.layer, m.status] + (["pinned"] if m.pinned else []) + ([m.scope] if m.scope == "private" else [])
    parts = [style, f"<p style='font-size:15px;line-height:140%'>{fmt.esc(m.content).replace(chr(10), '<br>')}</p>"]
    if m.summary:
        parts.append(f"<p class=m><i>{fmt.esc(m.summary)}</i></p>")
    parts.append(f"<p class=m>{' · '.join(fmt.esc(f) for f in flags)} · importance {m.importance:.2f}</p>")
    rows = [
        ("Written by", f"{m.client}, {fmt.when(m.created_at)}"),
        ("Happened", fmt.when(m.occurred_at)),
        ("Recalled", f"{m.access_count} times, last {fmt.when(m.last_accessed_at)}"),
    ]
    if m.updated_at and m.updated_at != m.created_at:
        rows.append(("Changed", fmt.when(m.updated_at)))
    if m.superseded_by:
        rows.append(("Replaced by", f"<a href='memory:{fmt.esc(m.superseded_by)}'>{fmt.esc(m.superseded_by)}</a>"))
    rows.append(("Id", m.id))
    parts.append(
        "<table>"
        + "".join(f"<tr><td class=m>{k}</td><td>{v if k == 'Replaced by' else fmt.esc(v)}</td></tr>" for k, v in rows)
        + "</table>"
    )
    if m.entities:
        chips = " &nbsp; ".join(f"{fmt.esc(e.text)} <span class=m>({fmt.esc(e.kind)})</span>" for e in m.entities)
        parts.append(f"<h3>Mentions</h3><p>{chips}</p>")
    if extras is None:
        parts.append("<p class=m>Loading links and history…</p>")
        return "".join(parts)
    if extras.batch is not None and m.status == "archived":
        parts.append(_batch_html(extras.batch))
    if extras.links:
        items = []
        for link in extras.links:
            other = link.target_id if link.source_id == m.id else link.source_id
            arrow = "→" if link.source_id == m.id else "←"
            items.append(
                f"<tr><td class=m>{fmt.esc(link.type)} {arrow}</td><td><a href='memory:{fmt.esc(other)}'>"
                f"{fmt.esc(extras.previews.get(other, other))}</a></td></tr>"
            )
        parts.append(f"<h3>Links</h3><table>{''.join(items)}</table>")
    if extras.events:
        parts.append(f"<h3>History</h3><table>{''.join(_event_line(e) for e in extras.events)}</table>")
    return "".join(parts)


class DetailPane(QWidget):
    """Shows the selected memory; `open_memory(id)` fires when a link is clicked, `undo_batch(batch)`
    when the person asks to restore the whole forget that archived it."""

    open_memory = Signal(str)
    undo_batch = Signal(str)

    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.memory: Memory | None = None
        self.extras: Extras | None = None
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(False)
        self.browser.setFrameShape(QTextBrowser.Shape.NoFrame)
        self.browser.anchorClicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.browser)
        self.show_memory(None)

    def show_memory(self, memory: Memory | None) -> None:
        self.memory, self.extras = memory, None
        if memory is None:
            muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
            self.browser.setHtml(f"<p style='color:{muted}'>Select a memory to see it in full.</p>")
            return
        self._render()
        wanted = memory.id
        self.backend.call(
            load_extras,
            wanted,
            name="detail",
            on_done=lambda extras: self._extras(wanted, extras),
            on_error=lambda exc: None,
        )

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        # The page's colours are written into its HTML: a light/dark switch must write it again.
        if event.type() == QEvent.Type.PaletteChange:
            if self.memory is None:
                self.show_memory(None)
            else:
                self._render()
        super().changeEvent(event)

    def _extras(self, memory_id: str, extras: Extras) -> None:
        if self.memory is not None and self.memory.id == memory_id:
            self.extras = extras
            self._render()

    def _render(self) -> None:
        assert self.memory is not None
        pal = self.palette()
        muted = pal.color(QPalette.ColorRole.PlaceholderText).name()
        accent = pal.color(QPalette.ColorRole.Link).name()
        scroll = self.browser.verticalScrollBar().value()
        self.browser.setHtml(render_html(self.memory, self.extras, muted, accent))
        self.browser.verticalScrollBar().setValue(scroll)

    def _clicked(self, url: QUrl) -> None:
        if url.scheme() == "memory":
            self.open_memory.emit(url.path())
        elif url.scheme() == "batch":
            self.undo_batch.emit(url.path())
