"""Living with the app: the tray opens the log folder; errors say what to do where the person is."""

from __future__ import annotations

import socket
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QApplication
from support.app import seed, start_shell

from hindsight_desktop.app.activity import ClientsSeen
from hindsight_desktop.app.shortcuts_sheet import shortcuts_of
from hindsight_desktop.config import Settings


class _Opened(QObject):
    """Stands in for the desktop's file manager: records the addresses Qt was asked to open."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_the_tray_opens_the_log_folder(shell, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HINDSIGHT_LOG_DIR", str(tmp_path / "logs"))
    opened = _Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        assert "Open log folder" in [a.text() for a in shell.tray.menu.actions()]
        shell.tray.act_log.trigger()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in opened.urls] == [str(tmp_path / "logs")]
    assert (tmp_path / "logs").is_dir()


def test_a_taken_port_is_explained_where_the_person_is_and_a_free_port_fixes_it(
    qtbot, app_paths, embedder, token_store
):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        app = start_shell(qtbot, app_paths, embedder, serve=True, settings=Settings(http_port=port))
        try:
            tray = app.tray
            title = "Hindsight Desktop: MCP server stopped"
            text = next(t for name, t in tray.messages if name == title)
            assert f"Port {port} is used by another program" in text and "Settings" in text
            assert "--port" not in text and "--port" not in tray.act_status.text()  # no CLI advice in the app
            assert sum(t == title for t, _ in tray.messages) == 1 and not any(
                t == "Hindsight Desktop needs attention" for t, _ in tray.messages
            )  # one notification, not two
            # Never "Connected: …" while the server is stopped, whatever the activity poll saw.
            tray.show_clients(ClientsSeen(connected=("cursor",), registered=("cursor",)))
            assert "Connected" not in tray.act_clients.text() and "stopped" in tray.act_clients.text()
            # Clicking the notification opens Settings at the port.
            tray.notify(title, text)  # the newest balloon is the one clicked
            tray.icon.messageClicked.emit()
            dialog = app.settings_dialog
            assert dialog is not None and dialog.isVisible()
            assert dialog.inputs["http_port"].widget.value() == port
            # The tray offers the next free port; using it starts the server there and saves the setting.
            offer = app.port_busy.action
            assert offer.isVisible() and offer in tray.menu.actions()
            free = app.port_busy.free_port
            assert free is not None and free != port and str(free) in offer.text()
            offer.trigger()
            qtbot.waitUntil(lambda: app.backend.server is not None, timeout=30_000)
            assert app.backend.server.port == free and app.backend.state != "error"
            assert dialog.inputs["http_port"].widget.value() == free  # Save would not put the old one back
            qtbot.waitUntil(lambda: Settings.load(app_paths.settings_file).http_port == free)
            assert not offer.isVisible() and tray.act_server.text() == f"MCP server: running on port {free}"
            tray.show_clients(ClientsSeen(connected=("cursor",), registered=("cursor",)))
            assert tray.act_clients.text() == "Connected: cursor"
        finally:
            app.shutdown()


def test_the_clients_tab_says_where_tokens_really_are(qtbot, shell):
    # The tests keep tokens in the 0600 file (no keyring backend): the tab must say the file, not the keyring.
    tab = shell.open_settings().clients
    vault = shell.backend.registry.vault
    qtbot.waitUntil(lambda: tab.token_place.text() != "")
    assert str(vault.file) in tab.token_place.text() and "no OS keyring" in tab.token_place.text()
    assert "keyring" not in tab.note.text()


def test_keyring_words_name_the_backend():
    from hindsight_desktop.app.token_place import token_place_words

    assert token_place_words("OS keyring (SecretService Keyring)") == (
        "Tokens are kept in the OS keyring (SecretService Keyring)."
    )


def _timeline(qtbot, shell):
    window = shell.open_timeline()
    qtbot.waitUntil(lambda: window.timeline.total is not None and not window.timeline.loading, timeout=20_000)
    return window


def test_esc_closes_the_stats_window(qtbot, shell):
    stats = shell.open_stats()
    qtbot.waitUntil(stats.isVisible)
    stats.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is stats)
    qtbot.keyClick(stats, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not stats.isVisible())


def test_f1_and_question_mark_open_a_sheet_of_the_shortcuts_that_exist(qtbot, shell):
    window = _timeline(qtbot, shell)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(window, "shortcuts_sheet", None) is not None)
    sheet = window.shortcuts_sheet
    keys = {keys for keys, _ in sheet.rows}
    for wanted in ("Ctrl+F", "Esc", "Return", "Ctrl+P", "Del", "Shift+Del", "Ctrl+Z", "F1", "?"):
        assert wanted in keys, (wanted, sorted(keys))
    words = dict(sheet.rows)
    assert "Archive" in words["Del"] and "Delete for good" in words["Shift+Del"]
    if window.inbox is not None:  # the Inbox's own keys, when it is there
        assert {"A", "R", "J", "K"} <= keys
    # The sheet follows the actions: a shortcut added to the window shows up, none is listed that is not.
    extra = QAction("Say hello", window)
    extra.setShortcut(QKeySequence("Ctrl+Shift+H"))
    window.addAction(extra)
    assert ("Ctrl+Shift+H", "Say hello") in shortcuts_of(window)
    sheet.close()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.timeline_view.setFocus()
    qtbot.waitUntil(window.timeline_view.hasFocus)
    qtbot.keyClick(window.timeline_view, "?")
    qtbot.waitUntil(lambda: window.shortcuts_sheet is not sheet and window.shortcuts_sheet.isVisible())


def test_after_a_forget_the_next_row_stays_selected(qtbot, shell):
    ids = seed(shell.backend.engine)
    window = _timeline(qtbot, shell)
    window.go_to(ids[1])
    assert window.selected_ids() == [ids[1]]
    task = window.forget_selected()
    qtbot.waitUntil(lambda: task.is_finished and not window.timeline.index_of(ids[1]).isValid())
    assert window.selected_ids() == [ids[2]]  # the one below (older), as in a mail client
    # At the end of the list, the one above.
    last = ids[-1]
    window.go_to(last)
    task = window.forget_selected()
    qtbot.waitUntil(lambda: task.is_finished and not window.timeline.index_of(last).isValid())
    assert window.selected_ids() == [ids[-2]]


def test_a_change_seen_while_the_memory_is_closed_waits_for_it_to_open(qtbot, shell):
    """A change check that finishes after the memory closed (a key change, a model switch) refreshes
    nothing then (it raised "memory is still opening" in the Qt loop); the reopening refreshes the views."""
    seed(shell.backend.engine)
    window = _timeline(qtbot, shell)
    clients = window.filter_bar.client
    clients.clear()
    assert shell.backend.close_memory() is None
    shell.backend._last_event = -1
    shell.backend._seen(10**9)  # the check's answer arrives now
    window._changed_elsewhere()  # and a refresh asked for meanwhile
    shell.backend.retry_open()
    qtbot.waitUntil(lambda: shell.backend.is_ready, timeout=30_000)
    qtbot.waitUntil(lambda: clients.count() > 1, timeout=10_000)  # refreshed once open again
