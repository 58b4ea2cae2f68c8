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
# systemd_vm TAG WHAT VARIANT [VAR=VALUE...]: tests/vm/systemd/run.sh
# VARIANT ("" for Debian 12) with the variables given, its checks relayed
# as [TAG], then one check that it ran to the end.
systemd_vm() {
        local tag=$1 what=$2 variant=$3 start=$SECONDS rc
        shift 3
        env "$@" TEST_BUILDDIR="$BUILDDIR" "$HERE/systemd/run.sh" ${variant:+"$variant"} \
                > "$WORK/$tag.tap" 2> "$WORK/$tag.err"
        rc=$?
        relay "$WORK/$tag.tap" "$tag"
        emit $rc "[$tag] $what ($((SECONDS - start)) s)"
        [ $rc -eq 0 ] || tail -30 "$WORK/$tag.err" | sed 's/^/#   /'
}
# no_package TAG WHAT SUITE: whether SUITE's package is missing
# (NUMASTATD_VM_DEB_SUITE, which scripts/test.sh sets after building it);
# if so, [TAG] is skipped, saying so.
no_package() {
        local var=NUMASTATD_VM_DEB_${3^^}
        [ -z "${!var:-}" ] || return 1
        n=$((n + 1))
        echo "ok $n - [$1] $2 # SKIP no $3 package: scripts/build-deb.sh --suite=$3, then $var=PATH"
}

if want systemd; then
        # The soak (NUMASTATD_SOAK kills, 100 by default) is the full set's.
        soak=${NUMASTATD_SOAK:-100}
        { [ "$set" = full ] || [ -n "$only" ]; } || soak=0
        systemd_vm systemd "Debian 12 with systemd as PID 1 ran the test to the end" "" NUMASTATD_SOAK=$soak
fi
want systemd-collectors full &&
        systemd_vm collectors "Debian 12's collectors under systemd, judged by the known-readers catalogue" collectors
# Debian 13 under systemd 257, with the trixie package; without its soak
# (systemd/run.sh says why). NUMASTATD_VM_TRIXIE=0 leaves it out. A skip
# says so.
if want systemd-trixie; then
        if [ "${NUMASTATD_VM_TRIXIE:-}" = 0 ] && [[ " $only " != *" systemd-trixie "* ]]; then
                n=$((n + 1))
                echo "ok $n - [trixie] Debian 13 with systemd 257 # SKIP NUMASTATD_VM_TRIXIE=0 is set"
        elif ! no_package trixie "Debian 13 with systemd 257" trixie; then
                systemd_vm trixie "Debian 13 with systemd 257 and its varlinkctl ran the test to the end" trixie
        fi
fi

# Debian 11 under systemd 247, on Debian 11's own stock 5.10 kernel, with
# the bullseye package; a short soak (10 kills) here, the full one
# (NUMASTATD_SOAK, 100) in the full set; and, in the full set, Debian 11's
# collectors.
if want systemd-bullseye && ! no_package bullseye "Debian 11 with systemd 247" bullseye; then
        soak=10
        { [ "$set" = full ] || [ -n "$only" ]; } && soak=${NUMASTATD_SOAK:-100}
        systemd_vm bullseye "Debian 11 with systemd 247 on its stock 5.10 kernel ran the test to the end" bullseye \
                NUMASTATD_SOAK=$soak
fi
if want systemd-bullseye-collectors full && ! no_package bullseye-collectors "Debian 11's collectors" bullseye; then
        systemd_vm bullseye-collectors "Debian 11's collectors under systemd 247, judged by the catalogue" \
                bullseye-collectors
fi

echo "1..$n"
[ $failed -eq 0 ]
