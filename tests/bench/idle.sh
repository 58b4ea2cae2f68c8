#!/bin/bash
# make bench-idle: what the daemon costs a quiet host. The shipped
# configuration (policy auto, a sample a second) on a --root tree shaped
# like a 4-CPU, 2-node machine (tests/bench/make-tree.py) whose counters do
# not move and which nobody reads. Over IDLE_SECONDS (default 60) it prints
# the daemon's wakeups a second (its voluntary context switches, summed
# over its threads: each is a sleep it woke from; preemptions by others
# are printed apart), its CPU share (the scheduler's time, /proc/PID/schedstat)
# and its RSS, how often it rewrote its carried counters, and (with perf)
# its system calls a second and the CPU each costs, and beside them the
# floor: what a program costs that does nothing but wake once a second and
# reread copies of the same files (tests/bench/tick.c). Targets: at
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

# The floor beside it: a program that only wakes once a second and
# rereads four files like those through fds kept open (tests/bench/tick.c).
# What one wakeup a second costs differs tenfold between machines (a
# hypervisor's guest pays for each timer interrupt and system call); the
# daemon's figure is read against this one, taken over the same minute.
# Copies of them: a read of the daemon's would be a reader it handles.
mkdir "$WORK/floor"
for f in proc/vmstat sys/devices/system/node/node0/numastat sys/devices/system/node/node1/numastat proc/sys/vm/numa_stat; do
        cp "$T/$f" "$WORK/floor/${f//\//_}"
done
"$BUILDDIR/tests/bench/tick" "$WORK"/floor/* &
TICK=$!
trap 'kill $TICK 2>/dev/null; [ -n "$DPID" ] && kill $DPID 2>/dev/null; rm -rf "$WORK"' EXIT

# Nothing talks to it from here on: a status call would wake it. One
# watcher process measures from inside, once it runs: its own start (a
# Python behind a shim may start dozens of processes, each exit a record
# the daemon reads) is not counted. It prints the daemon's CPU time (the
# scheduler's, summed over its threads), its context switches (voluntary
# and not), the host's process starts and the elapsed time, then how
# often the counters file changed.
read -r cpu_ns sleeps preempted forks elapsed_ms versions tick_ns < <(python3 -c 'import glob, os, sys, time
pid, path, seconds, tick = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def cpu(of=pid):
    return sum(int(open(f).read().split()[0]) for f in glob.glob(f"/proc/{of}/task/*/schedstat"))
def switches(kind):
    n = 0
    for f in glob.glob(f"/proc/{pid}/task/*/status"):
        for line in open(f):
            if line.startswith(kind + "_ctxt_switches:"):
                n += int(line.split()[1])
    return n
def forks():
    for line in open("/proc/stat"):
        if line.startswith("processes "):
            return int(line.split()[1])
def version():
    st = os.stat(path)
    return (st.st_ino, st.st_mtime_ns)
c0, k0, v0, n0, f0, t0, last, seen = cpu(), cpu(tick), switches("voluntary"), switches("nonvoluntary"), forks(), time.monotonic(), version(), 1
end = t0 + seconds
while time.monotonic() < end:
    time.sleep(1)
    v = version()
    if v != last:
        seen, last = seen + 1, v
c1, k1, v1, n1, f1, t1 = cpu(), cpu(tick), switches("voluntary"), switches("nonvoluntary"), forks(), time.monotonic()
print(c1 - c0, v1 - v0, n1 - n0, f1 - f0, int((t1 - t0) * 1000), seen, k1 - k0)' "$DPID" "$RUN/counters" "$SECONDS_IDLE" "$TICK")
kill $TICK; wait $TICK 2>/dev/null
rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$DPID/status")
# Where the CPU goes: the daemon's system calls over 10 s more, if perf can
# count them (the cost of one differs by a factor of ten between a
# hypervisor's guest and bare metal).
syscalls=
if command -v perf > /dev/null; then
        syscalls=$(perf stat -x, -e raw_syscalls:sys_enter -p "$DPID" -- sleep 10 2>&1 | awk -F, '/raw_syscalls:sys_enter/ { print $1 }')
fi
kill $DPID; wait $DPID 2>/dev/null; DPID=

[ -n "${versions:-}" ] || { echo "Bail out! the watcher measured nothing"; exit 1; }
wakeups_milli=$(( sleeps * 1000000 / elapsed_ms ))             # per 1000 s
preempted_milli=$(( preempted * 1000000 / elapsed_ms ))
cpu_ppm=$(( cpu_ns / 1000 * 1000 / elapsed_ms ))               # µs per s: parts per million of a CPU
forks_milli=$(( forks * 1000000 / elapsed_ms ))
printf '# figure: idle %d s: %d.%03d wakeups/s (and %d.%03d preemptions/s), %d.%04d%% of a CPU (%d us), RSS %d KiB, counters file written %d time(s); the host started %d.%03d processes/s\n' \
        $((elapsed_ms / 1000)) $((wakeups_milli / 1000)) $((wakeups_milli % 1000)) \
        $((preempted_milli / 1000)) $((preempted_milli % 1000)) \
        $((cpu_ppm / 10000)) $((cpu_ppm % 10000)) $(( cpu_ns / 1000 )) "$rss" "$versions" \
        $((forks_milli / 1000)) $((forks_milli % 1000))
tick_ppm=$(( ${tick_ns:-0} / 1000 * 1000 / elapsed_ms ))
printf '# figure: the floor, a program that only wakes once a second and rereads such files: %d.%04d%% of a CPU; the daemon costs %d.%d times that\n' \
        $((tick_ppm / 10000)) $((tick_ppm % 10000)) $(( cpu_ppm * 10 / (tick_ppm ? tick_ppm : 1) / 10 )) $(( cpu_ppm * 10 / (tick_ppm ? tick_ppm : 1) % 10 ))
if [[ "$syscalls" =~ ^[0-9]+$ ]] && [ "$syscalls" -gt 0 ]; then
        printf '# figure: %d.%d system calls a second, %d.%d us of CPU each (CPU over the minute / calls)\n' $((syscalls / 10)) $((syscalls % 10)) \
                $(( cpu_ppm * 10 / syscalls )) $(( cpu_ppm * 100 / syscalls % 10 ))   # µs/s × 10 s / calls
else
        echo "# no system call count: perf cannot count raw_syscalls:sys_enter here"
fi
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
