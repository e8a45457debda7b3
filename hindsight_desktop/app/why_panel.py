"""The "why" panel: how each recall signal scored one search result, drawn as bars."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QHelpEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from hindsight_desktop.core.engine import HIT_CONFIDENCE
from hindsight_desktop.core.records import SearchHit

# signal -> (label, what it measures, the RecallWeights field that weighs it; None: the score is the amount)
SIGNALS = {
    "vector": ("Meaning", "closeness in meaning to the question", "vector"),
    "keyword": ("Words", "words the memory and the question share", "keyword"),
    "entity": ("Names & dates", "people, places, dates or codes both mention", "entity"),
    "fact": ("Current fact", "what currently holds the fact the question asks about (who, where, when)", "fact"),
    "link": ("Links", "linked to another strong match", "link"),
    "recency": ("Recency", "how recent it is (half-life decay)", "recency"),
    "access": ("Use", "how often it was recalled before", "access"),
    "importance": ("Importance", "how important it was judged", "importance"),
    "pinned": ("Pinned", "pinned by you", "pinned_bonus"),
    "repeat": ("Repeats", "says nearly what a higher result says (lowers the rank)", "repeat"),
    "other_subject": ("Someone else", "about someone other than whom the question names (lowers the rank)", None),
}
PENALTIES = {"repeat", "other_subject"}  # signals that take relevance away
ROW, LABEL_W, VALUE_W, PAD = 30, 118, 150, 12


def contributions(hit: SearchHit, weights: object | None) -> dict[str, float]:
    """Each signal's share of the relevance: its score times its weight."""
    out = {}
    for key, score in hit.scores.items():
        field = SIGNALS.get(key, (key, "", key))[2]
        value = score * float(getattr(weights, field, 0.0)) if weights is not None and field else score
        out[key] = -value if key in PENALTIES else value
    return out


def summary(hit: SearchHit, weights: object | None) -> str:
    """One sentence: which signals carried this result, and whether it is likely an answer at all."""
    parts = sorted(contributions(hit, weights).items(), key=lambda kv: kv[1], reverse=True)
    top = [SIGNALS.get(k, (k,))[0].lower() for k, v in parts[:2] if v > 0.005]
    found = "Found mostly by " + " and ".join(top) + "." if top else "Found by weak evidence only."
    if hit.confidence < HIT_CONFIDENCE:
        return found + " Probably not an answer: a weak match."
    return found


def heading(hit: SearchHit) -> str:
    """The panel's heading: how sure the result is, and the relevance that ranked it."""
    sure = "sure" if hit.confidence >= HIT_CONFIDENCE else "weak"
    return f"Why this result  ·  {hit.confidence:.2f} {sure}  ·  relevance {hit.relevance:.3f}"


class WhyPanel(QWidget):
    """Shows `hit.scores`: one bar per signal, with its weight and contribution."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hit: SearchHit | None = None
        self.weights: object | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(320)

    def set_hit(self, hit: SearchHit | None, weights: object | None = None) -> None:
        self.hit, self.weights = hit, weights
        self.setToolTip(summary(hit, weights) if hit else "")
        self.updateGeometry()
        self.update()

    def rows(self) -> list[tuple[str, str, float, float]]:
        """(label, description, score, contribution) in display order."""
        if self.hit is None:
            return []
        share = contributions(self.hit, self.weights)
        keys = [k for k in SIGNALS if k in self.hit.scores] + [k for k in self.hit.scores if k not in SIGNALS]
        return [(SIGNALS.get(k, (k, ""))[0], SIGNALS.get(k, (k, ""))[1], self.hit.scores[k], share[k]) for k in keys]

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            row = (event.pos().y() - 56) // ROW
            rows = self.rows()
            if 0 <= row < len(rows):  # each bar explains itself on hover
                QToolTip.showText(event.globalPos(), f"{rows[row][0]}: {rows[row][1]}", self)
                return True
        return super().event(event)

    def sizeHint(self) -> QSize:
        return QSize(420, 64 + ROW * max(1, len(self.rows())))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text, muted = pal.color(QPalette.ColorRole.WindowText), pal.color(QPalette.ColorRole.PlaceholderText)
        accent = pal.color(QPalette.ColorRole.Highlight)
        title = QFont(self.font())
        title.setBold(True)
        p.setFont(title)
        p.setPen(text)
        if self.hit is None:
            p.setPen(muted)
            p.drawText(
                self.rect().adjusted(PAD, PAD, -PAD, -PAD),
                Qt.AlignmentFlag.AlignLeft,
                "Select a search result to see why it was found.",
            )
            return
        p.drawText(PAD, PAD + 14, heading(self.hit))
        p.setFont(self.font())
        p.setPen(muted)
        p.drawText(PAD, PAD + 34, summary(self.hit, self.weights))
        track = QColor(accent)
        track.setAlpha(40)
        bar_w = max(60, self.width() - 2 * PAD - LABEL_W - VALUE_W)
        for i, (label, _what, score, share) in enumerate(self.rows()):
            y = 56 + i * ROW
            p.setPen(text)
            p.drawText(QRectF(PAD, y, LABEL_W, ROW - 8), Qt.AlignmentFlag.AlignVCenter, label)
            bar = QRectF(PAD + LABEL_W, y + 7, bar_w, ROW - 22)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(track)
            p.drawRoundedRect(bar, 4, 4)
            p.setBrush(accent)
            p.drawRoundedRect(QRectF(bar.x(), bar.y(), bar.width() * max(0.0, min(1.0, score)), bar.height()), 4, 4)
            p.setPen(muted)
            p.drawText(
                QRectF(bar.right() + 10, y, VALUE_W - 10, ROW - 8),
                Qt.AlignmentFlag.AlignVCenter,
                f"{score:.2f}  →  {share:+.3f}",
            )
        p.end()
