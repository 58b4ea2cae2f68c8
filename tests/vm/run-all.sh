#!/bin/bash
# The VM tests: builds the kernels (cached), packs one initramfs with the
# project's binaries, and boots each (kernel, scenario, topology). Prints one
# TAP stream: every guest check, prefixed by its boot, plus one check per
# boot that it ran to the end; figures come out as "# figure:" lines.
#
# VM_SET=quick (make check-vm, what every change runs; about 8 minutes):
# every kernel booted at least once with its scenario checks: the patched
# 5.10 (kernel checks, the daemon, the kernel's auto, four nodes), mainline
# 6.1 (the daemon, four nodes), Debian's stock 6.1 under systemd 252 and
# Debian 13's 6.12 under systemd 257, without their soaks, Debian 11's
# stock 5.10 under systemd 247 with a short one (10 kills); and the short
# instruction counts on the patched 5.10, 6.1 and the stock 6.1 and 5.10
# (seconds each; the stock kernels' allocator ranges from a boot that reads
# their /proc/kallsyms).
# VM_SET=full (make check-vm-full) adds the studies and soaks: the kill
# soaks (20 on the patched kernel, NUMASTATD_SOAK=100 under systemd), the
# off_mode study, the daemon's scenarios on the stock kernel without
# systemd, the reaction and allocator benches, the short macro study and
# the collectors VMs (Debian 12's and 11's). VM_ONLY="NAME..." boots just those, with their soaks.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
WORK=$(mktemp -d /tmp/numastatd-vm-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

. "$HERE/lib.sh"
vm_prepare || exit 1

boot() {  # boot NAME KERNEL SCENARIO [run-vm.sh options]
        local name=$1 kernel=$2 scenario=$3
        shift 3
        local results="$WORK/$name.results" console="$WORK/$name.console" start=$SECONDS rc
        "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$WORK/initrd.cpio.gz" --scenario "$scenario" \
                --results "$results" --console "$console" "$@" > "$WORK/$name.tap"
        rc=$?
        relay "$WORK/$name.tap" "$name"
        emit $rc "[$name] boot ran the scenario to the end ($((SECONDS - start)) s)"
        if [ $rc -ne 0 ]; then
                echo "# [$name] last console lines:"
                tail -30 "$console" 2>/dev/null | sed 's/^/#   /'
        fi
}

# insn NAME KERNEL SYSTEM_MAP KIND: guest instructions per page, counting on
# and off, counted by the TCG plugin (tests/vm/insn-count.c): a short run
# here (sanity bounds only); make bench-vm runs the full study.
insn() {
        local name=$1 kernel=$2 map=$3 kind=$4 spec start=$SECONDS rc
        local pages=${NUMASTATD_INSN_PAGES:-4000} rounds=${NUMASTATD_INSN_ROUNDS:-3}
        spec=$(plugin_spec "$name" "$map")
        "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$WORK/initrd.cpio.gz" --scenario insn \
                --plugin "$spec" --plugin-log "$WORK/$name.plugin" --append "vm_insn_pages=$pages vm_insn_rounds=$rounds" \
                --results "$WORK/$name.results" --console "$WORK/$name.console" > "$WORK/$name.tap"
        rc=$?
        python3 "$HERE/insn-figure.py" "$WORK/$name.plugin" "$pages" "$rounds" 0 "$kind" >> "$WORK/$name.tap" || rc=1
        relay "$WORK/$name.tap" "$name"
        emit $rc "[$name] counted instructions on and off to the end ($((SECONDS - start)) s)"
        [ $rc -eq 0 ] || tail -30 "$WORK/$name.console" 2>/dev/null | sed 's/^/#   /'
}

# macro NAME KERNEL SYSTEM_MAP PROFILE SECONDS: the macro study, short (one
# profile, one kernel, linger 30s so that the daemon's warm-up fits) and
# with sanity bounds only (markers, the oracle, the guest's own checks);
# make bench-vm runs the whole study.
macro() {
        local name=$1 kernel=$2 map=$3 profile=$4 seconds=$5 spec start=$SECONDS rc
        spec=$(plugin_spec "$name" "$map")
        "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$WORK/initrd.cpio.gz" --scenario macro --timeout 1200 \
                --plugin "$spec" --plugin-log "$WORK/$name.plugin" \
                --append "vm_macro_seconds=$seconds vm_macro_profile=$profile vm_macro_linger=30s" \
                --results "$WORK/$name.results" --console "$WORK/$name.console" > "$WORK/$name.tap"
        rc=$?
        ORACLE_TRACE=$BUILDDIR/tests/bench/oracle-trace python3 "$HERE/macro-figure.py" "$WORK/$name.figure" \
                "$WORK/$name.results" "$WORK/$name.plugin" >> "$WORK/$name.tap" || rc=1
        relay "$WORK/$name.tap" "$name"
        emit $rc "[$name] the macro study, profile $profile, ran to the end ($((SECONDS - start)) s)"
        [ $rc -eq 0 ] || tail -30 "$WORK/$name.console" 2>/dev/null | sed 's/^/#   /'
}

only=${VM_ONLY:-}
set=${VM_SET:-quick}
case $set in
quick | full) ;;
*) echo "Bail out! VM_SET=$set: quick or full"; exit 1 ;;
esac
# want NAME [full]: whether to boot NAME: named in VM_ONLY, or (without
# VM_ONLY) in this set; "full" marks the boots only the full set has.
want() {
        if [ -n "$only" ]; then
                [[ " $only " == *" $1 "* ]]
        else
                [ "${2:-}" != full ] || [ "$set" = full ]
        fi
}
# The patched kernel's kill soak and off_mode study (patched.sh): the full set's.
soak510=0 study510=0
{ [ "$set" = full ] || [ -n "$only" ]; } && soak510=${NUMASTATD_PATCHED_SOAK:-20} study510=1
want kernel-5.10 && boot kernel-5.10 "$K510" kernel-checks
want daemon-6.1 && boot daemon-6.1 "$K61" daemon
want daemon-5.10 && boot daemon-5.10 "$K510" daemon
want daemon-stock full && boot daemon-stock "$KSTOCK" daemon
want auto-5.10 && boot auto-5.10 "$K510" patched --timeout 600 --append "vm_patched_soak=$soak510 vm_patched_study=$study510"
want bench-6.1 full && boot bench-6.1 "$K61" bench
want bench-5.10 full && boot bench-5.10 "$K510" bench
want insn-5.10 && insn insn-5.10 "$K510" "$(dirname "$K510")/System.map" "patched $(basename "$(dirname "$(dirname "$K510")")")"
want insn-6.1 && insn insn-6.1 "$K61" "$(dirname "$K61")/System.map" "mainline 6.1"
if want insn-stock; then
        kallsyms_ranges kallsyms-stock "$KSTOCK"
        insn insn-stock "$KSTOCK" "$WORK/kallsyms-stock.ranges" "Debian's stock 6.1"
fi
if want insn-stock-5.10; then
        if [ -z "$KSTOCK510" ]; then
                n=$((n + 1))
                echo "ok $n - [insn-stock-5.10] Debian 11's stock 5.10 # SKIP not cached: $(tail -n 1 "$WORK/kstock510.err")"
        else
                kallsyms_ranges kallsyms-stock-5.10 "$KSTOCK510"
                insn insn-stock-5.10 "$KSTOCK510" "$WORK/kallsyms-stock-5.10.ranges" "Debian 11's stock 5.10"
        fi
fi
want macro-6.1 full && macro macro-6.1 "$K61" "$(dirname "$K61")/System.map" d 45
want nodes-6.1 && boot nodes-6.1 "$K61" nodes --nodes 4 --cpus 8 --mem 2048
want nodes-5.10 && boot nodes-5.10 "$K510" nodes --nodes 4 --cpus 8 --mem 2048
if want systemd; then
        start=$SECONDS
        # The soak (NUMASTATD_SOAK kills, 100 by default) is the full set's.
        soak=${NUMASTATD_SOAK:-100}
        { [ "$set" = full ] || [ -n "$only" ]; } || soak=0
        NUMASTATD_SOAK=$soak TEST_BUILDDIR="$BUILDDIR" "$HERE/systemd/run.sh" > "$WORK/systemd.tap" 2> "$WORK/systemd.err"
        rc=$?
        relay "$WORK/systemd.tap" systemd
        emit $rc "[systemd] Debian 12 with systemd as PID 1 ran the test to the end ($((SECONDS - start)) s)"
        [ $rc -eq 0 ] || tail -30 "$WORK/systemd.err" | sed 's/^/#   /'
fi
if want systemd-collectors full; then
        start=$SECONDS
        TEST_BUILDDIR="$BUILDDIR" "$HERE/systemd/run.sh" collectors > "$WORK/collectors.tap" 2> "$WORK/collectors.err"
        rc=$?
        relay "$WORK/collectors.tap" collectors
        emit $rc "[collectors] Debian 12's collectors under systemd, judged by the known-readers catalogue ($((SECONDS - start)) s)"
        [ $rc -eq 0 ] || tail -30 "$WORK/collectors.err" | sed 's/^/#   /'
fi
# Debian 13 under systemd 257, with the trixie package (scripts/test.sh
# builds it first and sets NUMASTATD_VM_DEB_TRIXIE); without its soak
# (systemd/run.sh says why). NUMASTATD_VM_TRIXIE=0 leaves it out. A skip
# says so.
if want systemd-trixie; then
        start=$SECONDS
        if [ "${NUMASTATD_VM_TRIXIE:-}" = 0 ] && [[ " $only " != *" systemd-trixie "* ]]; then
                n=$((n + 1))
                echo "ok $n - [trixie] Debian 13 with systemd 257 # SKIP NUMASTATD_VM_TRIXIE=0 is set"
        elif [ -z "${NUMASTATD_VM_DEB_TRIXIE:-}" ]; then
                n=$((n + 1))
                echo "ok $n - [trixie] Debian 13 with systemd 257 # SKIP no trixie package: scripts/build-deb.sh --suite=trixie, then NUMASTATD_VM_DEB_TRIXIE=PATH"
        else
                TEST_BUILDDIR="$BUILDDIR" "$HERE/systemd/run.sh" trixie > "$WORK/trixie.tap" 2> "$WORK/trixie.err"
                rc=$?
                relay "$WORK/trixie.tap" trixie
                emit $rc "[trixie] Debian 13 with systemd 257 and its varlinkctl ran the test to the end ($((SECONDS - start)) s)"
                [ $rc -eq 0 ] || tail -30 "$WORK/trixie.err" | sed 's/^/#   /'
        fi
fi

# Debian 11 under systemd 247, on Debian 11's own stock 5.10 kernel, with
# the bullseye package (scripts/test.sh builds it first and sets
# NUMASTATD_VM_DEB_BULLSEYE); a short soak (10 kills) here, the full one
# (NUMASTATD_SOAK, 100) in the full set. A skip says why it did not run.
if want systemd-bullseye; then
        start=$SECONDS
        soak=10
        { [ "$set" = full ] || [ -n "$only" ]; } && soak=${NUMASTATD_SOAK:-100}
        if [ -z "${NUMASTATD_VM_DEB_BULLSEYE:-}" ]; then
                n=$((n + 1))
                echo "ok $n - [bullseye] Debian 11 with systemd 247 # SKIP no bullseye package: scripts/build-deb.sh --suite=bullseye, then NUMASTATD_VM_DEB_BULLSEYE=PATH"
        else
                NUMASTATD_SOAK=$soak TEST_BUILDDIR="$BUILDDIR" "$HERE/systemd/run.sh" bullseye \
                        > "$WORK/bullseye.tap" 2> "$WORK/bullseye.err"
                rc=$?
                relay "$WORK/bullseye.tap" bullseye
                emit $rc "[bullseye] Debian 11 with systemd 247 on its stock 5.10 kernel ran the test to the end ($((SECONDS - start)) s)"
                [ $rc -eq 0 ] || tail -30 "$WORK/bullseye.err" | sed 's/^/#   /'
        fi
fi

# Debian 11's collectors under the bullseye package (the full set's).
if want systemd-bullseye-collectors full; then
        start=$SECONDS
        if [ -z "${NUMASTATD_VM_DEB_BULLSEYE:-}" ]; then
                n=$((n + 1))
                echo "ok $n - [bullseye-collectors] Debian 11's collectors # SKIP no bullseye package: scripts/build-deb.sh --suite=bullseye, then NUMASTATD_VM_DEB_BULLSEYE=PATH"
        else
                TEST_BUILDDIR="$BUILDDIR" "$HERE/systemd/run.sh" bullseye-collectors \
                        > "$WORK/bullseye-collectors.tap" 2> "$WORK/bullseye-collectors.err"
                rc=$?
                relay "$WORK/bullseye-collectors.tap" bullseye-collectors
                emit $rc "[bullseye-collectors] Debian 11's collectors under systemd 247, judged by the catalogue ($((SECONDS - start)) s)"
                [ $rc -eq 0 ] || tail -30 "$WORK/bullseye-collectors.err" | sed 's/^/#   /'
        fi
fi

echo "1..$n"
[ $failed -eq 0 ]
