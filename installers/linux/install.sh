#!/usr/bin/env bash
# Install Hindsight Desktop for you alone (no root): the app in ~/.local/opt/hindsight-desktop, the
# `hindsight-desktop` command in ~/.local/bin, the menu entry and icons in ~/.local/share.
#
#   ./install.sh                 install, or update in place (your memory is not touched)
#   ./install.sh --uninstall     remove the app; your memory stays in ~/.local/share/hindsight-desktop
#   ./install.sh --uninstall --delete-memory    remove the memory and settings too
#
# PREFIX (default ~/.local) and XDG_DATA_HOME move where things go.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
APP=hindsight-desktop
PREFIX="${PREFIX:-$HOME/.local}"
DATA_HOME="${XDG_DATA_HOME:-$HOME/.local/share}"
CONFIG_HOME="${XDG_CONFIG_HOME:-$HOME/.config}"
APP_DIR="$PREFIX/opt/$APP"
COMMAND="$PREFIX/bin/$APP"
ENTRY="$DATA_HOME/applications/$APP.desktop"
ICONS="$DATA_HOME/icons/hicolor"

refresh_caches() {
    # Menus pick up new entries by themselves on most desktops; these only make it immediate.
    command -v update-desktop-database >/dev/null && update-desktop-database -q "$DATA_HOME/applications" || true
    command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$ICONS" 2>/dev/null || true
}

install_app() {
    [[ -x "$HERE/$APP/$APP" ]] || { echo "error: $HERE/$APP/$APP is missing; run this from the unpacked tarball" >&2; exit 1; }
    mkdir -p "$PREFIX/opt" "$PREFIX/bin" "$DATA_HOME/applications"
    # Copy next to the old version, then swap, so a failed copy leaves the old one working.
    rm -rf "$APP_DIR.new"
    cp -a "$HERE/$APP" "$APP_DIR.new"
    rm -rf "$APP_DIR"
    mv "$APP_DIR.new" "$APP_DIR"
    ln -sfn "$APP_DIR/$APP" "$COMMAND"
    # An absolute Exec: the desktop session's PATH often lacks ~/.local/bin.
    sed -e "s|^Exec=.*|Exec=\"$APP_DIR/$APP\"|" -e "s|^TryExec=.*||" "$HERE/$APP.desktop" > "$ENTRY"
    for png in "$HERE"/icons/$APP-[0-9]*.png; do
        size="${png##*-}"; size="${size%.png}"
        install -D -m 644 "$png" "$ICONS/${size}x${size}/apps/$APP.png"
    done
    install -D -m 644 "$HERE/icons/$APP.svg" "$ICONS/scalable/apps/$APP.svg"
    refresh_caches
    echo "Installed Hindsight Desktop in $APP_DIR."
    echo "Start it from your applications menu, or run: $COMMAND"
    case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "($PREFIX/bin is not on your PATH; use the full path above.)";; esac
}

uninstall_app() {
    local delete_memory="$1"
    rm -rf "$APP_DIR" "$APP_DIR.new"
    [[ -L "$COMMAND" ]] && rm -f "$COMMAND"
    rm -f "$ENTRY" "$ICONS"/*/apps/$APP.png "$ICONS/scalable/apps/$APP.svg"
    # The app's own "start at login" entry, if it points at this install.
    local autostart="$CONFIG_HOME/autostart/$APP.desktop"
    if [[ -f "$autostart" ]] && grep -q "$APP_DIR" "$autostart"; then rm -f "$autostart"; fi
    refresh_caches
    if [[ "$delete_memory" == yes ]]; then
        rm -rf "${HINDSIGHT_DATA_DIR:-$DATA_HOME/$APP}" "${HINDSIGHT_CONFIG_DIR:-$CONFIG_HOME/$APP}"
        echo "Removed Hindsight Desktop, its memory and its settings."
    else
        echo "Removed Hindsight Desktop. Your memory is still in ${HINDSIGHT_DATA_DIR:-$DATA_HOME/$APP}"
        echo "(run again with --uninstall --delete-memory to remove it too)."
    fi
}

case "${1:-}" in
    "") install_app ;;
    --uninstall)
        case "${2:-}" in
            "") uninstall_app no ;;
            --delete-memory) uninstall_app yes ;;
            *) echo "usage: $0 [--uninstall [--delete-memory]]" >&2; exit 2 ;;
        esac ;;
    *) echo "usage: $0 [--uninstall [--delete-memory]]" >&2; exit 2 ;;
esac
