#!/bin/bash
# make bench-vm: what counting off buys, in guest instructions counted by
# the TCG plugin (tests/vm/insn-count.c), on the patched 5.10, mainline 6.1
# and Debian's stock 6.1. Not part of CI: about 30 minutes on 2 cores.
#
#   micro  guest instructions per allocated page with counting on and off,
#          BENCH_PAGES pages (64000) x BENCH_ROUNDS paired rounds (7) on one
#          pinned vCPU of an idle guest (tests/vm/guest/scenarios/insn.sh)
#   macro  one workload under each strategy side by side in one boot per
#          kernel, BENCH_SECONDS (90) each (tests/vm/guest/scenarios/macro.sh)
#
# Writes $OUT (default BUILDDIR/bench-vm): micro.md, macro.md, macro.svg and
# the plugin logs; prints every figure as "# figure:" lines and TAP sanity
# checks. Each table names the date, the kernels and this command.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
OUT=${BENCH_OUT:-$BUILDDIR/bench-vm}
PAGES=${BENCH_PAGES:-64000} ROUNDS=${BENCH_ROUNDS:-7} SECONDS_EACH=${BENCH_SECONDS:-90}
WORK=$OUT/work
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
START=$SECONDS

for b in numastatd numastatctl tests/vm/alloc-load tests/vm/react tests/vm/insn-count.so; do
        [ -x "$BUILDDIR/$b" ] || [ -r "$BUILDDIR/$b" ] || { echo "Bail out! $BUILDDIR/$b is not built"; exit 1; }
done
K61=$("$HERE/build-kernel.sh" 6.1) || { echo "Bail out! cannot build the 6.1 kernel"; exit 1; }
K510=$("$HERE/build-kernel.sh" 5.10) || { echo "Bail out! cannot build the patched 5.10 kernel"; exit 1; }
KSTOCK=$("$HERE/stock-kernel.sh" --elf) || { echo "Bail out! cannot unpack Debian's stock 6.1 kernel"; exit 1; }
"$HERE/mkinitramfs.sh" "$WORK/initrd.cpio.gz" \
        --bin "$BUILDDIR/numastatd:/usr/bin/numastatd" "$BUILDDIR/numastatctl:/usr/bin/numastatctl" \
        "$BUILDDIR/tests/vm/alloc-load:/usr/bin/alloc-load" "$BUILDDIR/tests/vm/react:/usr/bin/react" \
        >&2 || { echo "Bail out! cannot pack the initramfs"; exit 1; }

n=0 failed=0
emit() {
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
# relay FILE: the checks and figures of a helper's TAP, renumbered.
relay() {
        local line
        while IFS= read -r line; do
                case $line in
                "ok "*) emit 0 "${line#ok * - }" ;;
                "not ok "*) emit 1 "${line#not ok * - }" ;;
                "#"*) echo "$line" ;;
                esac
        done < "$1"
}
plugin_spec() {  # plugin_spec NAME SYSTEM_MAP
        local spec="$BUILDDIR/tests/vm/insn-count.so"
        if [ -r "$2" ] && "$HERE/insn-ranges.sh" "$2" > "$WORK/$1.ranges" 2>/dev/null; then
                spec="$spec,ranges=$WORK/$1.ranges"
        fi
        echo "$spec"
}

KERNELS=("patched-5.10|$K510|$(dirname "$K510")/System.map|patched 5.10"
         "mainline-6.1|$K61|$(dirname "$K61")/System.map|mainline 6.1"
         "stock-6.1|$KSTOCK||Debian's stock 6.1")
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
        spec=$(plugin_spec "$name" "$map")
        echo "# micro: $kind" >&2
        "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$WORK/initrd.cpio.gz" --scenario insn --timeout 1800 \
                --plugin "$spec" --plugin-log "$WORK/$name.micro.plugin" \
                --append "vm_insn_pages=$PAGES vm_insn_rounds=$ROUNDS" \
                --results "$WORK/$name.micro.results" --console "$WORK/$name.micro.console" > "$WORK/$name.micro.tap"
        emit $? "[$name] micro: the boot ran to the end"
        python3 "$HERE/insn-figure.py" "$WORK/$name.micro.plugin" "$PAGES" "$ROUNDS" 0 "$kind" "$OUT/micro.md" \
                > "$WORK/$name.micro.fig"
        relay "$WORK/$name.micro.fig"

        echo "# macro: $kind" >&2
        "$HERE/run-vm.sh" --kernel "$kernel" --initrd "$WORK/initrd.cpio.gz" --scenario macro --timeout 3600 \
                --plugin "$spec" --plugin-log "$WORK/$name.macro.plugin" \
                --append "vm_macro_seconds=$SECONDS_EACH" \
                --results "$WORK/$name.macro.results" --console "$WORK/$name.macro.console" > "$WORK/$name.macro.tap"
        emit $? "[$name] macro: the boot ran to the end"
        relay "$WORK/$name.macro.tap"
        macro_args+=("$WORK/$name.macro.results" "$WORK/$name.macro.plugin")
done
python3 "$HERE/macro-figure.py" "$OUT" "${macro_args[@]}" > "$WORK/macro.fig"
relay "$WORK/macro.fig"
{
        echo
        echo "TCG, $DATE, \`make bench-vm\` ($((SECONDS - START)) s on this machine)."
} >> "$OUT/macro.md"
echo "# figure: bench-vm took $((SECONDS - START)) s; results in $OUT (micro.md, macro.md, macro.svg)"
echo "1..$n"
[ $failed -eq 0 ]
