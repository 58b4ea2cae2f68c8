#!/bin/bash
# Builds a busybox initramfs for the test VMs.
#
#   tests/vm/mkinitramfs.sh OUT.cpio.gz [--bin FILE[:DEST]...] [--file SRC:DEST...]
#
# The image holds:
#   /usr/bin/busybox (busybox-static) and a symlink per applet; merged-/usr
#     layout like Debian 12: /bin, /sbin, /lib, /lib64 point into /usr
#   /init                   tests/vm/guest/init
#   /guest/...              a copy of tests/vm/guest/ (guest scripts)
#   /scenarios/NAME         tests/vm/guest/scenarios/NAME.sh (the init runs
#                           /scenarios/$scenario, scenario= from the kernel command line)
#   every --bin FILE[:DEST] at the same path (or DEST), with the shared libraries
#                           ldd lists (and the dynamic loader) at their paths;
#                           libraries a program dlopen()s are not found: add them
#                           with --bin too
#   every --file SRC:DEST   SRC (file or directory) copied to DEST
# --bin and --file take one or more arguments each, up to the next option.
# The archive is reproducible: fixed mtimes, owner 0:0, sorted names, gzip -n.
set -euo pipefail

PROG=mkinitramfs.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GUEST=$HERE/guest
BUSYBOX=${NUMASTATD_VM_BUSYBOX:-/bin/busybox}
EPOCH=${SOURCE_DATE_EPOCH:-0}

say() { echo "$PROG: $*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { die "usage: $PROG OUT.cpio.gz [--bin FILE[:DEST]...] [--file SRC:DEST...]"; }

[ $# -ge 1 ] || usage
OUT=$1; shift
case $OUT in -*) usage ;; esac
BINS=(); FILES=(); mode=
while [ $# -gt 0 ]; do
        case $1 in
        --bin) mode="bin" ;;
        --file) mode="file" ;;
        --bin=*) BINS+=("${1#--bin=}") ;;
        --file=*) FILES+=("${1#--file=}") ;;
        -*) usage ;;
        *)
                case $mode in
                bin) BINS+=("$1") ;;
                file) FILES+=("$1") ;;
                *) usage ;;
                esac
                ;;
        esac
        shift
done

[ -x "$BUSYBOX" ] || die "$BUSYBOX missing: apt-get install busybox-static (scripts/install-vm-deps.sh)"
file_is_static() { ! ldd "$1" >/dev/null 2>&1; }
file_is_static "$BUSYBOX" || die "$BUSYBOX is not statically linked (need busybox-static)"
[ -f "$GUEST/init" ] || die "$GUEST/init missing"

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/numastatd-initramfs.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT

# merged-/usr skeleton
mkdir -p "$ROOT"/{usr/bin,usr/lib,usr/lib64,dev,proc,sys,run,tmp,root,etc,scenarios,guest}
ln -s usr/bin "$ROOT/bin"
ln -s usr/bin "$ROOT/sbin"
ln -s bin "$ROOT/usr/sbin"
ln -s usr/lib "$ROOT/lib"
ln -s usr/lib64 "$ROOT/lib64"
chmod 1777 "$ROOT/tmp"
echo "root:x:0:0:root:/root:/bin/sh" >"$ROOT/etc/passwd"
echo "root:x:0:" >"$ROOT/etc/group"

cp "$BUSYBOX" "$ROOT/usr/bin/busybox"
# one symlink per applet, made by one process (perl-base is essential in Debian)
"$BUSYBOX" --list | perl -e 'chdir($ARGV[0]) or die; while (<STDIN>) { chomp;
        next if $_ eq "busybox" || m{/} || -e $_; symlink("busybox", $_) or die "$_: $!" }' "$ROOT/usr/bin"

# copy_to SRC DEST: file (dereferenced) or directory to DEST inside the image,
# replacing an applet symlink if there is one.
copy_to() {
        local src=$1 dest=$2
        case $dest in /*) ;; *) die "destination must be absolute: $dest" ;; esac
        mkdir -p "$ROOT$(dirname "$dest")"
        if [ -d "$src" ]; then
                mkdir -p "$ROOT$dest"
                cp -a "$src"/. "$ROOT$dest"/
        else
                rm -f "$ROOT$dest"
                cp -L --preserve=mode "$src" "$ROOT$dest"
        fi
}

declare -A HAVE=()
add_with_libs() {
        local f=$1 dest=$2 lib
        copy_to "$f" "$dest"
        if ldd "$f" >/dev/null 2>&1; then
                # "libx.so.1 => /path/libx.so.1 (0x..)" or "/lib64/ld-linux-x86-64.so.2 (0x..)"
                while read -r lib; do
                        [ -n "${HAVE[$lib]:-}" ] && continue
                        HAVE[$lib]=1
                        copy_to "$lib" "$lib"
                done < <(ldd "$f" | sed -n -e 's/.*=> \(\/[^ ]*\) (0x.*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p')
                if ldd "$f" | grep -q 'not found'; then
                        ldd "$f" | grep 'not found' >&2
                        die "$f: shared libraries not found"
                fi
        fi
}

for b in "${BINS[@]}"; do
        src=${b%%:*} dest=${b#*:}
        [ -f "$src" ] || die "--bin $src: no such file"
        case $src in /*) ;; *) src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src") ;; esac
        [ "$dest" != "$b" ] || dest=$src
        add_with_libs "$src" "$dest"
done

# guest scripts and scenarios
cp -a "$GUEST"/. "$ROOT/guest/"
rm -f "$ROOT/guest/init"
if [ -d "$GUEST/scenarios" ]; then
        for s in "$GUEST"/scenarios/*.sh; do
                [ -e "$s" ] || continue
                copy_to "$s" "/scenarios/$(basename "$s" .sh)"
                chmod 755 "$ROOT/scenarios/$(basename "$s" .sh)"
        done
fi
for fs in "${FILES[@]}"; do
        src=${fs%%:*}; dest=${fs#*:}
        [ "$src" != "$fs" ] && [ -n "$dest" ] || die "--file wants SRC:DEST, got '$fs'"
        [ -e "$src" ] || die "--file $src: no such file"
        copy_to "$src" "$dest"
done
cp "$GUEST/init" "$ROOT/init"
chmod 755 "$ROOT/init"

# reproducible archive
mkdir -p "$(dirname "$OUT")"
find "$ROOT" -exec touch -h -d "@$EPOCH" {} +
(cd "$ROOT" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
        cpio -o -H newc --owner 0:0 --reproducible --quiet) | gzip -n -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
say "$OUT: $(du -k "$OUT" | cut -f1) KiB, ${#BINS[@]} program(s), ${#FILES[@]} extra file(s)"
