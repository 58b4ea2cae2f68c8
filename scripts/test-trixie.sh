#!/bin/bash
# Debian 13 (trixie): configures, builds with -Werror and runs make check
# (unit and integration tests, on this machine's kernel) in a trixie root
# made with debootstrap, as root. The root is cached like the VM's bookworm
# image, keyed on its recipe (suite, mirror, package list); the source is
# copied in afresh each run (the files git tracks, or the tree without build
# directories). Prints make check's output; exits with its status.
#
#   scripts/test-trixie.sh [--suite=bullseye] [--root-only | --deb OUT]
#
# --suite=bullseye does the same in a Debian 11 root (gcc 10, glibc 2.31,
# libsystemd 247, 5.10's headers), cached beside the trixie one.
# --root-only makes (or checks) the cached root and stops. --deb OUT builds
# the trixie package there instead (scripts/build-deb.sh, run in the root,
# lintian from trixie) and copies it to OUT; prints its path last. Needs root,
# debootstrap (scripts/install-vm-deps.sh installs it) and the Debian
# archive (NUMASTATD_VM_MIRROR, default http://deb.debian.org/debian).
# NUMASTATD_TRIXIE_TESTS="tests/integration/linger.sh ..." runs only those
# tests (make check TESTS=...), for a quick look while working.
# NUMASTATD_TRIXIE_MAKE="bench-flood" makes that target instead of check (a
# figure on that suite's libraries: FLOOD_ONLY and the like pass through).
set -euo pipefail

PROG=test-trixie.sh
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}
MIRROR=${NUMASTATD_VM_MIRROR:-http://deb.debian.org/debian}
SUITE=trixie
case "${1:-}" in
--suite=trixie | --suite=bullseye) SUITE=${1#--suite=}; shift ;;
--suite=*) echo "$PROG: error: no such suite here: ${1#--suite=} (trixie or bullseye)" >&2; exit 1 ;;
esac
# What scripts/install-deps.sh installs on Debian 12, as trixie names it,
# and what the integration tests use (setpriv and unshare are util-linux's).
PACKAGES="build-essential,autoconf,automake,libtool,pkg-config,libsystemd-dev,libnl-3-dev,libnl-genl-3-dev"
PACKAGES="$PACKAGES,libinih-dev,libnuma-dev,libjson-c-dev,python3,util-linux,procps,numactl"
# What scripts/build-deb.sh needs, for the trixie package (--deb): trixie
# keeps systemd.pc in systemd-dev; perl-openssl-defaults provides the
# virtual package lintian's perl modules need (debootstrap resolves none).
PACKAGES="$PACKAGES,dpkg-dev,debhelper,lintian,fakeroot"
[ "$SUITE" = bullseye ] || PACKAGES="$PACKAGES,systemd-dev"     # bullseye: systemd.pc is systemd's
PACKAGES="$PACKAGES,perl-openssl-defaults"
ROOT=$CACHE/buildroot-$SUITE
KEY=$(printf '%s\n' "$SUITE" "$MIRROR" minbase "$PACKAGES" 1 | sha256sum | cut -c1-16)

say() { echo "$PROG: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot, mounts)"
command -v debootstrap > /dev/null || die "debootstrap missing: scripts/install-vm-deps.sh"
[ -e /usr/share/debootstrap/scripts/$SUITE ] || die "this debootstrap does not know $SUITE"

umount_under() {  # umount_under DIR: everything mounted below DIR, deepest first
        local m
        for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
                umount -l "$m" 2> /dev/null || true
        done
}

mkdir -p "$CACHE"
exec 9> "$ROOT.lock"
flock 9
if [ -d "$ROOT" ] && [ "$(cat "$ROOT.key" 2> /dev/null)" = "$KEY" ]; then
        say "have $ROOT (recipe $KEY)"
else
        say "building $ROOT with debootstrap (recipe $KEY)"
        t0=$SECONDS
        umount_under "$ROOT.tmp"
        rm -rf --one-file-system "$ROOT.tmp"
        trap 'umount_under "$ROOT.tmp"; rm -rf --one-file-system "$ROOT.tmp"' EXIT
        debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT.tmp" "$MIRROR" \
                > "$CACHE/debootstrap-buildroot-$SUITE.log" 2>&1 || {
                tail -n 30 "$CACHE/debootstrap-buildroot-$SUITE.log" >&2
                die "debootstrap failed (log: $CACHE/debootstrap-buildroot-$SUITE.log)"
        }
        umount_under "$ROOT.tmp"
        umount_under "$ROOT"
        rm -rf --one-file-system "$ROOT" "$ROOT.key"
        mv "$ROOT.tmp" "$ROOT"
        trap - EXIT
        echo "$KEY" > "$ROOT.key"
        say "built $ROOT in $((SECONDS - t0)) s ($(du -sm "$ROOT" | cut -f1) MiB)"
fi
[ "${1:-}" = --root-only ] && exit 0
DEB_OUT=
if [ "${1:-}" = --deb ]; then
        [ -n "${2:-}" ] || die "--deb needs a directory"
        DEB_OUT=$2
fi

# The source, afresh.
rm -rf --one-file-system "$ROOT/src"
mkdir -p "$ROOT/src"
if git -C "$SRCDIR" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        (cd "$SRCDIR" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$ROOT/src"
else
        tar -C "$SRCDIR" --exclude='./build*' --exclude=./autom4te.cache -cf - . | tar -xf - -C "$ROOT/src"
fi

# The tests run in a mount namespace of their own with the root pivoted
# into the trixie tree, not in a chroot: the kernel refuses a chrooted
# process new user namespaces, and a chroot's root is no mount the daemon
# can find in mountinfo. Not in a pid namespace: taskstats takes listeners
# from the initial one only. A fresh /proc, this machine's /sys and /dev,
# and tmpfs /dev/shm, /run and /tmp (fanotify marks need a real superblock).
# The package's build runs its unit tests there too.
cat > "$ROOT/src/.inside.sh" <<'EOF'
set -e
mount -t proc proc /proc
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
umount -l /.oldroot
rmdir /.oldroot
cd /src
if [ "$1" = deb ]; then
        exec scripts/build-deb.sh /deb-out
fi
autoreconf -fi > /dev/null 2>&1
mkdir build && cd build
../configure --sysconfdir=/etc --enable-werror > configure.out 2>&1 || { tail -30 configure.out; exit 1; }
make -j"$(nproc)" > make.out 2>&1 || { tail -50 make.out; exit 1; }
if [ -n "${NUMASTATD_TRIXIE_MAKE:-}" ]; then
        exec make $NUMASTATD_TRIXIE_MAKE
fi
rc=0
make -j"$(nproc)" check ${NUMASTATD_TRIXIE_TESTS:+"TESTS=$NUMASTATD_TRIXIE_TESTS"} > check.out 2>&1 || rc=$?
cat check.out
[ $rc -eq 0 ] || cat test-suite.log
exit $rc
EOF
inside() {  # inside check|deb: .inside.sh in the pivoted root
        unshare --mount --propagation private /bin/sh -ec '
                root=$1
                mount --bind "$root" "$root"
                mount --rbind /sys "$root/sys"
                mount --rbind /dev "$root/dev"
                cd "$root"
                mkdir -p .oldroot
                pivot_root . .oldroot
                exec /bin/sh /src/.inside.sh "$2"' sh "$ROOT" "$1"
}

if [ -n "$DEB_OUT" ]; then
        say "building the $SUITE package in $ROOT"
        rm -rf --one-file-system "$ROOT/deb-out"
        inside deb > "$ROOT/deb.path" || die "scripts/build-deb.sh failed in the $SUITE root (above)"
        deb=$(tail -n 1 "$ROOT/deb.path")
        mkdir -p "$DEB_OUT"
        cp "$ROOT/deb-out/build.log" "$DEB_OUT/build.log"
        cp "$ROOT$deb" "$DEB_OUT/" || die "no package at $deb in the $SUITE root"
        echo "$DEB_OUT/$(basename "$deb")"
        exit 0
fi
say "building and testing in $SUITE ($(chroot "$ROOT" sh -c 'gcc --version | head -1; echo libsystemd $(pkg-config --modversion libsystemd)' | tr '\n' ' '))"
inside check
