"""Write the Windows .ico and macOS .icns icons from resources/icons/*.png (run again after the
drawings change; needs Pillow, which the app itself does not)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"


def main() -> None:
    largest = Image.open(ICONS / "hindsight-desktop-512.png").convert("RGBA")
    largest.save(ICONS / "hindsight-desktop.ico", sizes=[(s, s) for s in (16, 24, 32, 48, 64, 128, 256)])
    largest.save(ICONS / "hindsight-desktop.icns")  # Pillow writes every size macOS asks for


if __name__ == "__main__":
    main()
