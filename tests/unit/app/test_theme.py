"""Light and dark: every colour the app draws text in is readable on its ground (WCAG contrast 4.5) in the
dark palette, the app follows the desktop's scheme while it runs, and the Appearance setting overrides it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import support.app as support
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QComboBox

import hindsight_desktop.app as app_package
from hindsight_desktop.app import theme
from hindsight_desktop.app.timeline_model import status_style

R, G = QPalette.ColorRole, QPalette.ColorGroup
APP_DIR = Path(app_package.__file__).parent
# Where a fixed colour is the point: the product's own icon, and a QR code (black on white to be scanned).
FIXED_COLOURS_ALLOWED = {"theme.py", "icons.py", "sync_tab.py"}


@pytest.fixture(autouse=True)
def platform_palette(qapp: QApplication) -> Iterator[None]:
    """Each test starts and ends with the platform's own palette (other tests expect it)."""
    yield
    QGuiApplication.styleHints().unsetColorScheme()
    qapp.setPalette(QPalette())


def _ok(colour: QColor, ground: QColor, what: str) -> None:
    ratio = theme.contrast(colour, ground)
    assert ratio >= theme.TEXT_CONTRAST, f"{what}: {colour.name()} on {ground.name()} has contrast {ratio:.2f}"


# (text role, ground role) for everything drawn from the palette: list text, window labels and the why
# panel's and charts' muted labels, buttons, tooltips, selected rows, links in the detail pane.
ROLE_PAIRS = [
    (R.Text, R.Base),
    (R.Text, R.AlternateBase),
    (R.WindowText, R.Window),
    (R.PlaceholderText, R.Window),
    (R.PlaceholderText, R.Base),
    (R.ButtonText, R.Button),
    (R.ToolTipText, R.ToolTipBase),
    (R.HighlightedText, R.Highlight),
    (R.Link, R.Base),
    (R.Link, R.Window),
]


def test_the_palettes_roles_reach_text_contrast_in_dark_and_light(qapp):
    for appearance in ("dark", "light"):
        assert theme.apply(appearance) is (appearance == "dark")
        palette = qapp.palette()
        for text, ground in ROLE_PAIRS:
            _ok(palette.color(text), palette.color(ground), f"{appearance} {text.name} on {ground.name}")
        dimmed = palette.color(G.Disabled, R.Text)  # archived and superseded rows, in an active list
        _ok(dimmed, palette.color(R.Base), f"{appearance} dimmed rows")
        _ok(dimmed, palette.color(R.AlternateBase), f"{appearance} dimmed alternate rows")
        _ok(theme.error_colour(palette), palette.color(R.Window), f"{appearance} error text")
        _ok(QColor(theme.BADGE_TEXT), QColor(theme.BADGE_RED), "the inbox badge's number")


def test_a_faint_platform_palette_is_repaired():
    """Qt's own defaults draw placeholder text half-transparent and disabled text light grey: too faint."""
    faint = QPalette(QColor("#efefef"))
    faint.setColor(R.PlaceholderText, QColor(0, 0, 0, 128))
    faint.setColor(G.Disabled, R.Text, QColor("#bebebe"))
    assert theme.contrast(faint.color(R.PlaceholderText), faint.color(R.Window)) < theme.TEXT_CONTRAST
    fixed = theme.make_readable(faint)
    _ok(fixed.color(R.PlaceholderText), fixed.color(R.Window), "placeholder")
    _ok(fixed.color(G.Disabled, R.Text), fixed.color(R.Base), "disabled text")
    assert fixed.color(R.Text) == faint.color(R.Text)  # what was readable stays as it was


def test_what_the_views_draw_in_the_dark_reads_on_its_ground(qtbot, shell, qapp):
    theme.apply("dark")
    engine = shell.backend.engine
    ids = support.seed(engine)
    engine.forget(ids=[ids[1]])
    window = shell.open_timeline()
    window.filter_bar.status.setCurrentText("Any status")  # the archived row is shown, dimmed
    qtbot.waitUntil(lambda: window.timeline.total == len(ids) and not window.timeline.loading, timeout=20_000)
    palette, model = qapp.palette(), window.timeline
    seen = 0

    def walk(parent: QModelIndex) -> None:
        nonlocal seen
        for row in range(model.rowCount(parent)):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                colour = model.data(index, Qt.ItemDataRole.ForegroundRole)
                if colour is not None:
                    seen += 1
                    for ground in (R.Base, R.AlternateBase):
                        _ok(QColor(colour), palette.color(ground), f"timeline row {row} column {column}")
            walk(model.index(row, 0, parent))

    walk(QModelIndex())
    assert seen >= 2  # the day headers and the archived row's cells
    assert isinstance(status_style("archived", Qt.ItemDataRole.ForegroundRole), QColor)
    window.go_to(ids[0])
    qtbot.waitUntil(lambda: window.detail.extras is not None, timeout=20_000)
    page = window.detail.browser
    colours = set(re.findall(r"color:\s*(#[0-9a-fA-F]{6})", page.toHtml()))
    assert colours, "the detail pane names its colours"
    for colour in colours:
        _ok(QColor(colour), page.palette().color(R.Base), "detail pane text")


def test_no_view_hard_codes_a_colour():
    """Colours come from the palette (or theme.py): a fixed one is unreadable in one of the two schemes."""
    fixed = re.compile(
        r"#[0-9a-fA-F]{3,8}\b|\brgba?\(|QColor\(\s*\"|color:\s*[a-z]+\b|Qt\.GlobalColor\.(?!transparent)"
    )
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(APP_DIR.glob("*.py"))
        if path.name not in FIXED_COLOURS_ALLOWED
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if fixed.search(line.split("  #")[0])
    ]
    assert found == []


def test_the_app_follows_the_desktop_while_it_runs_and_the_setting_overrides_it(qtbot, qapp, monkeypatch):
    desktop = [Qt.ColorScheme.Light]
    monkeypatch.setattr(theme, "system_scheme", lambda: desktop[0])
    follower = theme.ThemeFollower("system")
    switches: list[bool] = []
    follower.changed.connect(switches.append)
    assert not theme.is_dark(qapp.palette())
    desktop[0] = Qt.ColorScheme.Dark  # the person switches the desktop to dark
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert theme.is_dark(qapp.palette()) and switches == [True]
    follower.set_appearance("light")  # Settings → Appearance → Light wins over the dark desktop
    assert not theme.is_dark(qapp.palette())
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert not theme.is_dark(qapp.palette()) and switches == [True, False]
    follower.set_appearance("system")
    assert theme.is_dark(qapp.palette())


def test_the_settings_window_switches_the_colours(qtbot, shell, qapp):
    shell.theme = theme.ThemeFollower(shell.backend.settings.appearance)
    dialog = shell.open_settings()
    box = dialog.inputs["appearance"].widget
    assert isinstance(box, QComboBox)
    assert [box.itemText(i) for i in range(box.count())] == list(theme.APPEARANCES.values())
    assert box.currentData() == "system"
    box.setCurrentIndex(box.findData("dark"))
    support.wait(qtbot, dialog.save())
    assert theme.is_dark(qapp.palette())
    assert shell.backend.settings.appearance == "dark"
    assert '"appearance": "dark"' in shell.paths.settings_file.read_text(encoding="utf-8")


def _light_share(widget) -> float:
    """The share of a widget's pixels that are near white."""
    image = widget.grab().toImage()
    step = 4
    points = [(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)]
    return sum(image.pixelColor(x, y).lightness() > 200 for x, y in points) / len(points)


def test_a_window_opened_in_light_is_all_dark_after_the_switch(qtbot, shell, qapp):
    """Nothing keeps the colours of when it was made (a style sheet does: the search list once stayed white)."""
    theme.apply("light")
    support.seed(shell.backend.engine)
    window = shell.open_timeline()
    window.resize(1240, 780)
    qtbot.waitUntil(lambda: window.timeline.total is not None and not window.timeline.loading, timeout=20_000)
    window.search_field.setText("passport")
    support.wait(qtbot, window.run_search())
    qtbot.waitUntil(lambda: window.searching and window.results.rowCount() > 0, timeout=20_000)
    assert _light_share(window.search_view) > 0.5  # light as made
    theme.apply("dark")
    qtbot.wait(50)
    for view in (window.search_view, window.detail, window.why, window.filter_bar):
        assert _light_share(view) < 0.05, view
    window.clear_search()
    qtbot.wait(50)
    assert _light_share(window.timeline_view) < 0.05


def _glyph_contrast(icon, panel: QColor) -> float:
    """How the tray glyph's drawn pixels (the badge aside: its corner) stand out on the panel's colour."""
    image = icon.pixmap(64, 64).toImage()
    drawn = [image.pixelColor(x, y) for x in range(0, 40) for y in range(0, 40) if image.pixelColor(x, y).alpha() > 200]
    assert drawn, "the glyph draws nothing"
    mean = QColor(*(round(sum(getattr(c, part)() for c in drawn) / len(drawn)) for part in ("red", "green", "blue")))
    return theme.contrast(mean, panel)


@pytest.mark.parametrize("forced", ["dark", "light"])
def test_the_tray_glyph_follows_the_desktop_panel_not_the_forced_appearance(qtbot, shell, qapp, forced):
    """The panel is the desktop's: Settings → Appearance → Dark on a light desktop must not draw a light
    glyph there (it vanished), and the tray redraws when the theme changes."""
    from hindsight_desktop.app import icons

    follower = theme.ThemeFollower("system")
    desktop_dark = theme.is_dark(qapp.palette())  # the platform here (offscreen) says nothing: its palette
    follower.changed.connect(shell.tray.redraw)
    follower.set_appearance(forced)
    assert theme.is_dark(qapp.palette()) == (forced == "dark")  # the windows follow the setting…
    assert icons.panel_is_dark() == desktop_dark  # …the panel's glyph the desktop
    panel = QColor("#202024" if desktop_dark else "#F0F0F0")
    for state in ("running", "paused", "error"):
        assert _glyph_contrast(icons.tray_icon(state), panel) >= 4.5, state
    assert _glyph_contrast(shell.tray.icon.icon(), panel) >= 4.5  # what the tray shows now, redrawn
