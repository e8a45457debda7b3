#!/usr/bin/env bash
# Build "Hindsight Desktop.app" (PyInstaller, with installers/macos/Info.plist: a menu-bar app with
# no Dock icon) and pack dist/hindsight-desktop-<version>-macos-<arch>.dmg. macOS only.
#
#   installers/macos/build_dmg.sh
#   CODESIGN_IDENTITY="Developer ID Application: …" installers/macos/build_dmg.sh   # signed
#
# Without an identity PyInstaller signs ad hoc, which runs on the machine that built it; to hand the
# .dmg to others, sign with a Developer ID and notarize it (xcrun notarytool submit … --wait, then
# xcrun stapler staple the .dmg).
set -euo pipefail

[[ "$(uname -s)" == Darwin ]] || { echo "error: build_dmg.sh runs on macOS only" >&2; exit 1; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=installers/build_venv.sh
. "$ROOT/installers/build_venv.sh"

"$VENV/bin/python" -m PyInstaller --noconfirm --clean --workpath build/pyinstaller --distpath dist \
    installers/hindsight-desktop.spec
APP="dist/Hindsight Desktop.app"
/usr/libexec/PlistBuddy -c "Print :LSUIElement" "$APP/Contents/Info.plist" | grep -q true \
    || { echo "error: $APP is not marked LSUIElement" >&2; exit 1; }

if [[ -n "${CODESIGN_IDENTITY:-}" ]]; then
    codesign --force --deep --options runtime --timestamp --sign "$CODESIGN_IDENTITY" "$APP"
    codesign --verify --deep --strict "$APP"
fi

STAGE="build/dmg"
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"  # drag the app onto it to install
DMG="dist/hindsight-desktop-$VERSION-macos-$(uname -m).dmg"
hdiutil create -volname "Hindsight Desktop" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
echo "built $DMG"
