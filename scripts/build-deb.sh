#!/bin/sh
# Builds the Debian package (as root) for this machine's release, or with
# --suite=trixie for Debian 13 or --suite=bullseye for Debian 11 on a
# Debian 12 machine (in the cached root of scripts/test-trixie.sh for that
# suite, with its own lintian). Installs the build
# dependencies debian/control names, copies the checkout's files (what git
# tracks, or the whole tree outside git, without build directories) to
# $OUT/numastatd-VERSION, runs dpkg-buildpackage -us -uc -b there, and
# checks the .deb with lintian (no error, no warning). Prints the .deb's
# path last.
#
#   scripts/build-deb.sh [--suite=bookworm|trixie|bullseye] [OUT]
#                                   (default: this machine's; build/deb, or build/deb-SUITE)
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
say() { echo "build-deb.sh: $*" >&2; }
here=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
suite=$here
case "${1:-}" in
--suite=*) suite=${1#--suite=}; shift ;;
-*) say "unknown option $1 (usage: scripts/build-deb.sh [--suite=bookworm|trixie|bullseye] [OUT])"; exit 2 ;;
esac

[ "$(id -u)" -eq 0 ] || { say "run as root (apt-get build-dep)"; exit 1; }
if [ "$suite" != "$here" ]; then
        case $suite in
        trixie | bullseye) ;;
        *) say "cannot build for $suite on ${here:-this machine} (only trixie or bullseye, in a root)"; exit 2 ;;
        esac
        exec scripts/test-trixie.sh --suite="$suite" --deb "${1:-$top/build/deb-$suite}"
fi
OUT=${1:-$top/build/deb}
export DEBIAN_FRONTEND=noninteractive
command -v dpkg-buildpackage >/dev/null && command -v lintian >/dev/null && command -v dh >/dev/null ||
        apt-get install -y --no-install-recommends dpkg-dev debhelper lintian fakeroot >&2

version=$(dpkg-parsechangelog -S Version -l debian/changelog)
src=$OUT/numastatd-$version
rm -rf "$OUT"
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$top" ls-files -z --cached --others --exclude-standard | (cd "$top" && xargs -0 cp --parents -t "$src")
else
        tar -C "$top" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$src" -xf -
fi
# The package generates configure itself (dh_autoreconf).
rm -f "$src/configure" "$src/Makefile.in" "$src/aclocal.m4" "$src/config.h.in"

apt-get build-dep -y "$src" >&2
(cd "$src" && dpkg-buildpackage -us -uc -b) > "$OUT/build.log" 2>&1 || {
        tail -n 40 "$OUT/build.log" >&2
        say "dpkg-buildpackage failed (log: $OUT/build.log)"
        exit 1
}
deb=$(ls "$OUT"/numastatd_"$version"_*.deb)
lintian --fail-on error,warning --info "$deb" >&2 || { say "lintian: errors or warnings (above)"; exit 1; }
echo "$deb"
