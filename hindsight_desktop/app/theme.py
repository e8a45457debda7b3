"""Light or dark: the app follows the system's colour scheme (Qt 6.5+ `QStyleHints.colorScheme`), or the
person's choice in Settings → General → Appearance, and switches while it runs.

Every view takes its colours from the application palette, never from fixed values, so one palette change
repaints everything. Platform palettes are not always readable (Qt's default placeholder and disabled text
are too faint to read, and some desktops report "dark" while handing out a light palette), so the palette
the app uses is always repaired here: each role the app draws text with reaches a contrast ratio of 4.5 (the
WCAG level for body text) against the background it is drawn on.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from hindsight_desktop.config import OPTIONS

SYSTEM, LIGHT, DARK = "system", "light", "dark"
# The Appearance setting's values and the settings window's words for them.
APPEARANCES = OPTIONS["appearance"].choices
TEXT_CONTRAST = 4.5

_R, _G = QPalette.ColorRole, QPalette.ColorGroup
_GROUPS = (_G.Active, _G.Inactive, _G.Disabled)

# Used where a palette has no role for it: error text, and the filled badges' ground (white text on it).
ERROR_RED = "#c62828"
BADGE_RED, BADGE_TEXT = "#c5221f", "#ffffff"


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def luminance(colour: QColor) -> float:
    """Relative luminance (WCAG 2), 0 for black to 1 for white."""
    return 0.2126 * _linear(colour.redF()) + 0.7152 * _linear(colour.greenF()) + 0.0722 * _linear(colour.blueF())


def flatten(colour: QColor, background: QColor) -> QColor:
    """The colour a translucent `colour` shows as once painted over `background`."""
    alpha = colour.alphaF()
    return QColor.fromRgbF(
        *(alpha * c + (1 - alpha) * b for c, b in zip(colour.getRgbF()[:3], background.getRgbF()[:3], strict=True))
    )


def contrast(foreground: QColor, background: QColor) -> float:
    """The WCAG contrast ratio (1 to 21) of text in `foreground` on `background`."""
    a, b = luminance(flatten(foreground, background)), luminance(background)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def readable(colour: QColor, backgrounds: Iterable[QColor], minimum: float = TEXT_CONTRAST) -> QColor:
    """`colour`, moved towards black or white (away from the backgrounds) just far enough that it reaches
    `minimum` contrast against each background; unchanged when it already does."""
    grounds = list(backgrounds)
    dark_ground = sum(luminance(b) for b in grounds) / len(grounds) < 0.18
    target = QColor("white") if dark_ground else QColor("black")
    start = flatten(colour, grounds[0])
    for step in range(21):
        t = step / 20
        mixed = QColor.fromRgbF(
            *((1 - t) * c + t * g for c, g in zip(start.getRgbF()[:3], target.getRgbF()[:3], strict=True))
        )
        if all(contrast(mixed, ground) >= minimum for ground in grounds):
            return mixed
    return target


def is_dark(palette: QPalette) -> bool:
    return palette.color(_R.Window).lightness() < 128


def _palette(colours: dict[QPalette.ColorRole, str], disabled: dict[QPalette.ColorRole, str]) -> QPalette:
    palette = QPalette()
    for role, value in colours.items():
        palette.setColor(role, QColor(value))
    for role, value in disabled.items():
        palette.setColor(_G.Disabled, role, QColor(value))
    return palette


def light_palette() -> QPalette:
    """The light look (Fusion's, with readable placeholder, disabled and link text)."""
    return _palette(
        {
            _R.Window: "#efefef", _R.WindowText: "#111111", _R.Base: "#ffffff", _R.AlternateBase: "#f5f5f7",
            _R.Text: "#111111", _R.Button: "#efefef", _R.ButtonText: "#111111", _R.BrightText: "#ffffff",
            _R.Highlight: "#2463b0", _R.HighlightedText: "#ffffff", _R.Link: "#0b57d0", _R.LinkVisited: "#6a1b9a",
            _R.PlaceholderText: "#5f5f66", _R.ToolTipBase: "#ffffdc", _R.ToolTipText: "#111111",
            _R.Light: "#ffffff", _R.Midlight: "#e3e3e3", _R.Mid: "#b8b8b8", _R.Dark: "#9f9f9f",
            _R.Shadow: "#767676", _R.Accent: "#2463b0",
        },
        {_R.Text: "#6e6e73", _R.WindowText: "#6e6e73", _R.ButtonText: "#6e6e73", _R.Highlight: "#919191"},
    )  # fmt: skip


def dark_palette() -> QPalette:
    """The dark look: light text on near-black grounds, the same roles as the light one."""
    return _palette(
        {
            _R.Window: "#2a2a2e", _R.WindowText: "#e8e8ea", _R.Base: "#1e1e21", _R.AlternateBase: "#27272b",
            _R.Text: "#e8e8ea", _R.Button: "#35353a", _R.ButtonText: "#e8e8ea", _R.BrightText: "#ffffff",
            _R.Highlight: "#2f6fc4", _R.HighlightedText: "#ffffff", _R.Link: "#8ab4f8", _R.LinkVisited: "#c58af9",
            _R.PlaceholderText: "#a4a4ac", _R.ToolTipBase: "#35353a", _R.ToolTipText: "#e8e8ea",
            _R.Light: "#4a4a50", _R.Midlight: "#3c3c42", _R.Mid: "#5a5a60", _R.Dark: "#18181b",
            _R.Shadow: "#000000", _R.Accent: "#2f6fc4",
        },
        {
            _R.Text: "#939399", _R.WindowText: "#939399", _R.ButtonText: "#939399", _R.Highlight: "#45454b",
            _R.HighlightedText: "#c8c8cc", _R.Base: "#242428", _R.Button: "#2f2f33",
        },
    )  # fmt: skip


def make_readable(palette: QPalette) -> QPalette:
    """A copy of `palette` in which every text role the app uses reaches TEXT_CONTRAST on its ground.
    Dimmed (disabled) text is checked against the active grounds too: archived and superseded rows are
    drawn in it inside an active list."""
    fixed = QPalette(palette)
    base, window = palette.color(_G.Active, _R.Base), palette.color(_G.Active, _R.Window)
    pairs = {
        _R.Text: [base, palette.color(_R.AlternateBase)],
        _R.WindowText: [window],
        _R.ButtonText: [palette.color(_R.Button)],
        _R.PlaceholderText: [base, window],
        _R.Link: [base, window],
        _R.LinkVisited: [base, window],
        _R.ToolTipText: [palette.color(_R.ToolTipBase)],
        _R.HighlightedText: [palette.color(_R.Highlight)],
    }
    for group in _GROUPS:
        for role, grounds in pairs.items():
            if group is _G.Disabled and role is _R.HighlightedText:
                continue  # a disabled selection is not read
            own = [palette.color(group, _R.Base if role is _R.Text else _R.Window)] if group is _G.Disabled else []
            fixed.setColor(group, role, readable(palette.color(group, role), grounds + own))
    return fixed


def error_colour(palette: QPalette) -> QColor:
    """Red that reads as text on this palette's window and list grounds."""
    return readable(QColor(ERROR_RED), [palette.color(_R.Window), palette.color(_R.Base)])


def muted_colour(palette: QPalette) -> QColor:
    """The secondary text colour (labels, notes, dates)."""
    return palette.color(_R.PlaceholderText)


# Whether the desktop itself is dark, as last seen before the app forced its own scheme: the tray's
# panel is the desktop's, so its glyph follows this, not the Appearance setting.
_desktop_dark: bool | None = None


def desktop_is_dark() -> bool | None:
    """The desktop's own darkness as `apply` last saw it (None before any apply)."""
    return _desktop_dark


def system_scheme() -> Qt.ColorScheme:
    """The desktop's colour scheme as Qt reports it (Unknown where the platform does not say)."""
    return QGuiApplication.styleHints().colorScheme()


def wants_dark(appearance: str, scheme: Qt.ColorScheme) -> bool:
    """Dark or not, for the setting's value and the system's scheme (Unknown counts as light)."""
    if appearance == SYSTEM:
        return scheme == Qt.ColorScheme.Dark
    return appearance == DARK


def palette_for(appearance: str, platform: QPalette, scheme: Qt.ColorScheme) -> QPalette:
    """The palette to use: the platform's own when it already matches what is wanted (it keeps the
    desktop's accent colours), else the app's fixed light or dark one; repaired either way."""
    dark = wants_dark(appearance, scheme)
    chosen = platform if is_dark(platform) == dark else (dark_palette() if dark else light_palette())
    return make_readable(chosen)


def apply(appearance: str, app: QGuiApplication | None = None) -> bool:
    """Set the application palette for `appearance` (system, light or dark). Returns True for dark."""
    app = app or QGuiApplication.instance()  # type: ignore[assignment]
    assert app is not None, "a QApplication must exist"
    hints = app.styleHints()
    global _desktop_dark
    hints.unsetColorScheme()  # the desktop's own scheme and palette, before any choice of ours
    app.setPalette(QPalette())
    desktop = hints.colorScheme()
    _desktop_dark = desktop == Qt.ColorScheme.Dark if desktop != Qt.ColorScheme.Unknown else is_dark(app.palette())
    if appearance != SYSTEM:  # where the platform can, its own parts (title bars, native dialogs) follow too
        hints.setColorScheme(Qt.ColorScheme.Dark if appearance == DARK else Qt.ColorScheme.Light)
    app.setPalette(QPalette())  # back to the platform's palette, to compare against
    palette = palette_for(appearance, app.palette(), system_scheme())
    app.setPalette(palette)
    return is_dark(palette)


class ThemeFollower(QObject):
    """Keeps the palette in step with the setting and, for "system", with the desktop while the app runs."""

    changed = Signal(bool)  # True: now dark

    def __init__(self, appearance: str = SYSTEM, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.appearance = appearance
        self._applying = False
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_changed)
        self.dark = self._apply()

    def set_appearance(self, appearance: str) -> None:
        if appearance != self.appearance:
            self.appearance = appearance
            self._apply()

    def _system_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self.appearance == SYSTEM and not self._applying:
            self._apply()

    def _apply(self) -> bool:
        self._applying = True  # setting the scheme may report a change back at once
        try:
            self.dark = apply(self.appearance)
        finally:
            self._applying = False
        self.changed.emit(self.dark)
        return self.dark
