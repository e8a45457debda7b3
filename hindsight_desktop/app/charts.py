"""Plain charts drawn with QPainter: horizontal bars, columns over time, and number tiles."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

PAD = 12
TITLE_H = 26


def _colours(widget: QWidget) -> tuple[QColor, QColor, QColor]:
    pal = widget.palette()
    return (
        pal.color(QPalette.ColorRole.WindowText),
        pal.color(QPalette.ColorRole.PlaceholderText),
        pal.color(QPalette.ColorRole.Highlight),
    )


class _Chart(QWidget):
    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.items: list[tuple[str, float]] = []
        self.note = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set_items(self, items: list[tuple[str, float]], note: str = "") -> None:
        self.items, self.note = list(items), note
        self.updateGeometry()
        self.update()

    def _frame(self, p: QPainter) -> None:
        text, muted, _ = _colours(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        base = self.palette().color(QPalette.ColorRole.Base)
        p.setPen(QColor(muted.red(), muted.green(), muted.blue(), 60))
        p.setBrush(base)
        p.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(text)
        p.drawText(QRectF(PAD, 6, self.width() - 2 * PAD, TITLE_H), Qt.AlignmentFlag.AlignVCenter, self.title)
        p.setFont(self.font())
        if self.note:
            p.setPen(muted)
            p.drawText(
                QRectF(PAD, self.height() - 24, self.width() - 2 * PAD, 20),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                self.note,
            )


class BarChart(_Chart):
    """One labelled horizontal bar per item, longest = the largest value."""

    ROW = 24

    def sizeHint(self) -> QSize:
        return QSize(320, TITLE_H + 24 + self.ROW * max(1, len(self.items)) + (20 if self.note else 0))

    def minimumSizeHint(self) -> QSize:
        return QSize(240, self.sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        self._frame(p)
        text, muted, accent = _colours(self)
        if not self.items:
            p.setPen(muted)
            p.drawText(QRectF(PAD, TITLE_H + 10, self.width() - 2 * PAD, 20), Qt.AlignmentFlag.AlignLeft, "Nothing yet")
            return
        top = max(v for _, v in self.items) or 1.0
        widest = max(p.fontMetrics().horizontalAdvance(label) for label, _ in self.items) + 12
        label_w = min(max(150, int(self.width() * 0.4)), widest)
        value_w = 64
        bar_w = max(40, self.width() - 2 * PAD - label_w - value_w)
        for i, (label, value) in enumerate(self.items):
            y = TITLE_H + 14 + i * self.ROW
            p.setPen(text)
            p.drawText(
                QRectF(PAD, y, label_w - 8, self.ROW),
                Qt.AlignmentFlag.AlignVCenter,
                p.fontMetrics().elidedText(label, Qt.TextElideMode.ElideRight, label_w - 8),
            )
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(accent)
            p.drawRoundedRect(QRectF(PAD + label_w, y + 5, max(2.0, bar_w * value / top), self.ROW - 10), 3, 3)
            p.setPen(muted)
            p.drawText(
                QRectF(PAD + label_w + bar_w + 6, y, value_w - 6, self.ROW),
                Qt.AlignmentFlag.AlignVCenter,
                f"{value:,.0f}",
            )
        p.end()


class ColumnChart(_Chart):
    """Columns over time (oldest left), labels under every few columns."""

    def sizeHint(self) -> QSize:
        return QSize(420, 210)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        self._frame(p)
        text, muted, accent = _colours(self)
        area = QRectF(
            PAD + 34, TITLE_H + 16, self.width() - 2 * PAD - 40, self.height() - TITLE_H - 52 - (18 if self.note else 0)
        )
        top = max((v for _, v in self.items), default=0) or 1.0
        p.setPen(QColor(muted.red(), muted.green(), muted.blue(), 70))
        for k in range(3):  # gridlines at 0, half, top
            y = area.bottom() - area.height() * k / 2
            p.drawLine(int(area.left()), int(y), int(area.right()), int(y))
            p.drawText(
                QRectF(PAD - 4, y - 9, 34, 18),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                f"{top * k / 2:,.0f}",
            )
        if not self.items:
            return
        slot = area.width() / len(self.items)
        every = max(1, round(len(self.items) / 6))
        last = len(self.items) - 1
        for i, (label, value) in enumerate(self.items):
            h = area.height() * value / top
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(accent)
            p.drawRoundedRect(QRectF(area.left() + i * slot + slot * 0.18, area.bottom() - h, slot * 0.64, h), 2, 2)
            if (last - i) % every == 0:  # counted from the newest, so the latest column is always named
                p.setPen(muted)
                p.drawText(
                    QRectF(area.left() + i * slot - 30 + slot / 2, area.bottom() + 4, 60, 16),
                    Qt.AlignmentFlag.AlignHCenter,
                    label,
                )
        p.end()


class Tile(QWidget):
    """A big number with a caption under it."""

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = caption
        self.value = "–"
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_value(self, value: str) -> None:
        self.value = value
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(150, 78)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        text, muted, accent = _colours(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(QColor(muted.red(), muted.green(), muted.blue(), 60))
        p.setBrush(self.palette().color(QPalette.ColorRole.Base))
        p.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
        big = QFont(self.font())
        big.setPointSizeF(self.font().pointSizeF() * 1.9)
        big.setBold(True)
        p.setFont(big)
        p.setPen(accent)
        p.drawText(QRectF(PAD, 6, self.width() - 2 * PAD, 42), Qt.AlignmentFlag.AlignVCenter, self.value)
        p.setFont(self.font())
        p.setPen(muted)
        p.drawText(QRectF(PAD, 48, self.width() - 2 * PAD, 22), Qt.AlignmentFlag.AlignVCenter, self.caption)
        p.end()
