#!/usr/bin/env bash
# Wrap the built one-folder app (dist/hindsight-desktop, from installers/build_linux.sh) in an
# AppImage with appimagetool (https://github.com/AppImage/appimagetool; not a Debian package, so it
# is not on every build box): dist/hindsight-desktop-<version>-x86_64.AppImage.
#
#   APPIMAGETOOL=~/bin/appimagetool-x86_64.AppImage installers/linux/build_appimage.sh
#
# Note: an AppImage runs from a new /tmp/.mount_* folder each time, so client configs and the
# start-at-login entry must point at the .AppImage file itself ($APPIMAGE), not at sys.executable.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TOOL="${APPIMAGETOOL:-appimagetool}"
command -v "$TOOL" >/dev/null || { echo "error: appimagetool not found (set APPIMAGETOOL)" >&2; exit 1; }
[[ -x dist/hindsight-desktop/hindsight-desktop ]] || { echo "error: run installers/build_linux.sh first" >&2; exit 1; }
VERSION="$(dist/hindsight-desktop/hindsight-desktop --version | cut -d' ' -f2)"

APPDIR="build/AppDir"
rm -rf "$APPDIR"
mkdir -p "$APPDIR/usr/lib"
cp -a dist/hindsight-desktop "$APPDIR/usr/lib/hindsight-desktop"
cat > "$APPDIR/AppRun" <<'RUN'
#!/bin/sh
HERE="$(dirname "$(readlink -f "$0")")"
exec "$HERE/usr/lib/hindsight-desktop/hindsight-desktop" "$@"
RUN
chmod 755 "$APPDIR/AppRun"
cp resources/hindsight-desktop.desktop "$APPDIR/"
cp resources/icons/hindsight-desktop.svg "$APPDIR/hindsight-desktop.svg"
cp resources/icons/hindsight-desktop-256.png "$APPDIR/.DirIcon"

ARCH=x86_64 "$TOOL" "$APPDIR" "dist/hindsight-desktop-$VERSION-x86_64.AppImage"
