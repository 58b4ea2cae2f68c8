#!/bin/bash
# Builds a small test kernel and prints the path of its bzImage on stdout.
#
#   tests/vm/build-kernel.sh VERSION          VERSION: 6.1 or 5.10
#
# Source: 6.1 from Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz),
# 5.10 from the linux-source-5.10 .deb that scripts/install-vm-deps.sh put in
# the cache. Patches tests/vm/patches/VERSION/*.patch are applied in name order
# with `patch -p1` (one that does not apply is an error). Config: `make
# tinyconfig`, the options of tests/vm/config.fragment, `make olddefconfig`,
# then every option of the fragment is checked in .config.
#
# Everything lives under ${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}:
#   src/VERSION/linux          pristine source tree (extracted once, ~1.4 GiB)
#   build/VERSION/tree         the build tree (source + objects) of VERSION
#   build/VERSION/KEY/         one build's result: bzImage (printed on stdout),
#                              System.map (for the instruction-counting plugin's
#                              address ranges), config, build.log
# KEY = sha256 of (source package version, config.fragment, each patch's name
# and content, the build recipe version). Same key again: nothing is rebuilt.
# A new key reuses the build tree: the files the previous patches touched are
# restored from the pristine tree, the new patches applied, and make rebuilds
# only what changed (a patch to mm/vmstat.c: well under a minute). The results
# of the 3 most recently used keys per VERSION are kept, older ones removed.
# Only one kernel build runs at a time on the machine (flock on build.lock).
#
# Progress goes to stderr; the full make log is KEY/build.log.
# Environment: NUMASTATD_VM_CACHE, NUMASTATD_VM_JOBS (default: nproc),
#   NUMASTATD_VM_KEEP (results kept per version, default 3).
set -euo pipefail

PROG=build-kernel.sh
RECIPE=1   # bump when the way a kernel is built changes (changes every key)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}
JOBS=${NUMASTATD_VM_JOBS:-$(nproc)}
KEEP=${NUMASTATD_VM_KEEP:-3}
FRAGMENT=$HERE/config.fragment

say() { echo "$PROG: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 1 ] || die "usage: $PROG VERSION (6.1 or 5.10)"
VERSION=$1

# --- source package and its version -------------------------------------------------
case $VERSION in
6.1)
        TARBALL=/usr/src/linux-source-6.1.tar.xz
        [ -r "$TARBALL" ] || die "$TARBALL missing: run scripts/install-vm-deps.sh"
        PKGVER=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
                die "package linux-source-6.1 not installed: run scripts/install-vm-deps.sh"
        SRCDESC="linux-source-6.1 $PKGVER"
        ;;
5.10)
        DEB=$(ls "$CACHE"/debs/linux-source-5.10_*_all.deb 2>/dev/null | sort -V | tail -1 || true)
        [ -n "$DEB" ] || die "no linux-source-5.10 .deb in $CACHE/debs: run scripts/install-vm-deps.sh"
        PKGVER=$(dpkg-deb -f "$DEB" Version)
        SRCDESC="linux-source-5.10 $PKGVER"
        ;;
*) die "unknown VERSION '$VERSION' (6.1 or 5.10)" ;;
esac
[ -r "$FRAGMENT" ] || die "$FRAGMENT missing"

PATCHES=()
if [ -d "$HERE/patches/$VERSION" ]; then
        while IFS= read -r p; do PATCHES+=("$p"); done < <(
                find "$HERE/patches/$VERSION" -maxdepth 1 -type f -name '*.patch' | LC_ALL=C sort)
fi

# --- cache key --------------------------------------------------------------------
KEY=$( {
        printf 'recipe %s\nversion %s\nsource %s\n' "$RECIPE" "$VERSION" "$SRCDESC"
        printf 'fragment\n'; cat "$FRAGMENT"
        for p in "${PATCHES[@]}"; do
                printf '\npatch %s %s\n' "$(basename "$p")" "$(wc -c <"$p")"; cat "$p"
        done
} | sha256sum | cut -c1-16)
BUILDS=$CACHE/build/$VERSION
K=$BUILDS/$KEY

# A result from before System.map was kept: the tree still holds the map of
# that very build if its .config is the result's.
if [ -f "$K/.done" ] && [ ! -s "$K/System.map" ] && [ -s "$BUILDS/tree/System.map" ] &&
        cmp -s "$BUILDS/tree/.config" "$K/config"; then
        cp "$BUILDS/tree/System.map" "$K/System.map"
fi
if [ -f "$K/.done" ] && [ -s "$K/bzImage" ]; then
        touch "$K/.used"
        say "$VERSION: up to date ($SRCDESC, ${#PATCHES[@]} patch(es), key $KEY)"
        echo "$K/bzImage"
        exit 0
fi

# --- one kernel build at a time ---------------------------------------------------
mkdir -p "$CACHE" "$BUILDS"
exec 9>"$CACHE/build.lock"
if ! flock -n 9; then
        say "waiting for another kernel build to finish (lock $CACHE/build.lock)"
        flock 9
fi
if [ -f "$K/.done" ] && [ -s "$K/bzImage" ]; then   # built meanwhile
        touch "$K/.used"
        echo "$K/bzImage"
        exit 0
fi

T0=$(date +%s)
say "$VERSION: building $SRCDESC, ${#PATCHES[@]} patch(es), key $KEY"

# --- pristine source, extracted once ----------------------------------------------
PRISTINE=$CACHE/src/$VERSION/linux
if [ ! -f "$PRISTINE/.numastatd-pristine" ] || [ "$(cat "$PRISTINE/.numastatd-pristine")" != "$SRCDESC" ]; then
        say "extracting $SRCDESC into $PRISTINE (once; ~1.4 GiB)"
        rm -rf "$CACHE/src/$VERSION"
        mkdir -p "$CACHE/src/$VERSION/tmp"
        case $VERSION in
        6.1) tar -xJf "$TARBALL" -C "$CACHE/src/$VERSION/tmp" ;;
        5.10)
                dpkg-deb -x "$DEB" "$CACHE/src/$VERSION/deb"
                tar -xJf "$CACHE/src/$VERSION/deb/usr/src/linux-source-5.10.tar.xz" -C "$CACHE/src/$VERSION/tmp"
                rm -rf "$CACHE/src/$VERSION/deb"
                ;;
        esac
        top=$(ls "$CACHE/src/$VERSION/tmp")
        [ "$(echo "$top" | wc -l)" -eq 1 ] && [ -f "$CACHE/src/$VERSION/tmp/$top/Makefile" ] ||
                die "unexpected tarball layout: $top"
        mv "$CACHE/src/$VERSION/tmp/$top" "$PRISTINE"
        rmdir "$CACHE/src/$VERSION/tmp"
        echo "$SRCDESC" >"$PRISTINE/.numastatd-pristine"
        # Stale build trees of another source version are useless now.
        rm -rf "$BUILDS" && mkdir -p "$BUILDS"
        say "extracted in $(($(date +%s) - T0)) s"
fi

# --- the build tree of this VERSION ------------------------------------------------
# One tree per VERSION, always at the same path (kbuild's tools/objtool records
# absolute paths: a tree that moves is rebuilt from scratch), shared by all keys:
# switching keys restores what the previous patches touched and applies the new
# ones, so make rebuilds only what changed.
TREE=$BUILDS/tree
# The tree is a hard-linked copy of the pristine one: making it costs no
# 1.4 GiB of copying. Nothing here writes into a file it shares with the
# pristine tree: patch(1) writes a new file and renames it over the old,
# kbuild writes only files of its own, and restoring replaces, never
# overwrites (cp --remove-destination); the check after the build says so.
if [ ! -f "$TREE/.numastatd-tree" ]; then
        say "linking the pristine tree to $TREE (first build: full)"
        rm -rf "$TREE" "$TREE.tmp"
        cp -al "$PRISTINE" "$TREE.tmp"
        rm -f "$TREE.tmp/.numastatd-pristine"
        echo "$SRCDESC" >"$TREE.tmp/.numastatd-tree"
        mv "$TREE.tmp" "$TREE"
fi
rm -rf "$K" && mkdir -p "$K"   # .used is stamped on success only

# Paths a patch touches (from its ---/+++ lines, first component stripped).
patch_paths() {
        sed -n -e 's/^\(---\|+++\) \([^\t]*\).*$/\2/p' "$1" | { grep -v '^/dev/null$' || true; } |
                sed -e 's|^[^/]*/||' | LC_ALL=C sort -u
}

# Snapshot (with mtimes) every file the old and the new patches touch, so that
# a file whose content ends up unchanged gets its old mtime back: make then
# rebuilds only what really changed.
APPLIED=$TREE/.numastatd-applied
SNAP=$K/snapshot
mkdir -p "$SNAP"
{
        for p in "$APPLIED"/*.patch "${PATCHES[@]}"; do
                if [ -f "$p" ]; then patch_paths "$p"; fi
        done
} | LC_ALL=C sort -u | while IFS= read -r f; do
        case $f in ''|/*|*..*) continue ;; esac
        if [ -f "$TREE/$f" ]; then
                mkdir -p "$SNAP/$(dirname "$f")"
                cp -p "$TREE/$f" "$SNAP/$f"
        fi
done

# Undo whatever patches the tree carries (recorded in .numastatd-applied/):
# restore the files they touched from the pristine tree, delete the ones they
# created.
if [ -d "$APPLIED" ]; then
        for p in "$APPLIED"/*.patch; do
                [ -e "$p" ] || continue
                while IFS= read -r f; do
                        case $f in ''|/*|*..*) continue ;; esac
                        if [ -f "$PRISTINE/$f" ]; then
                                cp --remove-destination "$PRISTINE/$f" "$TREE/$f"
                        else
                                rm -f "$TREE/$f"
                        fi
                done < <(patch_paths "$p")
        done
        rm -rf "$APPLIED"
fi
find "$TREE" -name '*.rej' -delete

# Apply this key's patches. Each is recorded before it is applied, so a half
# applied one is undone by the next run.
mkdir -p "$APPLIED"
n=0
for p in "${PATCHES[@]}"; do
        n=$((n + 1))
        name=$(basename "$p")
        if ! out=$(patch -p1 --dry-run --batch --forward -d "$TREE" <"$p" 2>&1); then
                echo "$out" >&2
                die "patch $p does not apply to $SRCDESC"
        fi
        cp "$p" "$APPLIED/$(printf '%02d' "$n")-$name"
        say "applying $name"
        patch -p1 --batch --forward --no-backup-if-mismatch -d "$TREE" <"$p" | sed 's/^/  /' >&2 ||
                die "patch $p failed to apply"
done
(cd "$SNAP" && find . -type f -printf '%P\n') | while IFS= read -r f; do
        if [ -f "$TREE/$f" ] && cmp -s "$SNAP/$f" "$TREE/$f"; then
                touch -r "$SNAP/$f" "$TREE/$f"
        fi
done
rm -rf "$SNAP"

# --- configure ------------------------------------------------------------------
MAKE=(make -C "$TREE" ARCH=x86_64 -j"$JOBS"
        KBUILD_BUILD_USER=numastatd KBUILD_BUILD_HOST=vm)
if command -v ccache >/dev/null 2>&1; then
        MAKE+=(CC="ccache gcc")
        say "using ccache"
fi
LOG=$K/build.log
: >"$LOG"
run_make() {
        if ! "${MAKE[@]}" "$@" >>"$LOG" 2>&1; then
                tail -n 60 "$LOG" >&2
                die "make $* failed for $VERSION (full log: $LOG)"
        fi
}

say "configuring: tinyconfig + $(basename "$FRAGMENT")"
run_make -s tinyconfig
SETS=()     # "NAME VALUE" pairs, VALUE y | n | literal
while IFS= read -r line; do
        line=${line%%#*}                          # comment
        line=$(echo "$line" | sed -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//')
        [ -n "$line" ] || continue
        [[ $line =~ ^CONFIG_([A-Za-z0-9_]+)=(.+)$ ]] || die "bad line in $FRAGMENT: $line"
        SETS+=("${BASH_REMATCH[1]} ${BASH_REMATCH[2]}")
done <"$FRAGMENT"
CFG=(--file "$TREE/.config")
for s in "${SETS[@]}"; do
        name=${s%% *}; val=${s#* }
        case $val in
        y) CFG+=(--enable "$name") ;;
        n) CFG+=(--disable "$name") ;;
        m) CFG+=(--module "$name") ;;
        \"*\") v=${val#\"}; CFG+=(--set-str "$name" "${v%\"}") ;;
        *) CFG+=(--set-val "$name" "$val") ;;
        esac
done
"$TREE/scripts/config" "${CFG[@]}"
run_make -s olddefconfig
bad=0
for s in "${SETS[@]}"; do
        name=${s%% *}; val=${s#* }
        have=$(sed -n "s/^CONFIG_${name}=//p" "$TREE/.config")
        if [ "$val" = n ]; then
                [ -z "$have" ] && continue
        elif [ "$have" = "$val" ]; then
                continue
        fi
        say "config: CONFIG_$name wanted '$val', .config has '${have:-not set}'"
        bad=1
done
[ "$bad" -eq 0 ] || die "$VERSION: some options of $FRAGMENT did not survive olddefconfig (missing dependency?)"
cp "$TREE/.config" "$K/config"

# --- build ----------------------------------------------------------------------
say "building bzImage with -j$JOBS (log: $LOG)"
T1=$(date +%s)
run_make bzImage
[ -s "$TREE/arch/x86/boot/bzImage" ] || die "no bzImage after make"
# A file still shared with the pristine tree but newer than the tree was
# written in place: the pristine tree is no longer pristine.
shared=$(find "$TREE" -type f -links +1 -newer "$TREE/.numastatd-tree" -print -quit)
[ -z "$shared" ] || die "$shared, shared with $PRISTINE, was written in place: remove $CACHE/src/$VERSION and build again"
cp "$TREE/System.map" "$K/System.map"
cp "$TREE/arch/x86/boot/bzImage" "$K/bzImage.tmp"
mv "$K/bzImage.tmp" "$K/bzImage"
w=$(grep -ci 'warning:' "$LOG" || true)
[ "${w:-0}" -eq 0 ] || say "$w warning line(s) in $LOG"
{
        echo "source: $SRCDESC"
        echo "recipe: $RECIPE"
        for p in "${PATCHES[@]}"; do echo "patch: $(basename "$p") $(sha256sum <"$p" | cut -c1-16)"; done
        echo "built: $(date -u +%FT%TZ) in $(($(date +%s) - T1)) s"
} >"$K/.done"
touch "$K/.used"
say "$VERSION: built in $(($(date +%s) - T1)) s (total $(($(date +%s) - T0)) s): $K/bzImage"

# --- prune: keep the results of the $KEEP most recently used keys of this version --
i=0
# shellcheck disable=SC2045 # names are hex keys
for u in $(ls -t "$BUILDS"/*/.used 2>/dev/null); do
        d=$(dirname "$u")
        i=$((i + 1))
        if [ "$i" -gt "$KEEP" ] && [ "$d" != "$K" ]; then
                say "pruning old result $d"
                rm -rf "$d"
        fi
done
# Result dirs that never got a .used stamp (interrupted builds) are garbage too.
for d in "$BUILDS"/*/; do
        d=${d%/}
        case $(basename "$d") in tree|tree.tmp) continue ;; esac
        [ -e "$d/.used" ] || [ "$d" = "$K" ] || { say "pruning incomplete $d"; rm -rf "$d"; }
done

echo "$K/bzImage"
