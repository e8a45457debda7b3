#!/usr/bin/env bash
# Smoke-test a Linux tarball on a minimal Debian: smoke_test.sh's checks with the app running inside a
# `debootstrap --variant=minbase` image that holds only the system packages README's set-up section lists
# for Debian. Before they are installed, the app must refuse to start with a message naming the missing
# packages (installing exactly those must be enough), while the command line already works.
#
#   sudo installers/smoke_minimal_image.sh dist/hindsight-desktop-0.1.0-linux-x86_64.tar.gz
#
# Needs root (debootstrap, chroot, mount), `apt install debootstrap`, and a Debian mirror (DEBIAN_MIRROR,
# default deb.debian.org). The image is made in MINIMAL_IMAGE (default /tmp/minimal) and removed at the
# end (KEEP_IMAGE=1 keeps it, and a kept image is reused). Takes several minutes: not part of .ci/run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARBALL="$(realpath "${1:?usage: smoke_minimal_image.sh <tarball>}")"
IMAGE="${MINIMAL_IMAGE:-/tmp/minimal}"
SUITE="${DEBIAN_SUITE:-bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
MARK="$IMAGE/.hindsight-smoke-image"  # this script made the image: it may reuse and delete it

die() { echo "error: $*" >&2; exit 1; }
started=$EPOCHSECONDS
since() { echo "$((EPOCHSECONDS - started)) s"; }

[[ "$(id -u)" == 0 ]] || die "run as root: debootstrap, chroot and mount need it"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt install debootstrap"
[[ -f "$TARBALL" ]] || die "$TARBALL is not a file"

# README's row for Debian is the list under test.
read -r -a PACKAGES <<<"$(sed -nE 's/^\| Debian[^|]*\| `sudo apt install ([^`]+)`.*/\1/p' "$ROOT/README.md")"
[[ ${#PACKAGES[@]} -gt 0 ]] || die "README.md has no Debian row with a 'sudo apt install' command"

if [[ -e "$IMAGE" && ! -e "$MARK" && -n "$(ls -A "$IMAGE" 2>/dev/null)" ]]; then
    die "$IMAGE exists and was not made by this script; set MINIMAL_IMAGE to another folder"
fi

WORK="$(mktemp -d /tmp/hindsight-minimal-XXXXXX)"
MOUNTS=()
cleanup() {
    set +e
    # Processes still running inside the image (a background server the stdio bridge started).
    for proc in /proc/[0-9]*; do
        [[ "$(readlink "$proc/root" 2>/dev/null)" == "$IMAGE" ]] && kill "${proc#/proc/}" 2>/dev/null
    done
    sleep 1
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[i]}" || umount -l "${MOUNTS[i]}"; done
    rm -rf "$WORK"
    if [[ "${KEEP_IMAGE:-0}" != 1 && -e "$MARK" ]]; then
        if grep -q " $IMAGE/" /proc/mounts; then
            echo "warning: something is still mounted under $IMAGE; not deleting it" >&2
        else
            rm -rf --one-file-system "$IMAGE"
        fi
    fi
}
trap cleanup EXIT

echo "== minimal Debian $SUITE image in $IMAGE"
if [[ -e "$MARK" ]]; then
    echo "reusing it; removing the packages an earlier run installed"
    chroot "$IMAGE" apt-get purge -y -qq --autoremove "${PACKAGES[@]}" xvfb xauth >/dev/null 2>&1 || true
else
    debootstrap --variant=minbase "$SUITE" "$IMAGE" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -n 20 "$WORK/debootstrap.log"; die "debootstrap failed"; }
    touch "$MARK"
fi
echo "image ready ($(du -sh --one-file-system "$IMAGE" | cut -f1), $(since) so far)"
cp /etc/resolv.conf "$IMAGE/etc/resolv.conf"

mount_in() {  # mount_in <mount options and source…> <target inside the image>
    local target="$IMAGE${*: -1}"
    mkdir -p "$target"
    mount "${@:1:$#-1}" "$target"
    MOUNTS+=("$target")
}
mount_in -t proc proc /proc
mount_in --bind /dev /dev
mount_in --bind "$WORK" "$WORK"  # the app and its test folders: the same paths inside and out

in_image() { chroot "$IMAGE" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$WORK/home" LANG=C.UTF-8 "$@"; }

tar -xzf "$TARBALL" -C "$WORK"
APP="$(find "$WORK" -mindepth 3 -maxdepth 3 -type f -name hindsight-desktop -path '*/hindsight-desktop/*')"
[[ -x "$APP" ]] || die "no hindsight-desktop executable in $TARBALL"
mkdir -p "$WORK/home"

echo
echo "== without the system packages"
in_image "$APP" --version
set +e
message="$(in_image DISPLAY=:99 "$APP" 2>&1)"
status=$?
set -e
echo "the app, started with DISPLAY set, exited $status and said:"
echo "  $message"
[[ $status == 1 && "$message" == *"cannot open its window"* ]] || die "the app did not explain why it cannot start"
named="$(sed -nE 's/.*sudo apt install ([a-z0-9. +-]+), then.*/\1/p' <<<"$message")"
[[ -n "$named" ]] || die "the message names no package to install"

apt_install() {
    in_image env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
        >>"$WORK/apt.log" 2>&1 || { tail -n 20 "$WORK/apt.log"; die "apt-get install $* failed"; }
}
INTERNAL="$(dirname "$APP")/_internal"
plugin="$(find "$INTERNAL" -name libqxcb.so | head -n 1)"
plugin_links() {  # Qt's X11 plugin finds every library it links, searching the bundle first as the app does
    local unresolved
    unresolved="$(in_image LD_LIBRARY_PATH="$INTERNAL" ldd "$plugin" | grep 'not found' || true)"
    [[ -z "$unresolved" ]] || { echo "$unresolved"; return 1; }
}
in_image apt-get update -qq
# shellcheck disable=SC2086 # one package a word
apt_install $named
plugin_links || die "installing the $(wc -w <<<"$named") packages the message names was not enough"
echo "installing exactly the $(wc -w <<<"$named") packages it names is enough for Qt's X11 plugin"
# shellcheck disable=SC2086
in_image apt-get purge -y -qq --autoremove $named >>"$WORK/apt.log" 2>&1
! plugin_links >/dev/null || die "purging the packages did not bring the image back to minimal"

echo
echo "== with README's packages: ${PACKAGES[*]}"
apt_install "${PACKAGES[@]}"
plugin_links || die "README's packages are not enough for Qt's X11 plugin"
echo "Qt's X11 plugin finds every library it links ($(since) so far)"
# Only for the X11 check (xvfb-run): installed after the check above, so it cannot hide a missing package.
apt_install xvfb xauth

echo
SMOKE_CHROOT="$IMAGE" TMPDIR="$WORK" "$ROOT/installers/smoke_test.sh" "$TARBALL"
echo
echo "minimal-image smoke test passed in $(since)"
