#!/bin/bash
# make bench-idle: what the daemon costs a quiet host. The shipped
# configuration (policy auto, a sample a second) on a --root tree shaped
# like a 4-CPU, 2-node machine (tests/bench/make-tree.py) whose counters do
# not move and which nobody reads. Over IDLE_SECONDS (default 60) it prints
# the daemon's wakeups a second (context switches, voluntary and not, of
# all its threads), its CPU share (the scheduler's time, /proc/PID/schedstat)
# and its RSS, and how often it rewrote its carried counters. Targets: at
# most 1 wakeup a second and 0.01% of a CPU; the checks hold sanity bounds
# (2 wakeups a second, 0.1%) so that a loaded machine does not fail them,
# and the carried counters written at most twice (at start and once a
# minute). Every process that exits on the host sends the daemon an exit
# record (taskstats), so the figures are an idle daemon's only on an idle
# host: the host's process starts a second are printed beside them, and
# above 2 a second the wakeup and CPU checks skip. Needs root (fanotify)
# and tmpfs.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
NUMASTATD=$BUILDDIR/numastatd NUMASTATCTL=$BUILDDIR/numastatctl
SECONDS_IDLE=${IDLE_SECONDS:-60}
. "$HERE/lib.sh"
bench_init idle
# Summed over the daemon's threads.
cpu_ns() { cat /proc/"$DPID"/task/*/schedstat | awk '{ s += $1 } END { print s }'; }
switches() { cat /proc/"$DPID"/task/*/status | awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s }'; }
forks() { awk '$1 == "processes" { print $2 }' /proc/stat; }

T=$WORK/t
python3 "$HERE/make-tree.py" "$T" 4 2
mkdir -p "$T/proc/sys/kernel/random"
echo 11111111-2222-3333-4444-555555555555 > "$T/proc/sys/kernel/random/boot_id"
RUN=$T/run SOCK=$T/run/io.numastatd
"$NUMASTATD" --root="$T" --socket="$SOCK" --runtime-dir="$RUN" --config="$SRCDIR/conf/numastatd.conf" \
        > "$T/log" 2>&1 &
DPID=$!
until "$NUMASTATCTL" --socket="$SOCK" status > /dev/null 2>&1 && [ -e "$RUN/counters" ]; do
        kill -0 $DPID 2>/dev/null || { cat "$T/log"; echo "Bail out! the daemon did not start"; exit 1; }
        sleep 0.05
done
ok 0 "the daemon runs with the shipped configuration on a quiet 4-CPU, 2-node tree"

# Nothing talks to it from here on: a status call would wake it. One
# watcher process, so that the bench itself starts next to none.
c0=$(cpu_ns) w0=$(switches) f0=$(forks) t0=$(date +%s%N)
versions=$(python3 -c 'import os, sys, time
path, end, seen, last = sys.argv[1], time.monotonic() + int(sys.argv[2]), 1, None
def version():
    st = os.stat(path)
    return (st.st_ino, st.st_mtime_ns)
last = version()
while time.monotonic() < end:
    time.sleep(1)
    v = version()
    if v != last:
        seen, last = seen + 1, v
print(seen)' "$RUN/counters" "$SECONDS_IDLE")
c1=$(cpu_ns) w1=$(switches) f1=$(forks) t1=$(date +%s%N)
rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$DPID/status")
kill $DPID; wait $DPID 2>/dev/null; DPID=

elapsed_ms=$(( (t1 - t0) / 1000000 ))
wakeups_milli=$(( (w1 - w0) * 1000000 / elapsed_ms ))          # per 1000 s
cpu_ppm=$(( (c1 - c0) / 1000 * 1000 / elapsed_ms ))            # µs per s: parts per million of a CPU
forks_milli=$(( (f1 - f0) * 1000000 / elapsed_ms ))
printf '# figure: idle %d s: %d.%03d wakeups/s, %d.%04d%% of a CPU (%d us), RSS %d KiB, counters file written %d time(s); the host started %d.%03d processes/s\n' \
        $((elapsed_ms / 1000)) $((wakeups_milli / 1000)) $((wakeups_milli % 1000)) \
        $((cpu_ppm / 10000)) $((cpu_ppm % 10000)) $(( (c1 - c0) / 1000 )) "$rss" "$versions" \
        $((forks_milli / 1000)) $((forks_milli % 1000))
busy=$(( forks_milli > 2000 ))
if [ "$busy" -eq 1 ]; then
        n=$((n + 1)); echo "ok $n # SKIP wakeups: the host is not idle ($((forks_milli / 1000)) processes started a second, each exit a record the daemon reads)"
        n=$((n + 1)); echo "ok $n # SKIP CPU: the host is not idle"
else
        ok $([ "$wakeups_milli" -le 2000 ]; echo $?) "at most 2 wakeups a second (sanity bound; the target is 1)"
        ok $([ "$cpu_ppm" -le 1000 ]; echo $?) "at most 0.1% of a CPU (sanity bound; the target is 0.01%)"
fi
ok $([ "$versions" -le $(( 1 + SECONDS_IDLE / 60 )) ]; echo $?) \
        "the carried counters written at start and at most once a minute ($versions in ${SECONDS_IDLE} s)"
echo "1..$n"
[ $failed -eq 0 ]
