#!/bin/bash
# Installs what the VM test harness (tests/vm/) needs on Debian 12, as root:
#   - host packages: qemu, busybox-static, the 6.1 kernel source and the kernel
#     build tools (skipped when already installed);
#   - into the cache ${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}/debs:
#       linux-source-5.10 (from Debian 11 "bullseye", through a temporary apt
#       sources entry that is removed again, even on failure), and
#       Debian 12's stock kernel image linux-image-6.1.0-*-amd64 (downloaded,
#       NOT installed on the host).
# Safe to run again: whatever is already there is kept.
set -euo pipefail

PROG=install-vm-deps.sh
CACHE=${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}
DEBS=$CACHE/debs
PACKAGES="qemu-system-x86 busybox-static linux-source-6.1 bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
gcc make patch util-linux coreutils debootstrap"
BULLSEYE_LIST=/etc/apt/sources.list.d/numastatd-bullseye.list

say() { echo "$PROG: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (apt-get install)"
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$DEBS"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

updated=
apt_update() {
        [ -n "$updated" ] && return 0
        say "apt-get update"
        apt-get update -qq
        updated=1
}

# 1. host packages
missing=
for p in $PACKAGES; do
        installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
        apt_update
        say "installing$missing"
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
        say "host packages already installed"
fi

# 2. linux-source-5.10 from bullseye, into the cache
if ls "$DEBS"/linux-source-5.10_*_all.deb >/dev/null 2>&1; then
        say "have $(basename "$(ls "$DEBS"/linux-source-5.10_*_all.deb | sort -V | tail -1)")"
else
        cleanup_bullseye() {
                if [ -e "$BULLSEYE_LIST" ]; then
                        rm -f "$BULLSEYE_LIST"
                        say "removed $BULLSEYE_LIST; refreshing the package lists"
                        apt-get update -qq || say "warning: apt-get update failed after removing $BULLSEYE_LIST"
                fi
        }
        trap cleanup_bullseye EXIT
        trap 'exit 130' INT TERM
        say "fetching linux-source-5.10 from Debian bullseye (temporary sources entry $BULLSEYE_LIST)"
        echo "deb http://deb.debian.org/debian bullseye main" >"$BULLSEYE_LIST"
        apt-get update -qq -o Dir::Etc::sourcelist="$BULLSEYE_LIST" -o Dir::Etc::sourceparts=- \
                -o APT::Get::List-Cleanup=0
        tmp=$(mktemp -d "$DEBS/.dl.XXXXXX"); chmod 755 "$tmp"; chown _apt "$tmp" 2>/dev/null || true
        (cd "$tmp" && apt-get download -qq linux-source-5.10) ||
                { rm -rf "$tmp"; die "apt-get download linux-source-5.10 failed"; }
        mv "$tmp"/linux-source-5.10_*_all.deb "$DEBS"/
        rm -rf "$tmp"
        cleanup_bullseye
        trap - EXIT INT TERM
        updated=1
        say "have $(basename "$(ls "$DEBS"/linux-source-5.10_*_all.deb | sort -V | tail -1)")"
fi

# 3. Debian 12's stock kernel image (downloaded, not installed)
apt_update_if_needed() {
        apt-cache depends linux-image-amd64 2>/dev/null | grep -q 'Depends: linux-image-6' || apt_update
}
apt_update_if_needed
img=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -1)
[ -n "$img" ] || die "cannot resolve the linux-image-6.1.0-*-amd64 package that linux-image-amd64 depends on"
ver=$(apt-cache policy "$img" | sed -n 's/^ *Candidate: *//p')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no candidate version for $img"
deb="$DEBS/${img}_${ver//:/%3a}_amd64.deb"
if [ -s "$deb" ]; then
        say "have $(basename "$deb")"
else
        say "downloading $img $ver (not installing it)"
        tmp=$(mktemp -d "$DEBS/.dl.XXXXXX"); chmod 755 "$tmp"; chown _apt "$tmp" 2>/dev/null || true
        (cd "$tmp" && apt-get download -qq "$img") || { rm -rf "$tmp"; die "apt-get download $img failed"; }
        mv "$tmp"/"$img"_*_amd64.deb "$DEBS"/
        rm -rf "$tmp"
        say "have $(basename "$(ls "$DEBS"/"$img"_*_amd64.deb)")"
fi
# A pointer the other scripts use: the stock image .deb to boot.
ln -sfn "$(basename "$(ls "$DEBS"/"$img"_*_amd64.deb | sort -V | tail -1)")" "$DEBS/stock-6.1.deb"
say "done; cache is $CACHE"
