"""Settings → Clients: the assistants allowed to connect, their tokens, their set-up snippets, and how
each one's writes are taken (auto, review: they wait in the inbox, read-only: refused), whether it
connects over HTTP or as a stdio process started with its name."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop.app import fmt
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.client_setup import Setup, client_kinds, install_client, setup_snippet
from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.app.token_place import token_place_words
from hindsight_desktop.app.workers import Task
from hindsight_desktop.core.clients import DEFAULT_POLICY, POLICIES, ClientBook
from hindsight_desktop.core.identities import NO_AUTH_CLIENT

POLICY_WORDS = {
    "auto": "auto: kept when worth keeping",
    "review": "review: waits in your inbox",
    "read-only": "read-only: may only search",
}


# Every writer the memory has seen, whatever its transport: token holders, and stdio names from their writes.
COLUMNS = ("Client", "Status", "Connects", "Last active", "Writes")


def _transport(name: str, has_token: bool) -> str:
    if has_token:
        return "HTTP (token)"
    return "HTTP, no token" if name == NO_AUTH_CLIENT else "stdio"


def _menu_button(text: str, parent: QWidget) -> tuple[QToolButton, QMenu]:
    button = QToolButton(parent)
    button.setText(text)
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    menu = QMenu(button)
    button.setMenu(menu)
    return button, menu


HERE = {"clients config": "“Copy set-up” here", "clients install": "“Install into” here", "clients add": "“Add…” here"}


class ClientsTab(QWidget):
    token_created = Signal(str, str)  # name, token (shown once)
    message = Signal(str)

    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        header = self.table.horizontalHeader()
        # The client's name gets its room; the policy's words (the last column) take what is left.
        header.setStretchLastSection(True)
        for column, width in ((0, 130), (1, 115), (2, 105), (3, 135)):
            header.resizeSection(column, width)
        self.policies: dict[str, str] = {}
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        add, rotate, revoke = QPushButton("Add…"), QPushButton("New token"), QPushButton("Revoke")
        add.clicked.connect(self._ask_name)
        rotate.clicked.connect(lambda: self._on_selected(lambda n: self.add_client(n, rotate=True)))
        revoke.clicked.connect(lambda: self._on_selected(self.revoke_client))
        copy, copy_menu = _menu_button("Copy set-up", self)
        install, install_menu = _menu_button("Install into", self)
        self.policy_button, policy_menu = _menu_button("Writes", self)
        self.policy_button.setToolTip("How the selected client's writes are taken (any transport)")
        for policy in POLICIES:
            policy_menu.addAction(POLICY_WORDS[policy]).triggered.connect(
                lambda _c=False, p=policy: self._on_selected(lambda n: self.set_policy(n, p))
            )
        policy_menu.addSeparator()
        policy_menu.addAction("For a stdio client name…").triggered.connect(self._ask_policy_name)
        for key, label in client_kinds():
            copy_menu.addAction(label).triggered.connect(lambda _c=False, k=key: self.copy_setup(k))
            install_menu.addAction(label).triggered.connect(lambda _c=False, k=key: self.install(k))
        buttons = QHBoxLayout()
        for widget in (add, rotate, revoke, self.policy_button):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        buttons.addWidget(copy)
        buttons.addWidget(install)
        self.note = QLabel(
            "Each assistant gets its own token. Copy set-up puts the "
            "exact snippet on the clipboard; Install merges it into the client's config file "
            "(keeping a backup). Writes: on review, what a client proposes waits in the timeline's Inbox; "
            "read-only clients may search but not write. Standing instructions from any assistant wait for "
            "you by default (Settings → Memory, Privacy: “Hold assistants' standing instructions for my review”)."
        )
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        self.token_place = QLabel("")  # where the tokens really are: filled in by refresh()
        self.token_place.setWordWrap(True)
        layout.addWidget(self.token_place)
        self.token_created.connect(self._show_token)
        self.message.connect(lambda text: self.note.setText(in_app(text, HERE)))
        self.refresh()

    def _registry_call(self, fn: Any, *args: Any, done: Any, name: str) -> Task | None:
        if not self.backend.is_ready or self.backend.registry is None:
            self.message.emit("Memory is still opening; try again in a moment.")
            return None
        registry = self.backend.registry
        return self.backend.workers.submit(
            lambda: fn(registry, *args),
            name=name,
            on_done=done,
            on_error=lambda exc: self.message.emit(f"Could not {name}: {exc}"),
        )

    def refresh(self) -> Task | None:
        engine = self.backend.engine
        self._registry_call(
            lambda r: token_place_words(r.vault.backend_name()), done=self.token_place.setText, name="token place"
        )

        def found(r: Any) -> tuple[list[Any], dict[str, str], dict[str, Any]]:
            book = ClientBook.of(engine) if engine is not None else None
            return r.list(), book.policies() if book else {}, book.writers() if book else {}

        return self._registry_call(found, done=self._fill, name="list clients")

    def _fill(self, found: tuple[list[Any], dict[str, str], dict[str, Any]]) -> None:
        records, self.policies, seen = found
        rows = [
            (
                rec.name,
                "active" if rec.active else f"revoked {fmt.when(rec.revoked_at)}",
                _transport(rec.name, True),
                fmt.when(seen.get(rec.name)),
                f"added {fmt.when(rec.created_at)}",
            )
            for rec in records
        ]
        listed = {rec.name for rec in records}
        # The rest need no token: stdio processes started with their name, seen in their writes and
        # searches, or named only by a policy set before they first wrote.
        for name in sorted((set(seen) | set(self.policies)) - listed):
            rows.append((name, "no token needed", _transport(name, False), fmt.when(seen.get(name)), ""))
        self.table.setRowCount(len(rows))
        for row, (name, status, transport, last, added) in enumerate(rows):
            policy = self.policies.get(name, DEFAULT_POLICY)
            for column, text in enumerate((name, status, transport, last, POLICY_WORDS[policy])):
                item = QTableWidgetItem(text)
                if added:
                    item.setToolTip(added)
                self.table.setItem(row, column, item)

    def set_policy(self, name: str, policy: str) -> Task | None:
        engine = self.backend.engine
        if engine is None:
            self.message.emit("Memory is still opening; try again in a moment.")
            return None

        def done(_policy: str) -> None:
            self.message.emit(f"{name}: {POLICY_WORDS[policy]}, from its next write.")
            self.refresh()

        return self.backend.workers.submit(
            lambda: ClientBook.of(engine).set_policy(name, policy),
            name="set the policy",
            on_done=done,
            on_error=lambda exc: self.message.emit(f"Could not set the policy: {exc}"),
        )

    def _ask_policy_name(self) -> None:
        name, ok = QInputDialog.getText(self, "Put a client on review", "Client name (as in --client NAME):")
        if ok and name.strip():
            self.set_policy(name.strip(), "review")

    def names(self) -> list[str]:
        return [self.table.item(r, 0).text() for r in range(self.table.rowCount())]

    def _on_selected(self, action: Any) -> None:
        row = self.table.currentRow()
        if row >= 0:
            action(self.table.item(row, 0).text())

    def _ask_name(self) -> None:
        name, ok = QInputDialog.getText(self, "Add client", "Name (for example: cursor, claude-code):")
        if ok and name.strip():
            self.add_client(name.strip())

    def add_client(self, name: str, rotate: bool = False) -> Task | None:
        from hindsight_desktop.core.errors import InvalidInput
        from hindsight_desktop.mcp.identity import http_client_name

        try:  # a reserved or malformed name is refused here, before any token is minted
            http_client_name(name)
        except InvalidInput as exc:
            self.message.emit(f"Could not add the client: {exc}")
            return None

        def added(result: tuple[str, Any]) -> None:
            token, saved = result
            self.token_created.emit(name, token)
            if saved.warning:
                self.message.emit(saved.warning)
            self.refresh()

        return self._registry_call(lambda r: r.add(name, rotate=rotate), done=added, name="add the client")

    def revoke_client(self, name: str) -> Task | None:
        return self._registry_call(
            lambda r: r.revoke(name),
            name="revoke the client",
            done=lambda _rec: (self.message.emit(f"Revoked {name}: its token stopped working."), self.refresh()),
        )

    def _show_token(self, name: str, token: str) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "Client token",
            f"{name} can now connect with this token. It is also copied to the clipboard.\n\n{token}",
            QMessageBox.StandardButton.Ok,
            self,
        )
        QGuiApplication.clipboard().setText(token)
        box.open()  # not exec(): the dialog never blocks other work

    def copy_setup(self, kind_key: str) -> Task | None:
        port = self.backend.settings.http_port

        def copied(setup: Setup) -> None:
            QGuiApplication.clipboard().setText(setup.payload)
            self.message.emit(f"Copied. {setup.note}" + (f"\n{setup.warning}" if setup.warning else ""))
            self.refresh()

        return self._registry_call(
            lambda r: setup_snippet(
                r, self.backend.paths.data_dir, port, kind_key, config_dir=self.backend.paths.config_dir
            ),
            done=copied,
            name="make the snippet",
        )

    def install(self, kind_key: str) -> Task | None:
        port = self.backend.settings.http_port

        def installed(paths: list[Any]) -> None:
            where = ", ".join(str(p) for p in paths) or "the client"
            self.message.emit(f"Installed into {where}. Restart the client to connect.")
            self.refresh()

        return self._registry_call(
            lambda r: install_client(
                r, self.backend.paths.data_dir, port, kind_key, config_dir=self.backend.paths.config_dir
            ),
            done=installed,
            name="install",
        )
