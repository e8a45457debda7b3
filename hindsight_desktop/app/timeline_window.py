"""The timeline window: every memory by day (newest first), search with a "why" panel, filters, the
detail pane, and the actions (edit, pin, forget, restore, purge, undo — the person's last forget, or
from the detail pane any one forget batch, such as an assistant's bulk forget — export, import)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSize, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.detail_pane import DetailPane
from hindsight_desktop.app.edit_dialog import EditDialog
from hindsight_desktop.app.filters import FilterBar, keep_hit, search_arguments
from hindsight_desktop.app.help_menu import attach_help
from hindsight_desktop.app.icons import app_icon
from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.app.inbox_view import attach_inbox
from hindsight_desktop.app.job_bar import JobBar
from hindsight_desktop.app.keep_selection import neighbour_id, select_id
from hindsight_desktop.app.memory_actions import MemoryActions
from hindsight_desktop.app.search_model import SearchModel
from hindsight_desktop.app.shortcuts_sheet import attach_shortcuts_sheet
from hindsight_desktop.app.timeline_model import COLUMNS, MEMORY_ROLE, TimelineModel
from hindsight_desktop.app.transfer_actions import TransferActions
from hindsight_desktop.app.why_panel import WhyPanel
from hindsight_desktop.app.workers import Task
from hindsight_desktop.core.records import Memory, SearchHit

if TYPE_CHECKING:  # the engine is imported on a worker (or when a command runs), never at start-up
    from hindsight_desktop.core.engine import MemoryEngine

SEARCH_LIMIT = 50
WIDTHS = (56, 0, 88, 72, 104, 76)  # 0: the Memory column stretches; the rest fit their words
# The list gets most of the window: memory text is what people read, the detail pane only its side.
SPLIT = (4, 1)
SPLIT_SIZES = (900, 320)


_View = TypeVar("_View", bound=QAbstractItemView)


def _rows_view(view: _View) -> _View:
    """What both lists share: whole rows selected (several at once), read-only, actions on right-click."""
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setAlternatingRowColors(True)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    return view


class _Padded(QStyledItemDelegate):
    """Rows a little taller than the text. Done here, not with a style sheet: a style sheet keeps the
    palette of when it was set, so a light/dark switch would leave the list in the old colours."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 - Qt's name
        size = super().sizeHint(option, index)
        return QSize(size.width(), size.height() + 4)


def _list() -> QTreeView:
    """The search results' view (a flat list of at most SEARCH_LIMIT rows)."""
    view = _rows_view(QTreeView())
    view.setUniformRowHeights(True)
    view.setRootIsDecorated(False)
    view.setItemsExpandable(False)
    view.setIndentation(0)
    view.setItemDelegate(_Padded(view))
    return view


class _Rows(QTableView):
    """A table read as a list of rows: Home and End go to the first and last row (a table's own Home
    and End go along the row, meaningless when whole rows are selected)."""

    def moveCursor(self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier) -> QModelIndex:
        if action in (QAbstractItemView.CursorAction.MoveHome, QAbstractItemView.CursorAction.MoveEnd):
            modifiers |= Qt.KeyboardModifier.ControlModifier
        return super().moveCursor(action, modifiers)


def _table() -> QTableView:
    """The timeline's view: a table lays out and paints only the rows on screen, whatever it holds."""
    view = _rows_view(_Rows())
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)  # a long memory ends in "…"; its tooltip has it all
    view.setTabKeyNavigation(False)
    view.setCornerButtonEnabled(False)
    view.horizontalHeader().setHighlightSections(False)
    rows = view.verticalHeader()
    rows.hide()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # one height for all: nothing is measured
    rows.setDefaultSectionSize(view.fontMetrics().height() + 8)
    return view


def _size_columns(header: QHeaderView, widths: tuple[int, ...]) -> None:
    header.setStretchLastSection(False)
    for column, width in enumerate(widths):
        if width:
            header.resizeSection(column, width)
        else:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)


class TimelineWindow(QMainWindow):
    _select_after: str | None = None  # the memory a forget in progress leaves selected

    def __init__(
        self,
        backend: Backend,
        open_settings: Callable[[], None] | None = None,
        open_stats: Callable[[], None] | None = None,
        quit_on_close: bool = False,
    ) -> None:
        super().__init__()
        self.backend = backend
        self.quit_on_close = quit_on_close
        self.setWindowTitle("Hindsight Desktop — Timeline")
        self.setWindowIcon(app_icon())
        self.resize(1240, 780)
        self.timeline = TimelineModel(backend, parent=self)
        self.results = SearchModel(self)
        self.actions_ = MemoryActions(backend, self)
        self.search_task: Task | None = None
        self._build(open_settings, open_stats)
        self._connect()
        if backend.is_ready:
            self._ready()
        else:
            self.count_label.setText("Opening memory…")

    # ---- building ------------------------------------------------------------------------------
    def _build(self, open_settings: Callable[[], None] | None, open_stats: Callable[[], None] | None) -> None:
        self.search_field = QLineEdit()
        self.search_field.setPlaceholderText("Search memories by meaning or words  (Ctrl+F)")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.setMinimumWidth(320)
        self.filter_bar = FilterBar()
        self.timeline_view, self.search_view = _table(), _list()
        self.timeline_view.setModel(self.timeline)
        self.search_view.setModel(self.results)
        _size_columns(self.timeline_view.horizontalHeader(), WIDTHS)
        _size_columns(self.search_view.header(), (64, 0, 96, 150, 120))
        self.stack = QStackedWidget()
        self.stack.addWidget(self.timeline_view)
        self.stack.addWidget(self.search_view)
        self.detail = DetailPane(self.backend)
        self.why = WhyPanel()
        self.why.hide()
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(self.detail)
        side.addWidget(self.why)
        side.setChildrenCollapsible(False)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.stack)
        split.addWidget(side)
        split.setStretchFactor(0, SPLIT[0])
        split.setStretchFactor(1, SPLIT[1])
        split.setSizes(list(SPLIT_SIZES))
        self.split = split
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(10, 6, 10, 4)
        layout.addWidget(self.filter_bar)
        layout.addWidget(split, 1)
        self.setCentralWidget(body)
        self._make_actions(open_settings, open_stats)
        self.count_label = QLabel()
        self.job_bar = JobBar()
        self.statusBar().addWidget(self.count_label, 1)
        self.statusBar().addPermanentWidget(self.job_bar)
        self.backend.job_started.connect(self.job_bar.follow)  # e.g. the re-embed a model switch starts
        self.transfer = TransferActions(self.backend, self, self.job_bar, self.filter_bar.filters, self.selected_ids)

    def _action(
        self,
        text: str,
        slot: Callable[[], Any],
        keys: QKeySequence | str | None = None,
        on_views: bool = False,
        tip: str = "",
    ) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(lambda _checked=False: slot())
        if tip:
            action.setToolTip(tip)
        if keys is not None:
            action.setShortcut(QKeySequence(keys))
        if on_views:  # keys like Delete and Enter must not fire while typing in the search box
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            self.timeline_view.addAction(action)
            self.search_view.addAction(action)
        else:
            self.addAction(action)
        return action

    def _make_actions(self, open_settings: Callable[[], None] | None, open_stats: Callable[[], None] | None) -> None:
        self.act_find = self._action("Find", self.focus_search, QKeySequence.StandardKey.Find)
        self.act_clear = self._action("Clear search", self.clear_search, "Esc")
        self.act_edit = self._action(
            "Edit…", self.edit_current, Qt.Key.Key_Return, True, "Edit content, type, importance, scope, date (Enter)"
        )
        self.act_pin = self._action(
            "Pin", lambda: self.actions_.pin(self.selected()), "Ctrl+P", True, "Pin or unpin (Ctrl+P)"
        )
        self.act_forget = self._action(
            "Forget",
            self.forget_selected,
            QKeySequence.StandardKey.Delete,
            True,
            "Archive: hidden from recall, restorable (Delete)",
        )
        self.act_restore = self._action("Restore", lambda: self.actions_.restore(self.selected_ids()), None, True)
        self.act_purge = self._action(
            "Delete for good…",
            lambda: self.actions_.purge(self.selected_ids()),
            "Shift+Del",
            True,
            "Delete for good; asks first (Shift+Delete)",
        )
        self.act_undo = self._action("Undo forget", self.actions_.undo, QKeySequence.StandardKey.Undo)
        self.act_undo.setEnabled(False)
        self.act_export = self._action("Export…", lambda: self.transfer.export_dialog())
        self.act_import = self._action("Import…", lambda: self.transfer.import_dialog())
        bar = QToolBar("Actions")
        bar.setMovable(False)
        bar.addWidget(self.search_field)
        bar.addSeparator()
        for act in (self.act_edit, self.act_pin, self.act_forget, self.act_restore, self.act_purge, self.act_undo):
            bar.addAction(act)
        bar.addSeparator()
        bar.addAction(self.act_export)
        bar.addAction(self.act_import)
        if open_stats is not None:
            self.act_stats = self._action("Stats", open_stats)
            bar.addAction(self.act_stats)
        if open_settings is not None:
            self.act_settings = self._action("Settings", open_settings)
            bar.addAction(self.act_settings)
        self.inbox = attach_inbox(self, self.backend, bar)
        self.act_shortcuts = attach_shortcuts_sheet(self, [self.timeline_view, self.search_view])
        bar.addSeparator()
        self.help_menu = attach_help(self, bar, self.act_shortcuts)
        self.addToolBar(bar)

    def _connect(self) -> None:
        self.search_field.returnPressed.connect(self.run_search)
        self.search_field.textChanged.connect(lambda text: None if text.strip() else self.clear_search())
        self.filter_bar.changed.connect(self.apply_filters)
        self.timeline.rowsInserted.connect(self._rows_inserted)
        # A table keeps its spans through a reset (they would pile up below the rows, reload by reload).
        self.timeline.modelReset.connect(self.timeline_view.clearSpans)
        self.timeline.total_changed.connect(lambda _n: self._update_count())
        self.timeline.loading_changed.connect(self._page_shown)
        self.timeline_view.verticalScrollBar().valueChanged.connect(lambda _v: self._want_more())
        self.timeline_view.verticalScrollBar().rangeChanged.connect(lambda _lo, _hi: self._want_more())
        self.timeline.loading_changed.connect(lambda _b: self._update_count())
        self.timeline.load_failed.connect(self.show_error)
        self.timeline_view.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.search_view.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.timeline_view.doubleClicked.connect(lambda _i: self.edit_current())
        self.search_view.doubleClicked.connect(lambda _i: self.edit_current())
        self.detail.open_memory.connect(self.go_to)
        self.detail.undo_batch.connect(self.actions_.undo_batch)
        self.actions_.changed.connect(self._memories_changed)
        self.actions_.removed.connect(self._memories_removed)
        self.actions_.message.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.actions_.failed.connect(self.show_error)
        self.actions_.undo_changed.connect(self.act_undo.setEnabled)
        self.transfer.message.connect(lambda text: self.statusBar().showMessage(in_app(text), 8000))
        self.transfer.imported.connect(self._imported)
        self.backend.ready.connect(self._ready)
        self.backend.changed_elsewhere.connect(self._changed_elsewhere)
        self.timeline.layoutChanged.connect(self._respan)
        self._selection_changed()

    def _ready(self) -> None:
        self.timeline.set_filters(self.filter_bar.filters())
        self.refresh_clients()

    def _changed_elsewhere(self) -> None:
        """Another process (or this one) changed memory: show it without moving the person's place."""
        self.timeline.refresh()
        self.refresh_clients()

    def _respan(self) -> None:
        self.timeline_view.clearSpans()
        self._rows_inserted(QModelIndex(), 0, self.timeline.rowCount() - 1)

    def refresh_clients(self) -> None:
        if self.backend.engine is None:  # closed for a moment (a model switch, a new key): `ready` refreshes it
            return
        self.backend.call(lambda e: list(e.stats()["by_client"]), name="clients", on_done=self.filter_bar.set_clients)

    # ---- what is shown -------------------------------------------------------------------------
    @property
    def searching(self) -> bool:
        return self.stack.currentWidget() is self.search_view

    def current_view(self) -> QAbstractItemView:
        return self.search_view if self.searching else self.timeline_view

    def selected(self) -> list[Memory]:
        rows = self.current_view().selectionModel().selectedRows(0)
        found = [r.data(MEMORY_ROLE) for r in rows]
        return [m for m in found if isinstance(m, Memory)]

    def selected_ids(self) -> list[str]:
        return [m.id for m in self.selected()]

    def _rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        for row in range(first, last + 1):  # a day's heading spans the row
            if self.timeline.is_day(row):
                self.timeline_view.setSpan(row, 0, 1, len(COLUMNS))

    def _page_shown(self, loading: bool) -> None:
        if not loading:  # the next page, if the timeline still reaches within a screen of its end
            self._want_more()

    def _want_more(self) -> None:
        """The next page, once the timeline is scrolled to within a screen of its end (or does not fill
        the screen yet), so it is usually in before the end is reached."""
        bar = self.timeline_view.verticalScrollBar()
        if self.timeline_view.isVisible() and bar.value() >= bar.maximum() - bar.pageStep():
            self.timeline.fetch_more()

    def _update_count(self) -> None:
        if self.searching:
            return
        total = self.timeline.total
        shown = self.timeline.loaded
        text = fmt.count(total, "memory") if total is not None else fmt.count(shown, "memory")
        if total is not None and shown < total:
            text += f"  ·  {shown:,} loaded, more as you scroll"
        if self.timeline.loading:
            text += "  ·  loading…"
        self.count_label.setText(text)

    def _selection_changed(self) -> None:
        chosen = self.selected()
        has = bool(chosen)
        for act in (self.act_pin, self.act_forget, self.act_purge):
            act.setEnabled(has)
        self.act_edit.setEnabled(len(chosen) == 1)
        self.act_restore.setEnabled(any(m.status != "active" for m in chosen))
        self.act_pin.setText("Unpin" if has and all(m.pinned for m in chosen) else "Pin")
        current = chosen[0] if len(chosen) == 1 else None
        if current is None or self.detail.memory is None or current.id != self.detail.memory.id:
            self.detail.show_memory(current)
        if self.searching:
            hit = next((h for h in self.results.hits if current and h.memory.id == current.id), None)
            self.why.set_hit(hit, self.backend.engine.recall_weights if self.backend.engine else None)

    # ---- search and filters ----------------------------------------------------------------------
    def focus_search(self) -> None:
        self.search_field.setFocus()
        self.search_field.selectAll()

    def apply_filters(self) -> None:
        self.timeline.set_filters(self.filter_bar.filters())
        if self.searching:
            self.run_search()

    def run_search(self) -> Task | None:
        text = self.search_field.text().strip()
        if not text or not self.backend.is_ready:
            return None
        filters = self.filter_bar.filters()
        kwargs = search_arguments(filters)

        def search(engine: MemoryEngine) -> list[SearchHit]:
            hits = engine.search(text, limit=SEARCH_LIMIT, **kwargs).hits
            return [h for h in hits if keep_hit(filters, h.memory.status, h.memory.pinned)]

        self.count_label.setText(f"Searching for “{text}”…")
        self.search_task = self.backend.call(
            search, name="search", on_done=lambda hits: self._found(text, hits), on_error=self.show_error
        )
        return self.search_task

    def _found(self, text: str, hits: list[SearchHit]) -> None:
        self.results.set_hits(text, hits)
        self.stack.setCurrentWidget(self.search_view)
        self.why.show()
        self.count_label.setText(self.results.status_text())  # says so when nothing found is relevant
        if hits:  # select explicitly: a held Ctrl would make setCurrentIndex toggle the row off
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.search_view.selectionModel().setCurrentIndex(self.results.index(0, 0), flags)
        self._selection_changed()

    def clear_search(self) -> None:
        if self.search_field.text():
            self.search_field.clear()  # textChanged comes back here with empty text
            return
        self.results.clear()
        self.why.hide()
        self.stack.setCurrentWidget(self.timeline_view)
        self._update_count()
        self._selection_changed()

    # ---- going to a memory --------------------------------------------------------------------
    def go_to(self, memory_id: str) -> None:
        """Select a memory (a clicked link); if it is not on screen, show it in the pane anyway."""
        view = self.current_view()
        model = self.results if self.searching else self.timeline
        index = model.index_of(memory_id)
        if index.isValid():
            view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
            view.scrollTo(index)
            return
        self.backend.call(
            lambda e: e.get(memory_id), name="open link", on_done=self.detail.show_memory, on_error=self.show_error
        )

    # ---- actions -------------------------------------------------------------------------------
    def edit_current(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        dialog = EditDialog(chosen[0], self)
        try:
            if dialog.exec():
                self.actions_.edit(chosen[0], dialog.changes())
        finally:
            dialog.deleteLater()  # one dialog per edit; never left behind as the window's child

    def forget_selected(self) -> Task | None:
        ids = [m.id for m in self.selected() if m.status == "active"]
        self._select_after = neighbour_id(self.current_view(), ids)  # selected again once they are gone
        return self.actions_.forget(ids)

    def _memories_changed(self, memories: list[Memory]) -> None:
        for m in memories:
            self.timeline.replace(m)
            self.results.replace(m)
            if self.detail.memory is not None and self.detail.memory.id == m.id:
                self.detail.show_memory(m)
        self._selection_changed()
        if any(self.timeline.matches(m) and not self.timeline.index_of(m.id).isValid() for m in memories):
            self.timeline.reload()  # a restored memory belongs in the list again
        if self._select_after is not None:
            select_id(self.current_view(), self._select_after)
            self._select_after = None

    def _memories_removed(self, ids: list[str]) -> None:
        self.timeline.remove_ids(ids)
        self.results.remove_ids(ids)
        if self.detail.memory is not None and self.detail.memory.id in ids:
            self.detail.show_memory(None)
        self._update_count()

    def show_error(self, message: object) -> None:
        self.statusBar().showMessage(in_app(f"Something went wrong: {message}"), 10_000)

    def _imported(self) -> None:
        self.timeline.reload()
        self.refresh_clients()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.quit_on_close:  # no system tray: this window is the app
            from PySide6.QtWidgets import QApplication

            QApplication.quit()
        super().closeEvent(event)
