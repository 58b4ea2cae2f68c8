#!/bin/bash
# Prints the path of Debian 12's stock 6.1 kernel, unpacked (not installed) from
# the linux-image-6.1.0-*-amd64 .deb that scripts/install-vm-deps.sh cached.
#
#   tests/vm/stock-kernel.sh [--suite=trixie|bullseye] [--elf]
#
#   tests/vm/stock-kernel.sh          the compressed bzImage (boot/vmlinuz-*)
#   tests/vm/stock-kernel.sh --elf    the uncompressed ELF vmlinux (made once from
#                                     the vmlinuz like scripts/extract-vmlinux does;
#                                     qemu boots it through its PVH entry, which
#                                     saves the guest's XZ decompression: faster
#                                     under TCG)
#   --suite=trixie                    Debian 13's stock 6.12 instead, from the
#                                     linux-image-6.12.*-amd64 .deb that
#                                     tests/vm/systemd/build-rootfs.sh trixie cached
#   --suite=bullseye                  Debian 11's stock 5.10 (linux-image-5.10.0-*-amd64),
#                                     which build-rootfs.sh bullseye cached
#
# Unpacked with dpkg-deb -x into ${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}/stock/PACKAGE_VERSION/
# (stock-trixie/ and stock-bullseye/ for those suites').
set -euo pipefail

PROG=stock-kernel.sh
CACHE=${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}
say() { echo "$PROG: $*" >&2; }
die() { say "error: $*"; exit 1; }

ELF= SUITE=bookworm
for arg; do
        case $arg in
        --elf) ELF=1 ;;
        --suite=bookworm | --suite=trixie | --suite=bullseye) SUITE=${arg#--suite=} ;;
        *) die "usage: $PROG [--suite=trixie|bullseye] [--elf]" ;;
        esac
done

DEB=
if [ "$SUITE" = trixie ]; then
        DEB=$(ls "$CACHE"/debs/linux-image-6.12.*-amd64_*_amd64.deb 2>/dev/null | sort -V | tail -1 || true)
        [ -n "$DEB" ] && [ -s "$DEB" ] || die "no linux-image-6.12.*-amd64 .deb in $CACHE/debs: run tests/vm/systemd/build-rootfs.sh trixie"
        STOCK=$CACHE/stock-trixie
elif [ "$SUITE" = bullseye ]; then
        DEB=$(ls "$CACHE"/debs/linux-image-5.10.*-amd64_*_amd64.deb 2>/dev/null | sort -V | tail -1 || true)
        [ -n "$DEB" ] && [ -s "$DEB" ] || die "no linux-image-5.10.*-amd64 .deb in $CACHE/debs: run tests/vm/systemd/build-rootfs.sh bullseye"
        STOCK=$CACHE/stock-bullseye
else
        [ -e "$CACHE/debs/stock-6.1.deb" ] && DEB=$(readlink -f "$CACHE/debs/stock-6.1.deb")
        [ -n "$DEB" ] || DEB=$(ls "$CACHE"/debs/linux-image-6.1.0-*-amd64_*_amd64.deb 2>/dev/null | sort -V | tail -1 || true)
        [ -n "$DEB" ] && [ -s "$DEB" ] || die "no linux-image-6.1.0-*-amd64 .deb in $CACHE/debs: run scripts/install-vm-deps.sh"
        STOCK=$CACHE/stock
fi

DIR=$STOCK/$(basename "$DEB" .deb)
if [ ! -f "$DIR/.unpacked" ]; then
        say "unpacking $(basename "$DEB") into $DIR"
        rm -rf "$DIR" "$DIR.tmp"
        mkdir -p "$DIR.tmp"
        dpkg-deb -x "$DEB" "$DIR.tmp"
        touch "$DIR.tmp/.unpacked"
        mv "$DIR.tmp" "$DIR"
        # keep only the newest stock kernel
        for d in "$STOCK"/*/; do
                [ "${d%/}" = "$DIR" ] || rm -rf "${d%/}"
        done
fi
VMLINUZ=$(ls "$DIR"/boot/vmlinuz-* 2>/dev/null | head -1)
[ -n "$VMLINUZ" ] || die "no boot/vmlinuz-* in $DEB"

if [ -z "$ELF" ]; then
        echo "$VMLINUZ"
        exit 0
fi

VMLINUX=$DIR/vmlinux
if [ ! -s "$VMLINUX" ]; then
        is_elf() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }
        # (magic as a grep -P pattern, decompressor) like scripts/extract-vmlinux
        for try in '\xfd\x37\x7a\x58\x5a\x00|xz -dc' '\x1f\x8b\x08|gzip -dc' '\x28\xb5\x2f\xfd|zstd -dc' \
                '\x5d\x00\x00\x00|unlzma -c' '\x42\x5a\x68|bzip2 -dc'; do
                magic=${try%%|*}; cmd=${try#*|}
                command -v "${cmd%% *}" >/dev/null || continue
                for off in $(LC_ALL=C grep -obUaP "$magic" "$VMLINUZ" | cut -d: -f1); do
                        tail -c +$((off + 1)) "$VMLINUZ" | $cmd >"$VMLINUX.tmp" 2>/dev/null || true
                        if [ -s "$VMLINUX.tmp" ] && is_elf "$VMLINUX.tmp"; then
                                mv "$VMLINUX.tmp" "$VMLINUX"
                                break 2
                        fi
                done
        done
        rm -f "$VMLINUX.tmp"
        [ -s "$VMLINUX" ] || die "could not extract an ELF vmlinux from $VMLINUZ"
        say "extracted $VMLINUX ($(($(stat -c %s "$VMLINUX") / 1048576)) MiB)"
fi
echo "$VMLINUX"
