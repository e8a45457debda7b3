#!/usr/bin/env bash
# Smoke-test a Linux build: --version, `serve` with a token and an MCP write + search with the
# bundled model, a stdio `mcp` round trip, the app offscreen (tray and memory ready, stays up),
# and (for a tarball) install.sh into a temporary ~/.local. Prints sizes and timings.
#
#   installers/smoke_test.sh dist/hindsight-desktop-0.1.0-linux-x86_64.tar.gz
#   installers/smoke_test.sh dist/hindsight-desktop          # the one-folder app itself
#
# PYTHON (default: .venv/bin/python) must have the `mcp` SDK; it is the client, never the app.
# SMOKE_CHROOT=IMAGE runs the app inside that system image (see smoke_minimal_image.sh, which sets it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
TARGET="${1:?usage: smoke_test.sh <tarball or one-folder app>}"
VERSION="$("$PYTHON" -c 'import hindsight_desktop; print(hindsight_desktop.__version__)')"

WORK="$(mktemp -d -t hindsight-smoke-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

args=(--version "$VERSION" ${SMOKE_CHROOT:+--chroot "$SMOKE_CHROOT"})
if [[ -f "$TARGET" ]]; then
    started=$EPOCHREALTIME
    tar -xzf "$TARGET" -C "$WORK"
    echo "unpacked in $("$PYTHON" -c "print(round($EPOCHREALTIME - $started, 2))") s"
    package="$(find "$WORK" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
    args+=(--tarball "$TARGET" --package "$package" --app "$package/hindsight-desktop")
elif [[ -x "$TARGET/hindsight-desktop" ]]; then
    args+=(--app "$TARGET")
else
    echo "error: $TARGET is neither a tarball nor a folder holding the hindsight-desktop executable" >&2
    exit 2
fi

"$PYTHON" "$ROOT/installers/smoke_check.py" "${args[@]}"
