"""The app icon and the tray icon per state, drawn with QPainter (so they need no files at run time).

`python -m hindsight_desktop.app.icons DIR` writes the same drawings as SVG and PNG files into DIR
(the `resources/` folder: installers and the .desktop file use those).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QGuiApplication,
    QIcon,
    QImage,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
)

STATES = ("starting", "running", "paused", "maintenance", "error")
BADGE = {"paused": "#F59E0B", "maintenance": "#0EA5E9", "error": "#DC2626"}
ACCENT_TOP, ACCENT_BOTTOM = "#6366F1", "#4338CA"
GLYPH_ON_LIGHT, GLYPH_ON_DARK = "#2E2E38", "#F4F4F8"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)

Painter = Callable[[QPainter], None]  # draws into a 64 x 64 box


def _history_glyph(p: QPainter, color: QColor, width: float = 5.0) -> None:
    """A clock face with a backwards arrow: looking back in time, which is what the app is for."""
    pen = QPen(color, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    ring = QRectF(14, 14, 36, 36)
    path = QPainterPath()
    path.arcMoveTo(ring, 200)
    path.arcTo(ring, 200, -300)  # clockwise from lower-left round to the left: a gap for the arrow
    p.drawPath(path)
    start = path.pointAtPercent(0)
    head = QPainterPath()  # arrowhead at the arc's start, pointing back (anticlockwise)
    head.moveTo(start + QPointF(-7.5, -1.5))
    head.lineTo(start + QPointF(3.5, -4.5))
    head.lineTo(start + QPointF(1.0, 6.5))
    head.closeSubpath()
    p.setPen(QPen(color, 1.5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
    p.setBrush(QBrush(color))
    p.drawPath(head)
    p.setPen(pen)
    p.drawLine(QPointF(32, 32), QPointF(32, 22.5))
    p.drawLine(QPointF(32, 32), QPointF(39.5, 37))


def paint_app_icon(p: QPainter) -> None:
    gradient = QLinearGradient(QPointF(0, 4), QPointF(0, 60))
    gradient.setColorAt(0, QColor(ACCENT_TOP))
    gradient.setColorAt(1, QColor(ACCENT_BOTTOM))
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(gradient))
    p.drawRoundedRect(QRectF(4, 4, 56, 56), 14, 14)
    _history_glyph(p, QColor("#FFFFFF"))


def _badge(p: QPainter, state: str, ground: QColor) -> None:
    colour = QColor(BADGE[state])
    p.setPen(QPen(ground, 3))
    p.setBrush(QBrush(colour))
    p.drawEllipse(QRectF(38, 38, 24, 24))
    mark = QPen(QColor("#FFFFFF"), 3.2, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    p.setPen(mark)
    if state == "paused":
        p.drawLine(QPointF(46.5, 45), QPointF(46.5, 55))
        p.drawLine(QPointF(53.5, 45), QPointF(53.5, 55))
    elif state == "error":
        p.drawLine(QPointF(50, 43.5), QPointF(50, 51))
        p.drawPoint(QPointF(50, 56))
    else:  # maintenance: a small sweep, like a broom stroke
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawArc(QRectF(44, 44, 12, 12), 90 * 16, -270 * 16)


def tray_painter(state: str, dark_panel: bool) -> Painter:
    """A monochrome glyph for the panel's colour, plus a coloured badge for paused/maintenance/error."""
    glyph = QColor(GLYPH_ON_DARK if dark_panel else GLYPH_ON_LIGHT)
    ground = QColor("#202024" if dark_panel else "#FFFFFF")

    def paint(p: QPainter) -> None:
        p.save()
        if state == "starting":
            p.setOpacity(0.45)
        p.translate(32, 32)  # tray icons are tiny: let the glyph fill more of the square
        p.scale(1.22, 1.22)
        p.translate(-32, -31)
        _history_glyph(p, glyph, 5.0)
        p.restore()
        if state in BADGE:
            _badge(p, state, ground)

    return paint


def render(paint: Painter, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.scale(size / 64, size / 64)
    paint(p)
    p.end()
    return image


def _icon(paint: Painter) -> QIcon:
    icon = QIcon()
    for size in (16, 22, 24, 32, 48, 64, 128, 256):
        icon.addPixmap(QPixmap.fromImage(render(paint, size)))
    return icon


def app_icon() -> QIcon:
    return _icon(paint_app_icon)


def panel_is_dark() -> bool:
    """Guess the tray's background: the desktop's theme (most panels follow it), which is not the app's
    when Settings forces light or dark."""
    app = QGuiApplication.instance()
    if app is None:
        return False
    from hindsight_desktop.app import theme  # the desktop's scheme as seen before the app chose its own

    desktop = theme.desktop_is_dark()
    if desktop is not None:
        return desktop
    hints = QGuiApplication.styleHints()
    if hints.colorScheme() != Qt.ColorScheme.Unknown:
        return hints.colorScheme() == Qt.ColorScheme.Dark
    return QGuiApplication.palette().window().color().lightness() < 128


def tray_icon(state: str, dark_panel: bool | None = None) -> QIcon:
    if state not in STATES:
        raise ValueError(f"unknown tray state {state!r}")
    return _icon(tray_painter(state, panel_is_dark() if dark_panel is None else dark_panel))


def write_svg(paint: Painter, path: Path, title: str) -> None:
    from PySide6.QtSvg import QSvgGenerator

    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(64, 64))
    generator.setViewBox(QRectF(0, 0, 64, 64))
    generator.setTitle(title)
    p = QPainter(generator)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    paint(p)
    p.end()


def write_resources(folder: Path) -> list[Path]:
    """The app icon as SVG and PNGs, and each tray state for light and dark panels."""
    icons = folder / "icons"
    icons.mkdir(parents=True, exist_ok=True)
    written = [icons / "hindsight-desktop.svg"]
    write_svg(paint_app_icon, written[0], "Hindsight Desktop")
    for size in SIZES:
        path = icons / f"hindsight-desktop-{size}.png"
        render(paint_app_icon, size).save(str(path))
        written.append(path)
    for state in STATES:
        for dark in (False, True):
            stem = f"tray-{state}-{'dark' if dark else 'light'}"
            write_svg(tray_painter(state, dark), icons / f"{stem}.svg", f"Hindsight Desktop: {state}")
            render(tray_painter(state, dark), 64).save(str(icons / f"{stem}.png"))
            written += [icons / f"{stem}.svg", icons / f"{stem}.png"]
    return written


if __name__ == "__main__":  # pragma: no cover - a maintenance script for resources/
    from PySide6.QtWidgets import QApplication

    _app = QApplication([])
    for item in write_resources(Path(sys.argv[1] if len(sys.argv) > 1 else "resources")):
        print(item)
