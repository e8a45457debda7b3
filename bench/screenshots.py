"""Screenshots of every view, in the light and the dark palette: the timeline with its detail pane, dimmed
archived rows, search with its "why" panel, the inbox, the edit, export, import-preview, shortcuts and key
dialogs, each settings tab, Diagnose and Stats. Taken from real windows over a temporary memory filled with
~40 realistic sample memories, on Qt's offscreen platform (the same pixels with or without a desktop), with
the app's own fixed light and dark palettes (app/theme.py), switched as the Appearance setting switches them.

    python bench/screenshots.py [--out FOLDER] [--only light|dark]

Prints the folder (a new temporary one unless --out) and the files. Look at each pair: anything hard to
read in one palette is a bug.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

# (days ago, hour, client, type, importance, text)
SAMPLES = [
    (
        0,
        9,
        "claude-code",
        "instruction",
        0.9,
        "Run the test suite with `pytest -q` before every commit in the hindsight repo.",
    ),
    (0, 10, "cursor", "preference", 0.7, "I prefer small pull requests: one concern each, under 400 lines."),
    (0, 11, "claude-desktop", "event", 0.8, "Dentist appointment with Dr. Okafor on Tuesday at 10:30."),
    (0, 14, "desktop", "fact", 0.9, "My passport expires in March 2031; renew it six months before."),
    (1, 8, "claude-desktop", "preference", 0.6, "I like my coffee as a flat white with oat milk."),
    (
        1,
        12,
        "cursor",
        "skill",
        0.6,
        "To profile the Qt app, run it with QT_LOGGING_RULES='qt.*=false' and py-spy record.",
    ),
    (
        1,
        16,
        "claude-code",
        "fact",
        0.7,
        "The staging database lives on db-staging-02 and is restored from backup every Sunday.",
    ),
    (1, 19, "claude-desktop", "fact", 0.7, "我的女儿在上海读大学，专业是建筑学。"),
    (
        2,
        9,
        "chatgpt",
        "plan",
        0.7,
        "Planning a week in Lisbon in May with Ana; we want to see Sintra and eat at Taberna da Rua das Flores.",
    ),
    (2, 13, "claude-desktop", "preference", 0.5, "Window seat on long flights, aisle on short ones."),
    (2, 18, "cursor", "instruction", 0.8, "Use type hints on public functions and keep ruff clean."),
    (3, 10, "claude-desktop", "fact", 0.8, "Ana's birthday is on 14 June; she loves orchids."),
    (
        3,
        15,
        "claude-code",
        "skill",
        0.6,
        "Release checklist: bump the version, update CHANGELOG.md, tag, then build wheels in CI.",
    ),
    (4, 9, "claude-desktop", "fact", 0.9, "I am allergic to penicillin."),
    (4, 11, "chatgpt", "note", 0.4, "Book recommendation from Bruno: 'The Mountain in the Sea'."),
    (4, 20, "claude-desktop", "preference", 0.6, "我喜欢喝龙井茶，不加糖。"),
    (5, 10, "cursor", "fact", 0.6, "The design system uses an 8-pixel grid and the Inter typeface."),
    (5, 17, "claude-desktop", "event", 0.6, "Ran the Porto half marathon in 1:52 last Sunday."),
    (6, 9, "claude-code", "instruction", 0.7, "Never force-push to main; open a revert PR instead."),
    (6, 14, "claude-desktop", "plan", 0.6, "Want to learn to make sourdough this autumn; ask Greta for her starter."),
    (7, 10, "claude-desktop", "fact", 0.7, "My sister Mei lives in Vancouver and works as a nurse."),
    (7, 16, "cursor", "preference", 0.5, "Prefer dark themes in editors but light mode for documents."),
    (8, 11, "claude-desktop", "fact", 0.6, "下个月要去杭州出差三天，住在西湖附近。"),
    (8, 15, "chatgpt", "skill", 0.5, "To descale the espresso machine: citric acid, 1 litre of water, run two cycles."),
    (9, 9, "claude-code", "fact", 0.6, "The hindsight MCP server listens on 127.0.0.1:8765 by default."),
    (10, 12, "claude-desktop", "preference", 0.7, "Keep answers short, and in British English."),
    (
        10,
        18,
        "claude-desktop",
        "event",
        0.5,
        "Dinner with Farid and Elif at the new Georgian place; try the khachapuri next time.",
    ),
    (11, 10, "cursor", "note", 0.4, "Idea: a keyboard shortcut to pin a memory from the search results."),
    (
        12,
        9,
        "claude-desktop",
        "fact",
        0.8,
        "Home Wi-Fi router is in the hall cupboard; reset by holding the back button for 10 s.",
    ),
    (13, 14, "claude-desktop", "plan", 0.6, "Renew the car insurance before 30 January."),
    (14, 10, "chatgpt", "fact", 0.5, "我每周三晚上去游泳，一次大约一公里。"),
    (
        15,
        11,
        "claude-code",
        "skill",
        0.6,
        "sqlite: `PRAGMA journal_mode=WAL` lets readers and one writer work at once.",
    ),
    (16, 16, "claude-desktop", "preference", 0.5, "Favourite hiking trail: the Levada do Caldeirão Verde on Madeira."),
    (17, 9, "cursor", "fact", 0.5, "The old build server was retired in October."),
    (18, 13, "claude-desktop", "note", 0.3, "Maybe try climbing at the bouldering gym near the office."),
    (19, 10, "claude-desktop", "fact", 0.6, "Chen Wei from the Shanghai office is the contact for the data export."),
    (20, 15, "chatgpt", "event", 0.4, "Watched 'Perfect Days' by Wim Wenders; loved it."),
    (21, 11, "claude-desktop", "note", 0.3, "Bought new running shoes: Brooks Ghost, size 44."),
    (23, 9, "claude-code", "instruction", 0.6, "Prefer pathlib over os.path in new Python code."),
    (26, 17, "claude-desktop", "fact", 0.5, "周末常去植物园散步，秋天银杏很好看。"),
]
# Written by an assistant as standing instructions: they wait in the inbox (review_directives).
INBOX = [
    "From now on, always answer me in British English and keep it under five sentences.",
    "Never suggest force-pushing; always propose a revert commit instead.",
]
SEARCHES = [
    "when does my passport expire",
    "what do I drink in the morning",
    "Ana birthday",
    "penicillin",
    "how do I reset the router",
    "杭州出差",
    "coding style rules",
    "release steps",
    "Lisbon trip",
    "favourite football team",
    "what is my blood type",
]


class SampleClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class Ids(dict):
    """Memory ids by text; `ids["My passport"]` finds the memory whose text starts so."""

    def __missing__(self, prefix: str) -> str:
        return next(v for k, v in self.items() if k.startswith(prefix))


def fill(data_dir: Path) -> Ids:
    """Write the samples as if over the last four weeks; forget a few, link some, edit one, search."""
    from hindsight_desktop.core.engine import MemoryEngine

    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    clock = SampleClock(now - timedelta(days=28))
    ids = Ids()
    with MemoryEngine(data_dir, clock=clock) as engine:
        midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        for i, (days, hour, client, kind, importance, text) in enumerate(reversed(SAMPLES)):
            if days == 0:  # today: the last hour or so, never in the future
                at = now - timedelta(minutes=12 + 23 * (i % 4))
            else:  # that day at the sample's hour, local time
                at = (midnight - timedelta(days=days) + timedelta(hours=hour, minutes=7 * (i % 6))).astimezone(UTC)
            clock.now = min(at + timedelta(minutes=2), now)
            result = engine.write(text, client=client, type=kind, importance=importance, occurred_at=at, explicit=True)
            ids[text] = result.id
        clock.now = now
        key = ids
        engine.link(key["My passport"], key["Dentist app"], "related")
        engine.link(key["Planning a w"], key["Ana's birthd"], "related")
        engine.edit(key["I like my co"], pinned=True)
        engine.edit(key["My passport"], pinned=True, importance=0.95)
        engine.forget(ids=[key["Maybe try cl"], key["The old buil"]])
        for query in SEARCHES:
            engine.search(query)
        engine.search("passport renewal")
    return ids


def settle(app: object, qtbot_wait: float = 0.6) -> None:
    """Let workers report and windows paint."""
    end = time.monotonic() + qtbot_wait
    while time.monotonic() < end:
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.02)


def wait_for(app: object, condition: object, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition() and time.monotonic() < end:  # type: ignore[operator]
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.02)
    if not condition():  # type: ignore[operator]
        raise RuntimeError("timed out waiting for the app")


def tray_strip() -> QWidget:
    """The tray icon in each state at panel size, on the desktop's panel colour as the app judges it
    (icons.panel_is_dark: the desktop's scheme, whatever Appearance forces on the windows)."""
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QColor, QPixmap
    from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

    from hindsight_desktop.app.icons import STATES, panel_is_dark, tray_icon

    strip = QWidget()
    strip.setAutoFillBackground(True)
    palette = strip.palette()
    palette.setColor(palette.ColorRole.Window, QColor("#202024" if panel_is_dark() else "#F0F0F0"))
    strip.setPalette(palette)
    layout = QHBoxLayout(strip)
    for state in STATES:
        label = QLabel()
        pixmap: QPixmap = tray_icon(state).pixmap(QSize(44, 44))
        label.setPixmap(pixmap)
        label.setToolTip(state)
        layout.addWidget(label)
    strip.resize(strip.sizeHint())
    return strip


def shoot(out: Path, tmp: Path, schemes: tuple[str, ...]) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from hindsight_desktop.app.edit_dialog import EditDialog
    from hindsight_desktop.app.icons import app_icon
    from hindsight_desktop.app.key_dialog import KeyProblemDialog
    from hindsight_desktop.app.shell import Shell
    from hindsight_desktop.app.shortcuts_sheet import open_sheet
    from hindsight_desktop.app.state import AppPaths
    from hindsight_desktop.app.theme import ThemeFollower
    from hindsight_desktop.app.transfer_actions import ExportChoice
    from hindsight_desktop.core.engine import MemoryEngine
    from hindsight_desktop.core.errors import InvalidInput
    from hindsight_desktop.core.model.default_model import ensure_default_model

    os.environ.update({"HINDSIGHT_TOKEN_STORE": "file", "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
    app = QApplication([])
    app.setStyle("Fusion")  # the same look on every machine the screenshots are retaken on
    app.setWindowIcon(app_icon())
    paths = AppPaths(tmp / "config", tmp / "data")
    ensure_default_model(paths.data_dir / "models")
    ids = fill(paths.data_dir)
    sample_file = tmp / "from-another-computer.json"
    ensure_default_model(tmp / "other" / "models")
    with MemoryEngine(tmp / "other") as other:  # a small file to import: two new memories, one already here
        for text in SAMPLES[3][5], "The garage door code changed to the blue fob.", "Mum's flight lands at 18:40.":
            other.write(text, client="claude-desktop", explicit=True)
        other.export("json", str(sample_file))
    shell = Shell(paths, serve=False, tray=True, idle_source=None)
    shell.theme = ThemeFollower(schemes[0], app)  # as app/main.py does; switched below as Settings would
    shell.start()
    wait_for(app, lambda: shell.backend.is_ready)
    engine, registry = shell.backend.engine, shell.backend.registry
    assert engine is not None and registry is not None  # ready above
    for name in ("cursor", "windsurf", "zed"):  # HTTP clients with tokens (the stdio ones come from their writes)
        registry.add(name)
    for text in INBOX:  # standing instructions from an assistant wait for review
        if not engine.write(text, client="chatgpt").pending:
            raise RuntimeError(f"not held for review: {text}")
    written: list[Path] = []
    window = shell.open_timeline()
    window.resize(1240, 780)  # the window's default size: where the memory text must get the room
    wait_for(app, lambda: window.timeline.total is not None and not window.timeline.loading)

    def take(scheme: str) -> None:
        shell.theme.set_appearance(scheme)

        def save(widget: QWidget, name: str) -> None:
            settle(app)
            path = out / f"{name}-{scheme}.png"
            widget.grab().save(str(path))
            written.append(path)

        def dialog_shot(dialog: QWidget, name: str) -> None:
            dialog.show()
            save(dialog, name)
            dialog.close()
            dialog.deleteLater()

        window.inbox.dock.hide()
        window.clear_search()
        window.filter_bar.reset()
        wait_for(app, lambda: not window.timeline.loading)
        window.go_to(ids["My passport"])
        wait_for(app, lambda: window.detail.extras is not None)
        save(window, "timeline-detail")
        save(window.detail, "detail-pane")
        window.filter_bar.status.setCurrentText("Any status")  # archived rows read dimmed
        wait_for(app, lambda: not window.timeline.loading)
        save(window.timeline_view, "timeline-any-status")
        window.filter_bar.reset()
        window.search_field.setText("when is my next appointment")
        window.run_search()
        wait_for(app, lambda: window.searching and window.results.rowCount() > 0)
        window.search_view.setCurrentIndex(window.results.index(0, 0))
        save(window, "search-why")
        save(window.why, "why-panel")
        window.clear_search()
        window.inbox.dock.show()
        wait_for(app, lambda: len(window.inbox.items) == len(INBOX))
        save(window, "inbox")
        window.inbox.dock.hide()
        memory = engine.get(ids["Ana's birthd"])
        dialog_shot(EditDialog(memory, window), "edit-dialog")
        dialog_shot(ExportChoice((len(SAMPLES), 2, 30), 3, window), "export-choice")
        window.transfer.preview_box = None
        window.transfer.preview(str(sample_file))
        wait_for(app, lambda: window.transfer.preview_box is not None)
        save(window.transfer.preview_box, "import-preview")
        window.transfer.preview_box.close()
        sheet = open_sheet(window)
        save(sheet, "shortcuts-sheet")
        sheet.close()
        key = KeyProblemDialog(paths.data_dir / "memory.db", "The key for this memory file is not in the keyring.")
        key.field.setText("ABCD-EFGH")
        key._say(InvalidInput("That recovery key does not open this memory file: check each group of four."))
        dialog_shot(key, "key-dialog")
        dialog_shot(KeyProblemDialog(paths.data_dir / "memory.db", "", passphrase=True), "key-dialog-passphrase")
        forgot = KeyProblemDialog(paths.data_dir / "memory.db", "", passphrase=True)
        forgot.enter_button.click()  # passphrase forgotten: the recovery key, and where to set a new one
        dialog_shot(forgot, "key-dialog-forgot")
        save(tray_strip(), "tray-icons")
        shell.tray.menu.adjustSize()
        save(shell.tray.menu, "tray-menu")
        settings = shell.open_settings()
        settings.resize(720, 640)
        for tab in range(settings.tabs.count()):
            settings.tabs.setCurrentIndex(tab)
            if settings.tabs.tabText(tab) == "Clients":
                wait_for(app, lambda: settings.clients.table.rowCount() >= 3)
            save(settings, "settings-" + settings.tabs.tabText(tab).lower().replace(" ", "-"))
        settings.tabs.setCurrentIndex(0)
        diagnose = settings.open_diagnose()
        wait_for(app, lambda: diagnose.report is not None, timeout=120)
        save(diagnose, "diagnose")
        diagnose.close()
        settings.close()
        stats = shell.open_stats()
        stats.resize(1100, 960)
        wait_for(app, lambda: stats.data is not None)
        save(stats, "stats")
        stats.close()

    for scheme in schemes:
        take(scheme)
    shell.shutdown()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the folder for the PNG files (default: a new temporary one)")
    parser.add_argument("--only", choices=("light", "dark"), help="one scheme instead of both")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="hindsight-screenshots-"))
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the same pixels with or without a desktop
    with tempfile.TemporaryDirectory(prefix="hd-shots-") as tmp:
        written = shoot(out, Path(tmp), (args.only,) if args.only else ("light", "dark"))
    print(f"{len(written)} screenshots in {out}")
    for path in written:
        print(f"  {path.name}")
    sys.exit(0)


if __name__ == "__main__":
    main()
