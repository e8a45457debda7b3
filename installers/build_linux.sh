#!/usr/bin/env bash
# Build the Linux one-folder app with PyInstaller and pack it as
# dist/hindsight-desktop-<version>-linux-<arch>.tar.gz (the app, a .desktop file, icons, install.sh).
#
#   installers/build_linux.sh            # uses .venv (made, with the build extra, when missing)
#   VENV=build/venv installers/build_linux.sh
#
# The first install of llama-cpp-python compiles it (6-9 minutes on two cores); the build itself
# takes a few minutes. Then try it: installers/smoke_test.sh dist/hindsight-desktop-*.tar.gz
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=installers/build_venv.sh
. "$ROOT/installers/build_venv.sh"
NAME="hindsight-desktop-$VERSION-linux-$(uname -m)"

# The spec converts the default model and gathers license texts itself (see bundle_data.py).
"$VENV/bin/python" -m PyInstaller --noconfirm --clean --workpath build/pyinstaller --distpath dist \
    installers/hindsight-desktop.spec

PACKAGE="build/package/$NAME"
rm -rf build/package
mkdir -p "$PACKAGE/icons"
cp -a dist/hindsight-desktop "$PACKAGE/hindsight-desktop"
cp resources/hindsight-desktop.desktop "$PACKAGE/"
cp resources/icons/hindsight-desktop.svg resources/icons/hindsight-desktop-[0-9]*.png "$PACKAGE/icons/"
install -m 755 installers/linux/install.sh "$PACKAGE/install.sh"
cp installers/linux/README.txt "$PACKAGE/README.txt"

# Owner and times from the build box mean nothing on the person's machine.
tar --owner=0 --group=0 --numeric-owner -C build/package -czf "dist/$NAME.tar.gz" "$NAME"
echo "built dist/$NAME.tar.gz ($(du -h "dist/$NAME.tar.gz" | cut -f1))"
