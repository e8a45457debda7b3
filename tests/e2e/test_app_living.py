"""Living with the app: the tray opens the log folder; errors say what to do where the person is."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices


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
