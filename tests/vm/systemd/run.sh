#!/bin/bash
# numastatd under a real systemd as PID 1, in a VM: boots Debian 12's stock 6.1
# kernel with a Debian 12 root filesystem as its initramfs, systemd as PID 1
# (rdinit=/lib/systemd/systemd), 2 NUMA nodes of one CPU each, and runs
# tests/vm/systemd/guest-test.sh there: systemctl enable --now, numastatctl
# status, socket activation, reload, kill -9 (ExecStopPost= restore, restart),
# the journal's transition entries, systemd-analyze security, a clean stop.
#
#   tests/vm/systemd/run.sh [collectors | trixie | bullseye | bullseye-collectors]
#
# With "collectors" the root filesystem has Debian's monitoring programs too
# (build-rootfs.sh collectors) and the guest runs guest-collectors.sh: the
# known-readers catalogue judging them under their own units. With "trixie"
# it is Debian 13 (systemd 257) on Debian 13's stock 6.12 kernel, the
# package (NUMASTATD_VM_DEB_TRIXIE, from scripts/build-deb.sh
# --suite=trixie; required) installed with apt, the same guest-test.sh
# on one CPU (below) and without the soak by default (NUMASTATD_SOAK=N
# asks for one: with two CPUs under TCG it has panicked the stock 6.12
# kernel; the one kill -9 and its restart are checked all the same, and
# Debian 12's VM soaks) and, since the guest has it, systemd's own varlink
# client varlinkctl. With "bullseye" it is Debian 11 (systemd 247) on
# Debian 11's stock 5.10 kernel, where the NUMA counters are still the
# costly shared ones: the package (NUMASTATD_VM_DEB_BULLSEYE, from
# scripts/build-deb.sh --suite=bullseye; required) installed with dpkg, the
# same guest-test.sh, a short soak by default (NUMASTATD_SOAK, 10 kills).
# "bullseye-collectors" is "collectors" on Debian 11, with that package.
#
# Prints TAP on stdout (the guest's checks, renumbered, plus this script's own;
# figures as "# figure:" lines); progress goes to stderr. Exit status 0 iff
# every check passed and the guest's "VM-DONE rc=0" marker arrived.
#
# Requirements:
#   - root (debootstrap; the rootfs is a tree of root-owned files);
#   - scripts/install-vm-deps.sh run once: qemu-system-x86_64, cpio, debootstrap,
#     and Debian's stock kernel .deb in the cache (tests/vm/stock-kernel.sh);
#   - the Debian archive reachable (NUMASTATD_VM_MIRROR, default
#     http://deb.debian.org/debian) the first time, and whenever the package
#     list in build-rootfs.sh changes: the rootfs is cached in
#     ${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}/rootfs-bookworm*
#     (≈ 270 MiB tree + ≈ 115 MiB cpio);
#   - a configured and built tree: ${TEST_BUILDDIR:-build} (make install is
#     run from it into a temporary staging directory, with the prefix it was
#     configured with, so that the unit's ExecStart= and the binaries agree).
# Environment: NUMASTATD_VM_TIMEOUT (seconds, default 900, collectors 1500,
# the longest seen under TCG on a busy host being about 900; under TCG the
# default test takes some 7 minutes, most of it the soak's 100 kills),
# NUMASTATD_SOAK (kills, default 100), NUMASTATD_VM_ACCEL
# (see run-vm.sh), NUMASTATD_VM_KEEP=1 keeps the work directory (images,
# console log) even when everything passed.
#
# Layout of the boot: initrd = rootfs-bookworm.cpio, zero padding to a 4-byte
# boundary, then a second newc cpio with the staged install, the test unit
# numastatd-vmtest.service (enabled by a symlink in multi-user.target.wants),
# guest-test.sh and tests/vm/guest/tap.sh under /usr/lib/numastatd-vmtest/.
# A piece that does not start 4-byte aligned makes the kernel print
# "Initramfs unpacking failed: ..." ("invalid magic ...", or "broken padding")
# and boot on without it; the run fails on that line (run-vm.sh, and a check here).
# The second cpio holds no entry for a directory the first one has (the kernel
# would reset its mode to the staging directory's), and the install is moved
# into /usr where the rootfs has the merged-/usr symlinks (/lib, /bin, /sbin):
# a directory entry "lib" would replace the symlink /lib -> usr/lib.
set -uo pipefail

PROG=systemd/run.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VMDIR=$(cd "$HERE/.." && pwd)
SRCDIR=$(cd "$HERE/../../.." && pwd)
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
CACHE=${NUMASTATD_VM_CACHE:-/var/cache/numastatd-vm}
VARIANT=${1:-}
SUITE=bookworm SUITE_NAME="Debian 12" SOAK_DEFAULT=100 INSTALL_WITH=dpkg SECURITY_MAX=3.0
# The fallbacks numastatctl status must list there, and only those (each a
# phrase of its line): stock 6.1 has no mount events (6.14) and systemd
# 252's filter refuses statmount().
FALLBACKS="no mount events|no statmount()"
case $VARIANT in
"") GUEST=guest-test.sh MEM=1024 ;;
collectors) GUEST=guest-collectors.sh MEM=2048 TIMEOUT_DEFAULT=1500 ;;
trixie)
        GUEST=guest-test.sh MEM=1024 SUITE=trixie SUITE_NAME="Debian 13" SOAK_DEFAULT=0 INSTALL_WITH=apt SECURITY_MAX=2.4
        # Switching vm.numa_stat flips a static key, which 6.12 patches in
        # the running text with int3; under TCG with two CPUs online the
        # other CPU has hit that int3 in get_page_from_freelist and panicked
        # ("Oops: int3"). One CPU online (node 1 keeps its memory) avoids it.
        KERNEL_APPEND=maxcpus=1
        FALLBACKS="no mount events"
        NUMASTATD_VM_DEB=${NUMASTATD_VM_DEB_TRIXIE:-} ;;
bullseye-collectors)
        # Debian 11's collectors (build-rootfs.sh bullseye-collectors) under
        # the bullseye package, on Debian 11's stock 5.10.
        GUEST=guest-collectors.sh MEM=2048 TIMEOUT_DEFAULT=1500 SUITE=bullseye SUITE_NAME="Debian 11"
        NUMASTATD_VM_DEB=${NUMASTATD_VM_DEB_BULLSEYE:-} ;;
bullseye)
        GUEST=guest-test.sh MEM=1024 SUITE=bullseye SUITE_NAME="Debian 11" SOAK_DEFAULT=10 SECURITY_MAX=2.4
        # 5.10.223 has fanotify's pidfds (backported to 5.10's stable
        # series), not taskstats' version 12, mount events or statmount();
        # libsystemd 247's missing event source rate limit is the daemon's
        # own (lib/event-ratelimit.c), not a fallback that costs.
        FALLBACKS="exit records of version 10|no mount events|no statmount()"
        NUMASTATD_VM_DEB=${NUMASTATD_VM_DEB_BULLSEYE:-} ;;
*) echo "systemd/run.sh: unknown variant '$VARIANT' (expected collectors, trixie, bullseye or bullseye-collectors)" >&2; exit 2 ;;
esac
TIMEOUT=${NUMASTATD_VM_TIMEOUT:-${TIMEOUT_DEFAULT:-900}}

say() { echo "$PROG: $*" >&2; }
bail() { failed=1; echo "Bail out! $*"; exit 1; }
now() { date +%s.%N; }
secs() { printf '%.1f' "$(echo "$2 - $1" | bc)"; }

. "$VMDIR/lib.sh"        # emit

[ "$(id -u)" -eq 0 ] || bail "run as root (debootstrap)"
command -v qemu-system-x86_64 >/dev/null || bail "qemu-system-x86_64 missing: scripts/install-vm-deps.sh"
command -v cpio >/dev/null || bail "cpio missing: scripts/install-vm-deps.sh"
for b in numastatd numastatctl; do
        [ -x "$BUILDDIR/$b" ] || bail "$BUILDDIR/$b is not built (make, or make check-vm)"
done
for f in run-vm.sh stock-kernel.sh guest/tap.sh; do
        [ -f "$VMDIR/$f" ] || bail "tests/vm/$f is missing"
done

umask 022
WORK=$(mktemp -d "${TMPDIR:-/tmp}/numastatd-vm-systemd.XXXXXX")
chmod 755 "$WORK"
keep=${NUMASTATD_VM_KEEP:-}
cleanup() {
        if [ -n "$keep" ] || [ "$failed" -ne 0 ]; then
                say "work directory kept: $WORK (console.log, results.log, initrd.cpio)"
        else
                rm -rf "$WORK"
        fi
}
trap cleanup EXIT

# ---- the rootfs (cached) --------------------------------------------------------
T0=$(now)
ROOTFS_CPIO=$("$HERE/build-rootfs.sh" $VARIANT) || bail "cannot build the $SUITE_NAME rootfs (build-rootfs.sh $VARIANT)"
case $VARIANT in
trixie | bullseye | bullseye-collectors) ROOTFS_DIR=$CACHE/rootfs-$VARIANT ;;
*) ROOTFS_DIR=$CACHE/rootfs-bookworm${VARIANT:+-$VARIANT} ;;
esac
[ -s "$ROOTFS_CPIO.dirs" ] && [ -d "$ROOTFS_DIR" ] || bail "$ROOTFS_CPIO.dirs or $ROOTFS_DIR missing"
T1=$(now)

# ---- the project, staged ---------------------------------------------------------
STAGE=$WORK/stage
mkdir -p "$STAGE"
DEB=${NUMASTATD_VM_DEB:-}
[ "$SUITE" = bookworm ] || [ -n "$DEB" ] ||
        bail "the $SUITE_NAME VM needs its package: NUMASTATD_VM_DEB_${SUITE^^} (scripts/build-deb.sh --suite=$SUITE)"
if [ -n "$DEB" ]; then
        # The Debian package (scripts/build-deb.sh): the guest installs it
        # with dpkg, as a user would, instead of a staged make install.
        [ -f "$DEB" ] || bail "NUMASTATD_VM_DEB=$DEB is not a file"
        mkdir -p "$STAGE/usr/lib/numastatd-vmtest"
        install -m 644 "$DEB" "$STAGE/usr/lib/numastatd-vmtest/"
        DEB_GUEST=/usr/lib/numastatd-vmtest/$(basename "$DEB")
        say "staged the package $(basename "$DEB")"
elif ! make -C "$BUILDDIR" install DESTDIR="$STAGE" >"$WORK/install.log" 2>&1; then
        # Until every installed file exists (man pages are on their way),
        # install what the test needs piece by piece.
        echo "# make install failed ($(grep -m1 -E '\*\*\*|rror' "$WORK/install.log" | sed 's/^ *//')); installing the programs, units, interface and config piecewise"
        rm -rf "$STAGE"; mkdir -p "$STAGE"
        make -C "$BUILDDIR" install-sbinPROGRAMS install-binPROGRAMS install-systemdsystemunitDATA \
                install-dist_varlinkDATA install-data-local DESTDIR="$STAGE" >>"$WORK/install.log" 2>&1 ||
                { tail -n 20 "$WORK/install.log" >&2; bail "make install into $STAGE failed"; }
fi
if [ -z "$DEB" ]; then
unit=$(find "$STAGE" -name numastatd.service -path '*/systemd/system/*' | head -1)
[ -n "$unit" ] || bail "make install installed no numastatd.service"
if [ ! -e "$(dirname "$unit")/numastatd.socket" ]; then
        echo "# make install did not install numastatd.socket; copied from systemd/"
        install -m 644 "$SRCDIR/systemd/numastatd.socket" "$(dirname "$unit")/"
fi
sbin=$(find "$STAGE" -type f -name numastatd -perm -u+x | head -1)
bin=$(find "$STAGE" -type f -name numastatctl -perm -u+x | head -1)
conf=$(find "$STAGE" -type f -name numastatd.conf | head -1)
[ -n "$sbin" ] && [ -n "$bin" ] && [ -n "$conf" ] || bail "make install left out numastatd, numastatctl or numastatd.conf"
exec_start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
[ -x "$STAGE$exec_start" ] || bail "the installed unit's ExecStart=$exec_start is not in the install"
exec_start_post=$(sed -n 's/^ExecStopPost=\([^ ]*\).*/\1/p' "$unit")
[ -x "$STAGE$exec_start_post" ] || bail "the installed unit's ExecStopPost=$exec_start_post is not in the install"
say "installed $(ls "$(dirname "$unit")" | tr '\n' ' ')into ${unit#$STAGE}, ${sbin#$STAGE}, ${bin#$STAGE}, ${conf#$STAGE}"
else
        # Where the package puts them.
        conf=$STAGE/etc/numastatd.conf sbin=$STAGE/usr/sbin/numastatd bin=$STAGE/usr/bin/numastatctl
fi

# The test unit and its scripts.
mkdir -p "$STAGE/usr/lib/numastatd-vmtest" "$STAGE/etc/systemd/system/multi-user.target.wants"
install -m 755 "$HERE/$GUEST" "$STAGE/usr/lib/numastatd-vmtest/$GUEST"
install -m 644 "$HERE/guest-lib.sh" "$STAGE/usr/lib/numastatd-vmtest/guest-lib.sh"
# The allocation load under which counting may go off.
# Linked statically for Debian 11, whose C library is older than ours.
ALLOC_LOAD=alloc-load
[ "$SUITE" = bullseye ] && ALLOC_LOAD=alloc-load-static
[ -x "$BUILDDIR/tests/vm/$ALLOC_LOAD" ] || bail "$BUILDDIR/tests/vm/$ALLOC_LOAD is not built (make check-vm builds it)"
install -m 755 "$BUILDDIR/tests/vm/$ALLOC_LOAD" "$STAGE/usr/lib/numastatd-vmtest/alloc-load"
install -m 644 "$VMDIR/guest/tap.sh" "$STAGE/usr/lib/numastatd-vmtest/tap.sh"
cat >"$STAGE/etc/numastatd-vmtest.env" <<EOF
NUMASTATD_CONF=${conf#$STAGE}
NUMASTATD_SBIN=$(dirname "${sbin#$STAGE}")
NUMASTATD_BIN=$(dirname "${bin#$STAGE}")
NUMASTATD_DEB=${DEB_GUEST:-}
NUMASTATD_INSTALL_WITH=$INSTALL_WITH
NUMASTATD_SECURITY_MAX=$SECURITY_MAX
NUMASTATD_FALLBACKS='${FALLBACKS:-}'
NUMASTATD_SOAK=${NUMASTATD_SOAK:-$SOAK_DEFAULT}
EOF
cat >"$STAGE/etc/systemd/system/numastatd-vmtest.service" <<EOF
[Unit]
Description=numastatd VM test (TAP on /dev/ttyS1, then poweroff)
# Type=exec, not oneshot: a oneshot keeps is-system-running at "starting".
After=multi-user.target

[Service]
Type=exec
EnvironmentFile=/etc/numastatd-vmtest.env
ExecStart=/usr/lib/numastatd-vmtest/$GUEST
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
ln -s /etc/systemd/system/numastatd-vmtest.service \
        "$STAGE/etc/systemd/system/multi-user.target.wants/numastatd-vmtest.service"

# Merged /usr: what went to /lib, /bin, /sbin goes where those symlinks point.
for top in "$STAGE"/*; do
        name=${top##*/}
        if [ -L "$ROOTFS_DIR/$name" ] && [ -d "$top" ] && [ ! -L "$top" ]; then
                target=$(readlink "$ROOTFS_DIR/$name")
                case $target in /*) ;; *) target=/$target ;; esac
                mkdir -p "$STAGE$target"
                cp -a "$top"/. "$STAGE$target"/
                rm -rf "$top"
        fi
done
# Nothing may change a path's type from what the rootfs has.
conflicts=$(cd "$STAGE" && find . -mindepth 1 | while IFS= read -r p; do
        r=$ROOTFS_DIR/${p#./}
        if [ -d "$p" ] && [ ! -L "$p" ] && [ -L "$r" ]; then echo "${p#.}"; fi
        if { [ ! -d "$p" ] || [ -L "$p" ]; } && [ -d "$r" ] && [ ! -L "$r" ]; then echo "${p#.}"; fi
done)
[ -z "$conflicts" ] || bail "the install would replace rootfs symlinks or directories: $(echo $conflicts)"

# ---- pack: rootfs cpio + padding + project cpio ---------------------------------------
T2=$(now)
(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort | while IFS= read -r p; do
        if [ -d "$p" ] && [ ! -L "$p" ] && grep -qxF -- "${p#./}" "$ROOTFS_CPIO.dirs"; then continue; fi
        echo "$p"
done) >"$WORK/project.list"
(cd "$STAGE" && cpio --quiet -o -H newc --owner 0:0 <"$WORK/project.list") >"$WORK/project.cpio" ||
        bail "cannot pack the project cpio"
INITRD=$WORK/initrd.cpio
cp "$ROOTFS_CPIO" "$INITRD"
size=$(stat -c %s "$INITRD")
offset=$(((size + 3) / 4 * 4))
truncate -s "$offset" "$INITRD"
cat "$WORK/project.cpio" >>"$INITRD"
T3=$(now)
emit "$([ $((offset % 4)) -eq 0 ] && [ "$(head -c $((offset + 6)) "$INITRD" | tail -c 6)" = 070701 ]; echo $?)" \
        "the project cpio ($(wc -l <"$WORK/project.list") entries) starts at a 4-byte aligned offset ($offset) of the initrd"

# ---- boot -----------------------------------------------------------------------------
KERNEL=$("$VMDIR/stock-kernel.sh" --suite=$SUITE --elf 2>"$WORK/kernel.log") ||
        KERNEL=$("$VMDIR/stock-kernel.sh" --suite=$SUITE 2>>"$WORK/kernel.log") ||
        { cat "$WORK/kernel.log" >&2; bail "cannot get $SUITE_NAME's stock kernel (tests/vm/stock-kernel.sh --suite=$SUITE)"; }
say "booting $(basename "$(dirname "$(dirname "$KERNEL")")")/$(basename "$KERNEL") with systemd as PID 1"
T4=$(now)
"$VMDIR/run-vm.sh" --kernel "$KERNEL" --initrd "$INITRD" --nodes 2 --cpus 2 --mem "$MEM" \
        --timeout "$TIMEOUT" --append "rdinit=/lib/systemd/systemd${KERNEL_APPEND:+ $KERNEL_APPEND}" \
        --results "$WORK/results.log" --console "$WORK/console.log" >"$WORK/guest.tap"
vm_rc=$?
T5=$(now)

guest_n=0 guest_plan=
while IFS= read -r line; do
        case $line in
        "ok "*) guest_n=$((guest_n + 1)); emit 0 "${line#ok * - }" ;;
        "not ok "*) guest_n=$((guest_n + 1)); emit 1 "${line#not ok * - }" ;;
        "1.."*) guest_plan=${line#1..} ;;
        "#"*) echo "$line" ;;
        esac
done <"$WORK/guest.tap"
emit "$([ -n "$guest_plan" ] && [ "$guest_plan" = "$guest_n" ]; echo $?)" \
        "the guest's plan arrived and matches its checks (plan ${guest_plan:-none}, $guest_n checks)"
unpack_err=$(grep -m1 'Initramfs unpacking failed' "$WORK/console.log" 2>/dev/null | tr -d '\r')
emit "$([ -z "$unpack_err" ]; echo $?)" "the kernel unpacked both cpio archives${unpack_err:+ ($unpack_err)}"
emit $vm_rc "the VM ran the test to the end: VM-DONE rc=0, no panic, no timeout (run-vm.sh)"
if [ "$vm_rc" -ne 0 ]; then
        echo "# last console lines:"
        tail -n 40 "$WORK/console.log" 2>/dev/null | tr -d '\r' | sed 's/^/#   /'
fi
echo "# figure: rootfs_build_or_cache_s=$(secs "$T0" "$T1") pack_s=$(secs "$T2" "$T3") boot_to_poweroff_s=$(secs "$T4" "$T5")"
echo "1..$n"
[ "$failed" -eq 0 ]
