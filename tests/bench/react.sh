#!/bin/bash
# make bench-react: on this machine's own kernel, how long from a reader's
# read() to counting on, against the floor: the bare sysctl write.
#
# Prints, in one run: the bare write latency of vm.numa_stat (0 -> 1, from
# open() to close()) on a quiet machine and under the page-fault load
# (alloc-load on one CPU), the read-to-counting-on latency of the real
# numastatd under that load, each as p50/p90/p99/max over ROUNDS (default
# 200), and the ratio to the bare write under the same load: switching
# vm.numa_stat patches the kernel's text on every CPU, which costs more
# when the CPUs are busy. The daemon runs with the unit's scheduling
# (SCHED_FIFO 1, see systemd/numastatd.service) unless
# NUMASTATD_BENCH_SCHED=other. Figures only: nothing here fails on a
# number, only on a broken setup.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILDDIR=${TEST_BUILDDIR:-$HERE/../../build}
ROUNDS=${ROUNDS:-200}
SCHED=${NUMASTATD_BENCH_SCHED:-fifo}
SYSCTL=/proc/sys/vm/numa_stat

die() { echo "bench-react: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (writes $SYSCTL, fanotify)"
[ -w $SYSCTL ] || die "no writable mainline $SYSCTL on this kernel"
! pgrep -x numastatd >/dev/null || die "another numastatd runs here; stop it first"
for b in numastatd numastatctl tests/vm/react tests/vm/alloc-load; do
        [ -x "$BUILDDIR/$b" ] || die "$BUILDDIR/$b is not built (make bench-react builds it)"
done

DIR=$(mktemp -d /tmp/numastatd-bench-XXXXXX)
ORIG=$(cat $SYSCTL)
cleanup() {
        jobs -p | xargs -r kill 2>/dev/null
        wait 2>/dev/null
        echo "$ORIG" > $SYSCTL
        rm -rf "$DIR"
}
trap cleanup EXIT

echo "# bench-react on $(uname -r), $(nproc) CPUs, $ROUNDS rounds, daemon scheduling: $SCHED"
set -- $("$BUILDDIR/tests/vm/react" write "$ROUNDS" $SYSCTL 1 0)
W50=$1 W90=$2 W99=$3 WMAX=$4
echo "# figure: bare write of $SYSCTL (0 -> 1): p50 $W50 us, p90 $W90 us, p99 $W99 us, max $WMAX us"

"$BUILDDIR/tests/vm/alloc-load" load 3600 &
# Before the daemon starts: it would take these writes for an admin's.
set -- $("$BUILDDIR/tests/vm/react" write "$ROUNDS" $SYSCTL 1 0)
L50=$1 L90=$2 L99=$3 LMAX=$4
echo "# figure: bare write of $SYSCTL (0 -> 1) under a page-fault load: p50 $L50 us, p90 $L90 us, p99 $L99 us, max $LMAX us"

cat > "$DIR/conf" <<EOC
[policy]
mode = auto
min_dwell = 0
[pressure]
interval = 50ms
coarse_above = 10
strict_below = 0
sustain = 100ms
[readers]
linger = 100ms
EOC
case $SCHED in
fifo) RUN=(chrt --fifo 1) ;;
other) RUN=() ;;
*) die "NUMASTATD_BENCH_SCHED is fifo or other" ;;
esac
"${RUN[@]}" "$BUILDDIR/numastatd" --config="$DIR/conf" --socket="$DIR/sock" >"$DIR/log" 2>&1 &
for _ in $(seq 1 100); do "$BUILDDIR/numastatctl" --socket="$DIR/sock" status >/dev/null 2>&1 && break; sleep 0.05; done
"$BUILDDIR/numastatctl" --socket="$DIR/sock" status >/dev/null 2>&1 || { cat "$DIR/log"; die "numastatd did not start"; }
# Each read comes after the daemon answered a call: after its switch off
# is done, so that the tail of that write is not timed as the reaction.
set -- $("$BUILDDIR/tests/vm/react" "$ROUNDS" /proc/vmstat $SYSCTL 1 \
        "'$BUILDDIR/numastatctl' --socket='$DIR/sock' status >/dev/null")
R50=$1 R90=$2 R99=$3 RMAX=$4 N=$5
echo "# figure: read() to counting on under a page-fault load: p50 $R50 us, p90 $R90 us, p99 $R99 us, max $RMAX us ($N reads)"
awk -v r50="$R50" -v w50="$L50" -v r99="$R99" -v w99="$L99" 'BEGIN {
        printf "# figure: ratio to the bare write under the same load: p50 %.2f, p99 %.2f (target: p99 within 1.5x)\n",
                r50 / w50, r99 / w99 }'
[ "$N" -eq "$ROUNDS" ] || die "only $N of $ROUNDS reads were measured"
