"""The Inbox: what assistants proposed that waits for the person (a standing instruction, or anything
from an assistant on review). Approve, edit then approve, reject, or decide for one client at once,
from the keyboard: A approve, R reject, J / N next, K previous, Ctrl+Enter approve the edited text.

InboxWatch counts what waits whenever the event log moves (any process: a stdio assistant's proposal
appears without a restart); the tray and the view follow it. The view reads and decides on workers."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QKeySequence, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QToolBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop.app import fmt, theme
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.core.records import PendingItem

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import MemoryEngine

EMPTY_TEXT = (
    "<h3>Nothing waits for you</h3>"
    "<p>The inbox holds what an assistant proposed to remember that needs your say first: a standing "
    "instruction to assistants (\u201calways\u2026\u201d, \u201cnever\u2026\u201d, \u201cfrom now on\u2026\u201d), "
    "or anything from an assistant you put on review (Settings \u2192 Clients).</p>"
    "<p>Until you approve it, no assistant can recall it, the one that proposed it included. "
    "A prompt-injected assistant's planted instruction reaches no one unless you say yes. "
    "What you do not decide is rejected after the time set in Settings \u2192 Privacy.</p>"
)
# Besides each move of the event log, a recount this often: a proposal made between the memory's opening
# and the first change check moves nothing the backend has seen yet.
RECOUNT_MS = 5000
ITEM_ROLE = Qt.ItemDataRole.UserRole


def _count(engine: MemoryEngine) -> int:
    return engine.inbox_count()


def _items(engine: MemoryEngine) -> list[PendingItem]:
    return engine.inbox()


class InboxWatch(QObject):
    """How many items wait, re-counted whenever the event log moves; `arrived` once per batch of new ones."""

    counted = Signal(int)
    arrived = Signal(int)  # how many came since the last count (one notification per batch)

    def __init__(self, backend: Backend, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.count: int | None = None
        backend.ready.connect(self.recount)
        backend.changed_elsewhere.connect(self.recount)
        self._timer = QTimer(self)
        self._timer.setInterval(RECOUNT_MS)
        self._timer.timeout.connect(self.recount)
        self._timer.start()
        if backend.is_ready:
            self.recount()

    def recount(self) -> None:
        if self.backend.is_ready:
            self.backend.call(_count, name="inbox count", on_done=self._counted, on_error=lambda _exc: None)

    def _counted(self, count: int) -> None:
        before, self.count = self.count, count
        if before is not None and count > before:
            self.arrived.emit(count - before)
        if count != before:
            self.counted.emit(count)


def _when(value: datetime) -> str:
    return fmt.when(value)


def _expires(item: PendingItem, now: datetime) -> str:
    days = max(0, math.ceil((item.expires_at - now).total_seconds() / 86400))
    return f"expires in {days} day{'s' if days != 1 else ''}" + (" — soon" if item.expires_soon(now) else "")


def with_badge(icon: QIcon, count: int, size: int = 64) -> QIcon:
    """The icon with the number waiting in a red disc at its corner (the icon as it was for 0)."""
    if count <= 0:
        return icon
    pixmap = icon.pixmap(size, size)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    disc = QRectF(size * 0.42, 0, size * 0.58, size * 0.58)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(theme.BADGE_RED))  # white reads on it in light and dark
    painter.drawEllipse(disc)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(int(size * (0.36 if count < 10 else 0.28)))
    painter.setFont(font)
    painter.setPen(QColor(theme.BADGE_TEXT))
    painter.drawText(disc, Qt.AlignmentFlag.AlignCenter, str(count) if count < 100 else "99+")
    painter.end()
    return QIcon(pixmap)


def waiting_words(count: int) -> str:
    if not count:
        return "Inbox: nothing waits for review"
    return f"Inbox: {count} proposal{'s' if count != 1 else ''} wait{'s' if count == 1 else ''} for your review"


class InboxView(QWidget):
    """The list of what waits and the chosen item's text (editable), reason and signals."""

    decided = Signal()  # something was approved or rejected here

    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.items: list[PendingItem] = []
        self.errors: list[str] = []
        self.dock: QDockWidget | None = None  # set by attach_inbox
        self.watch: InboxWatch | None = None
        self._build()
        self._make_shortcuts()
        backend.ready.connect(self.reload)
        backend.changed_elsewhere.connect(self.reload)
        if backend.is_ready:
            self.reload()

    # ---- building ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.list = QTreeWidget()
        self.list.setHeaderLabels(["Proposed", "By", "Type", "Memory", "Expires"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        header = self.list.header()  # the proposed text takes the room; the others are short
        header.setStretchLastSection(False)
        for column, width in ((0, 140), (1, 120), (2, 90), (4, 150)):
            header.resizeSection(column, width)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.currentItemChanged.connect(lambda *_: self._show_current())
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("The proposed memory; edit it, then Approve keeps your version.")
        self.text.setMaximumHeight(120)
        self.why = QLabel()
        self.why.setWordWrap(True)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.approve_button = QPushButton("Approve (A)")
        self.reject_button = QPushButton("Reject (R)")
        self.approve_client_button = QPushButton("Approve all from this assistant")
        self.reject_client_button = QPushButton("Reject all from this assistant")
        self.approve_button.clicked.connect(self.approve_current)
        self.reject_button.clicked.connect(self.reject_current)
        self.approve_client_button.clicked.connect(lambda: self.decide_client(approve=True))
        self.reject_client_button.clicked.connect(lambda: self.decide_client(approve=False))
        buttons = QHBoxLayout()
        for button in (self.approve_button, self.reject_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for button in (self.approve_client_button, self.reject_client_button):
            buttons.addWidget(button)
        self.status = QLabel()
        filled = QWidget()
        layout = QVBoxLayout(filled)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.text)
        layout.addWidget(self.why)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty.setMargin(12)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.empty)
        self.pages.addWidget(filled)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.addWidget(self.pages)

    def _make_shortcuts(self) -> None:
        keys: list[tuple[str, Callable[[], Any]]] = [
            ("A", self.approve_current),
            ("R", self.reject_current),
            ("J", self.next_item),
            ("N", self.next_item),
            ("K", self.previous_item),
            ("Ctrl+Return", self.approve_current),
        ]
        self.shortcuts: dict[str, QAction] = {}
        for key, slot in keys:
            action = QAction(key, self)
            action.setShortcut(QKeySequence(key))
            # On the list only: typing an "a" or an "r" in the text box edits the text.
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            (self.text if key == "Ctrl+Return" else self.list).addAction(action)
            self.shortcuts[key] = action

    # ---- reading -------------------------------------------------------------------------------
    def reload(self) -> None:
        if self.backend.is_ready:
            self.backend.call(_items, name="inbox", on_done=self._show, on_error=self._failed)

    def _show(self, items: list[PendingItem]) -> None:
        chosen = self.current_id()
        self.items = items
        now = datetime.now(UTC)
        self.list.blockSignals(True)
        self.list.clear()
        for item in items:
            row = QTreeWidgetItem(
                [_when(item.created_at), item.client, item.type, fmt.one_line(item.content, 120), _expires(item, now)]
            )
            row.setData(0, ITEM_ROLE, item.id)
            row.setToolTip(3, item.content)
            self.list.addTopLevelItem(row)
        self.list.blockSignals(False)
        self.pages.setCurrentIndex(1 if items else 0)
        ids = [item.id for item in items]
        self._select(ids.index(chosen) if chosen in ids else 0)

    def _select(self, row: int) -> None:
        if self.list.topLevelItemCount():
            row = max(0, min(row, self.list.topLevelItemCount() - 1))
            self.list.setCurrentItem(self.list.topLevelItem(row))
            self.list.setFocus()
        self._show_current()

    def current(self) -> PendingItem | None:
        row = self.list.currentItem()
        if row is None:
            return None
        wanted = row.data(0, ITEM_ROLE)
        return next((item for item in self.items if item.id == wanted), None)

    def current_id(self) -> str | None:
        item = self.current()
        return item.id if item is not None else None

    def _show_current(self) -> None:
        item = self.current()
        for button in (self.approve_button, self.reject_button, self.approve_client_button, self.reject_client_button):
            button.setEnabled(item is not None)
        if item is None:
            self.text.clear()
            self.why.clear()
            return
        self.text.setPlainText(item.content)
        signals = ", ".join(f"{k} {v:.2f}" for k, v in item.signals.items() if isinstance(v, int | float))
        claimed = f" (the assistant called it {item.claimed_type})" if item.claimed_type else ""
        joined = f" Proposed {item.repeats + 1} times." if item.repeats else ""
        self.why.setText(
            f"<b>{item.client}</b> proposed this {fmt.ago(item.created_at)} as {item.type}{claimed}. "
            f"{item.reason}{joined}<br><small>The gate's signals: {signals}"
            + (f"; directive cue: {item.signals['directive']}" if item.signals.get("directive") else "")
            + "</small>"
        )
        self.approve_client_button.setText(f"Approve all from {item.client}")
        self.reject_client_button.setText(f"Reject all from {item.client}")

    # ---- deciding ------------------------------------------------------------------------------
    def next_item(self) -> None:
        self._select(self.list.indexOfTopLevelItem(self.list.currentItem()) + 1)

    def previous_item(self) -> None:
        self._select(self.list.indexOfTopLevelItem(self.list.currentItem()) - 1)

    def approve_current(self) -> None:
        item = self.current()
        if item is None:
            return
        edited = self.text.toPlainText().strip()
        content = edited if edited and edited != item.content.strip() else None
        self._decide(lambda engine: engine.approve([item.id], content=content), f"Approved: {fmt.one_line(edited, 80)}")

    def reject_current(self) -> None:
        item = self.current()
        if item is not None:
            self._decide(lambda engine: engine.reject([item.id]), "Rejected, and deleted with no copy left.")

    def decide_client(self, *, approve: bool) -> None:
        """Every waiting item of the chosen item's client at once."""
        item = self.current()
        if item is None:
            return
        ids = [i.id for i in self.items if i.client == item.client]

        def run(engine: MemoryEngine) -> object:
            return engine.approve(ids) if approve else engine.reject(ids)

        verb = "Approved" if approve else "Rejected"
        self._decide(run, f"{verb} {len(ids)} from {item.client}.")

    def _decide(self, call: Callable[[MemoryEngine], object], done: str) -> None:
        row = max(0, self.list.indexOfTopLevelItem(self.list.currentItem()))

        def finished(_result: object) -> None:
            self.status.setText(done)
            self.decided.emit()
            self.backend.call(
                _items, name="inbox", on_done=lambda items: self._after(items, row), on_error=self._failed
            )

        self.backend.call(call, name="inbox decision", on_done=finished, on_error=self._failed)

    def _after(self, items: list[PendingItem], row: int) -> None:
        self._show(items)
        self._select(row)  # the next item takes the decided one's place

    def _failed(self, exc: BaseException) -> None:
        self.errors.append(str(exc))
        self.status.setText(f"Could not do that: {exc}")


def attach_inbox(window: QMainWindow, backend: Backend, bar: QToolBar) -> InboxView:
    """The Inbox as a panel of the timeline window, with a toolbar button (Ctrl+I) that shows the count
    waiting; the panel opens by itself when something new arrives."""
    view = InboxView(backend, window)
    dock = QDockWidget("Inbox", window)
    dock.setObjectName("inbox")
    dock.setWidget(view)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    dock.hide()
    toggle = dock.toggleViewAction()
    toggle.setText("Inbox")
    toggle.setShortcut(QKeySequence("Ctrl+I"))
    toggle.setToolTip("What assistants proposed that waits for you (Ctrl+I)")
    bar.addAction(toggle)
    watch = InboxWatch(backend, view)
    first = [True]

    def counted(count: int) -> None:
        toggle.setText(f"Inbox ({count})" if count else "Inbox")
        if count and first[0]:  # something waited already when the window opened
            dock.show()
        first[0] = False

    watch.counted.connect(counted)
    watch.counted.connect(lambda _n: view.reload())  # the count moved without a change the backend saw
    watch.arrived.connect(lambda _n: dock.show())
    view.dock, view.watch = dock, watch
    return view
