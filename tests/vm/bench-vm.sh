#!/bin/bash
# make bench-vm: what counting off buys, in guest instructions counted by
# the TCG plugin (tests/vm/insn-count.c), on the patched 5.10, mainline 6.1
# and Debian's stock 6.1 and 5.10 (Debian 11's, where build-rootfs.sh
# bullseye cached it). Not part of CI: about 2 hours on 2 cores.
#
#   micro  guest instructions per allocated page with counting on and off,
#          BENCH_PAGES pages (64000) x BENCH_ROUNDS paired rounds (7) on one
#          pinned vCPU of an idle guest (tests/vm/guest/scenarios/insn.sh)
#   macro  one workload under each strategy side by side in one boot per
#          kernel (patched 5.10, mainline 6.1) and reader profile
#          (BENCH_PROFILES, default "a b c d"), BENCH_SECONDS (150) each
#          (tests/vm/guest/scenarios/macro.sh), set against the oracle
#
# BENCH_KERNELS (names below, default all), BENCH_STUDIES (default
# "micro macro") and BENCH_PROFILES choose a part, for a quick look;
# BENCH_LINGER (default 5min, the shipped default) is the daemon's linger.
#
# Writes $OUT (default BUILDDIR/bench-vm): micro.md, macro.md, macro.svg and
# the plugin logs; prints every figure as "# figure:" lines and TAP sanity
# checks. Each table names the date, the kernels and this command.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
OUT=${BENCH_OUT:-$BUILDDIR/bench-vm}
PAGES=${BENCH_PAGES:-64000} ROUNDS=${BENCH_ROUNDS:-7} SECONDS_EACH=${BENCH_SECONDS:-150}
LINGER=${BENCH_LINGER:-5min}
WORK=$OUT/work
STUDIES=${BENCH_STUDIES:-micro macro}
PROFILES=${BENCH_PROFILES:-a b c d}
export ORACLE_TRACE=$BUILDDIR/tests/bench/oracle-trace
[ -x "$ORACLE_TRACE" ] || { echo "bench-vm: $ORACLE_TRACE is not built (make bench-vm builds it)" >&2; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
START=$SECONDS

. "$HERE/lib.sh"
vm_prepare || exit 1

# boot NAME STUDY SCENARIO TIMEOUT APPEND: one boot of the study on the
# kernel in $kernel with the plugin in $spec; its files are $WORK/NAME.STUDY.*
boot() {
        local base="$WORK/$1.$2"
        "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$WORK/initrd.cpio.gz" --scenario "$3" --timeout "$4" \
                --plugin "$spec" --plugin-log "$base.plugin" --append "$5" \
                --results "$base.results" --console "$base.console" > "$base.tap"
        emit $? "[$1] $2: the boot ran to the end"
}

# Debian's stock kernels have no System.map: their ranges come from a
# boot that reads /proc/kallsyms (kallsyms_ranges).
KERNELS=("patched-5.10|$K510|$(dirname "$K510")/System.map|patched 5.10"
         "mainline-6.1|$K61|$(dirname "$K61")/System.map|mainline 6.1"
         "stock-6.1|$KSTOCK|kallsyms|Debian's stock 6.1")
[ -z "$KSTOCK510" ] || KERNELS+=("stock-5.10|$KSTOCK510|kallsyms|Debian 11's stock 5.10")
DATE=$(date -u +%F)
{
        echo "# The micro figure"
        echo
        echo "Guest instructions per allocated page (fault in, touch, free; transparent huge pages off), counting on"
        echo "and off, $PAGES pages x $ROUNDS paired rounds on vCPU 0 of an idle guest, TCG, $DATE,"
        echo "\`make bench-vm\`. \"Allocator\" counts only the page allocator's and vmstat's functions"
        echo "(tests/vm/insn-ranges.sh); on - off is the median of the paired differences (range)."
        echo
        echo "| kernel | pages x rounds | all: on | all: off | all: on - off | allocator: on | allocator: off | allocator: on - off |"
        echo "|---|---|---|---|---|---|---|---|"
} > "$OUT/micro.md"

macro_args=()
for k in "${KERNELS[@]}"; do
        IFS='|' read -r name kernel map kind <<< "$k"
        [ -z "${BENCH_KERNELS:-}" ] || [[ " $BENCH_KERNELS " == *" $name "* ]] || continue
        if [ "$map" = kallsyms ]; then
                kallsyms_ranges "$name-kallsyms" "$kernel"
                map=$WORK/$name-kallsyms.ranges
        fi
        spec=$(plugin_spec "$name" "$map")
        if [[ " $STUDIES " == *" micro "* ]]; then
                echo "# micro: $kind" >&2
                boot "$name" micro insn 1800 "vm_insn_pages=$PAGES vm_insn_rounds=$ROUNDS"
                python3 "$HERE/insn-figure.py" "$WORK/$name.micro.plugin" "$PAGES" "$ROUNDS" 0 "$kind" \
                        "$OUT/micro.md" > "$WORK/$name.micro.fig"
                relay "$WORK/$name.micro.fig"
        fi
        # The macro study on the patched and the mainline kernel, one boot per reader profile.
        [[ " $STUDIES " == *" macro "* ]] && [[ "$name" != stock-* ]] || continue
        for p in $PROFILES; do
                echo "# macro: $kind, profile $p" >&2
                boot "$name-$p" macro macro 3600 "vm_macro_seconds=$SECONDS_EACH vm_macro_profile=$p vm_macro_linger=$LINGER"
                relay "$WORK/$name-$p.macro.tap"
                macro_args+=("$WORK/$name-$p.macro.results" "$WORK/$name-$p.macro.plugin")
        done
done
[ ${#macro_args[@]} -eq 0 ] || python3 "$HERE/macro-figure.py" "$OUT" "${macro_args[@]}" > "$WORK/macro.fig"
[ ${#macro_args[@]} -eq 0 ] || relay "$WORK/macro.fig"
{
        echo
        echo "TCG, $DATE, \`make bench-vm\` ($((SECONDS - START)) s on this machine)."
} >> "$OUT/macro.md"
echo "# figure: bench-vm took $((SECONDS - START)) s; results in $OUT (micro.md, macro.md, macro.svg)"
echo "1..$n"
[ $failed -eq 0 ]
