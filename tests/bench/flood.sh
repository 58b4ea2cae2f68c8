#!/bin/bash
# make bench-flood: the daemon under floods an unprivileged user can make,
# on a --root tree driven by the fake kernel (allocation pressure above
# coarse_above, policy auto), with the unit's scheduling (SCHED_FIFO 1)
# unless NUMASTATD_BENCH_SCHED=other:
#
#   read   N (default 1000) processes of uid 65534 pread() a watched file,
#          on the other CPUs, then on every CPU
#   fork   N/10 loops of uid 65534 fork a child that reads once and exits
#   mount  8 user namespaces of uid 65534 mount and unmount a tmpfs in a loop
#
# For each, over SECONDS (default 10): the daemon's CPU share, the longest
# gap between its watchdog pings (WATCHDOG_USEC=2s: the daemon pings every
# second; the target is half of WatchdogSec=), the latency of numastatctl
# status (p50, max over 20 calls from CPU 0; target 100 ms), a SCHED_OTHER task's
# progress on the daemon's CPU against the same without the flood, and
# whether a counted read in the middle of the flood finds counting on.
# The daemon and the spinner share CPU 0; the flood runs on the others.
# Figures only: nothing here fails on a number, only on a broken setup.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
N=${FLOOD_PROCS:-1000}
SECONDS_EACH=${FLOOD_SECONDS:-10}
SCHED=${NUMASTATD_BENCH_SCHED:-fifo}
NUMASTATD=$BUILDDIR/numastatd
NUMASTATCTL=$BUILDDIR/numastatctl
FLOOD=$BUILDDIR/tests/bench/flood

die() { echo "bench-flood: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (fanotify, uid 65534 floods)"
for b in "$NUMASTATD" "$NUMASTATCTL" "$FLOOD"; do [ -x "$b" ] || die "$b is not built (make bench-flood builds it)"; done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs: the daemon's, and the flood's"

T=$(mktemp -d /dev/shm/numastatd-flood-XXXXXX)
chmod 755 "$T"
PIDS=()
cleanup() {
        for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
        wait 2>/dev/null
        rm -rf "$T"
}
trap cleanup EXIT

# The tree and the fake kernel (as the integration tests make them).
mkdir -p "$T/proc/sys/vm" "$T/run/numastatd"
echo 1 > "$T/proc/sys/vm/numa_stat"
for n in 0 1; do
        mkdir -p "$T/sys/devices/system/node/node$n"
        echo "$((n * 2))-$((n * 2 + 1))" > "$T/sys/devices/system/node/node$n/cpulist"
done
cp "$SRCDIR/tests/data/zoneinfo-2node.txt" "$T/proc/zoneinfo"
python3 "$SRCDIR/tests/integration/fake-kernel.py" "$T" mainline > /dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 1 200); do [ -s "$T/sys/devices/system/node/node1/numastat" ] && break; sleep 0.05; done
echo "rate 50000" > "$T/ctl"
printf '[policy]\nmode = auto\nmin_dwell = 0\n[pressure]\ninterval = 100ms\ncoarse_above = 5000\nstrict_below = 500\nsustain = 300ms\n' > "$T/conf"
printf '[readers]\nlinger = 1s\ncontainer_scan = 1s\n' >> "$T/conf"

# The watchdog's pings, as systemd would get them.
python3 "$SRCDIR/tests/integration/watchdog-pings.py" "$T/notify" > "$T/pings" &
PIDS+=($!)
for _ in $(seq 1 100); do [ -S "$T/notify" ] && break; sleep 0.05; done

SOCK=$T/run/numastatd/io.numastatd
case $SCHED in
fifo) SCHED_CMD=(chrt -f 1) ;;
*) SCHED_CMD=() ;;
esac
NOTIFY_SOCKET=$T/notify WATCHDOG_USEC=2000000 taskset -c 0 "${SCHED_CMD[@]}" "$NUMASTATD" --root="$T" \
        --socket="$SOCK" --runtime-dir="$T/run/numastatd" --config="$T/conf" > "$T/daemon.log" 2>&1 &
DAEMON=$!
PIDS+=($DAEMON)
for _ in $(seq 1 200); do "$NUMASTATCTL" --socket="$SOCK" status > /dev/null 2>&1 && break; sleep 0.05; done
"$NUMASTATCTL" --socket="$SOCK" status > /dev/null 2>&1 || die "the daemon did not come up: $(cat "$T/daemon.log")"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DAEMON/stat"; }
# longest_gap FROM: the longest interval between pings since FROM (monotonic s).
longest_gap() {
        awk -v from="$1" 'BEGIN { prev = from } $1 >= from { if ($1 - prev > max) max = $1 - prev; prev = $1 }
                END { printf "%.2f", max }' "$T/pings"
}
mono() { date +%s.%N; }
# status_latency: p50 and max of 20 numastatctl status calls, in ms.
status_latency() {
        python3 - "$NUMASTATCTL" "$SOCK" <<'PY'
import subprocess, sys, time
ts = []
for _ in range(20):
    t = time.monotonic()
    subprocess.run(["taskset", "-c", "0", sys.argv[1], "--socket=" + sys.argv[2], "status"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    ts.append((time.monotonic() - t) * 1000)
    time.sleep(0.1)
ts.sort()
print("%.0f %.0f" % (ts[len(ts) // 2], ts[-1]))
PY
}
# counted_read_finds_on: a counted reader (comm "probe") reads; whether
# counting is on within 100 ms.
counted_read_finds_on() {
        cp /bin/cat "$T/probe"
        "$T/probe" "$T/proc/vmstat" > /dev/null
        for _ in $(seq 1 20); do [ "$(cat "$T/proc/sys/vm/numa_stat")" = 1 ] && { echo yes; return; }; sleep 0.005; done
        echo no
}
numa_off_share() {  # numa_off_share SECONDS: the share of 0.1 s samples with counting off
        local off=0 n=$(($1 * 10))
        for _ in $(seq 1 "$n"); do [ "$(cat "$T/proc/sys/vm/numa_stat")" = 0 ] && off=$((off + 1)); sleep 0.1; done
        echo $((100 * off / n))
}

echo "# bench-flood on $(uname -r), $(nproc) CPUs; daemon on CPU 0 ($SCHED), floods on CPUs 1-$(($(nproc) - 1)), $SECONDS_EACH s each"
BASE_SPIN=$(taskset -c 0 "$FLOOD" spin 3)
echo "# figure: idle: SCHED_OTHER spinner on CPU 0 makes $BASE_SPIN turns/s; counting off $(numa_off_share 2)% of 2 s under pressure"

run_flood() {  # run_flood NAME COMMAND...: the flood in the background for SECONDS_EACH
        local name=$1 t0 c0 c1 spin lat gap found
        shift
        t0=$(mono)
        c0=$(cpu_ticks)
        "$@" > /dev/null &
        local fpid=$!
        PIDS+=($fpid)
        sleep 1
        spin=$(taskset -c 0 "$FLOOD" spin 3)
        lat=$(status_latency)
        found=$(counted_read_finds_on)
        wait "$fpid" 2>/dev/null
        c1=$(cpu_ticks)
        gap=$(longest_gap "$t0")
        local wall
        wall=$(python3 -c "print($(mono) - $t0)")
        echo "# figure: $name flood: daemon CPU $(python3 -c "print('%.0f' % (100 * ($c1 - $c0) / $(getconf CLK_TCK) / $wall))")% of one core," \
             "longest watchdog gap ${gap} s (pings every 1 s), status p50/max ${lat/ / / } ms," \
             "SCHED_OTHER on its CPU at $(python3 -c "print('%.0f' % (100 * $spin / $BASE_SPIN))")% of idle," \
             "a counted read finds counting on: $found"
}

run_flood "read ($N processes pread())" taskset -c 1-$(($(nproc) - 1)) "$FLOOD" read "$N" "$SECONDS_EACH" "$T/proc/vmstat"
sleep 2
# Where readers usually are: on every CPU, the daemon's too.
run_flood "read ($N processes, every CPU)" "$FLOOD" read "$N" "$SECONDS_EACH" "$T/proc/vmstat"
sleep 2
run_flood "fork/exit ($((N / 10)) loops)" taskset -c 1-$(($(nproc) - 1)) "$FLOOD" fork $((N / 10)) "$SECONDS_EACH" "$T/proc/vmstat"
sleep 2
mount_flood() {
        local p=()
        for _ in $(seq 1 8); do
                taskset -c 1-$(($(nproc) - 1)) setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare -Urm sh -c \
                        'mkdir -p /tmp/m; end=$(($(date +%s) + $1)); while [ $(date +%s) -lt $end ]; do mount -t tmpfs none /tmp/m; umount /tmp/m; done' \
                        _ "$SECONDS_EACH" &
                p+=($!)
        done
        wait "${p[@]}"
}
run_flood "mount (8 namespaces)" mount_flood
echo "# (targets: status within 100 ms, watchdog gap below half of WatchdogSec=, daemon below 25% of a core," \
     "counted reads still turn counting on)"
