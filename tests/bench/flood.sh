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
#   calls  4 connections of uid 65534 each sending 256 GetStatus calls in
#          one send, reading the replies, again (the daemon's varlink
#          socket; also prints the calls answered a second)
#   storm  600, then 1,200 readers of uid 65534 in a root of their own with
#          a mount table of almost 1 MiB (see run_storm)
#
# For each, over SECONDS (default 10): the daemon's CPU share and wakeups
# (its thread switched out, from /proc/PID/status), the longest
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
NCPU=$(nproc)  # once: the script pins itself to CPU 0 at times
SECONDS_EACH=${FLOOD_SECONDS:-10}
SCHED=${NUMASTATD_BENCH_SCHED:-fifo}
NUMASTATD=$BUILDDIR/numastatd
NUMASTATCTL=$BUILDDIR/numastatctl
FLOOD=$BUILDDIR/tests/bench/flood

die() { echo "bench-flood: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (fanotify, uid 65534 floods)"
for b in "$NUMASTATD" "$NUMASTATCTL" "$FLOOD"; do [ -x "$b" ] || die "$b is not built (make bench-flood builds it)"; done
[ "$NCPU" -ge 2 ] || die "needs 2 CPUs: the daemon's, and the flood's"

T=$(mktemp -d /dev/shm/numastatd-flood-XXXXXX)
chmod 755 "$T"
PIDS=()
# kill_tree PID: every process under PID, which this script started, by pid.
. "$SRCDIR/tests/kill-tree.sh"
cleanup() {
        for p in "${PIDS[@]}"; do kill_tree "$p"; done
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
# FLOOD_DENY_SYSCALL=NR: the daemon gets EPERM for that system call, as an
# older seccomp filter gives it (457: the cost of doing without statmount()).
DENY=()
if [ -n "${FLOOD_DENY_SYSCALL:-}" ]; then
        DENY=("$BUILDDIR/tests/integration/deny-syscall" "$FLOOD_DENY_SYSCALL" 1)
        [ -x "${DENY[0]}" ] || die "${DENY[0]} is not built (make check builds it)"
fi
NOTIFY_SOCKET=$T/notify WATCHDOG_USEC=2000000 taskset -c 0 "${SCHED_CMD[@]}" "${DENY[@]}" "$NUMASTATD" --root="$T" \
        --socket="$SOCK" --runtime-dir="$T/run/numastatd" --config="$T/conf" > "$T/daemon.log" 2>&1 &
DAEMON=$!
PIDS+=($DAEMON)
for _ in $(seq 1 200); do "$NUMASTATCTL" --socket="$SOCK" status > /dev/null 2>&1 && break; sleep 0.05; done
"$NUMASTATCTL" --socket="$SOCK" status > /dev/null 2>&1 || die "the daemon did not come up: $(cat "$T/daemon.log")"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DAEMON/stat"; }
# Its wakeups: the times its (one) thread was switched out, asleep or not.
wakeups() { awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n }' "/proc/$DAEMON/status"; }
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

echo "# bench-flood on $(uname -r), $NCPU CPUs; daemon on CPU 0 ($SCHED), floods on CPUs 1-$(($NCPU - 1)), $SECONDS_EACH s each"
echo "# libsystemd $(pkg-config --modversion libsystemd 2>/dev/null || echo '?'), $("$NUMASTATD" --version | sed -n 2p);" \
     "fallbacks in use: $("$NUMASTATCTL" --socket="$SOCK" status 2>/dev/null | grep -c 'Fallback:')"
"$NUMASTATCTL" --socket="$SOCK" status 2>/dev/null | grep 'Fallback:' | sed 's/^ */#   /'
BASE_SPIN=$(taskset -c 0 "$FLOOD" spin 3)
echo "# figure: idle: SCHED_OTHER spinner on CPU 0 makes $BASE_SPIN turns/s; counting off $(numa_off_share 2)% of 2 s under pressure"

run_flood() {  # run_flood NAME COMMAND...: the flood in the background for SECONDS_EACH
        local name=$1 t0 c0 c1 w0 w1 spin lat gap found
        shift
        t0=$(mono)
        c0=$(cpu_ticks)
        w0=$(wakeups)
        "$@" > "${FLOOD_OUT:-/dev/null}" &
        local fpid=$!
        PIDS+=($fpid)
        sleep 1
        spin=$(taskset -c 0 "$FLOOD" spin 3)
        lat=$(status_latency)
        found=$(counted_read_finds_on)
        wait "$fpid" 2>/dev/null
        c1=$(cpu_ticks)
        w1=$(wakeups)
        gap=$(longest_gap "$t0")
        local wall
        wall=$(python3 -c "print($(mono) - $t0)")
        echo "# figure: $name flood: daemon CPU $(python3 -c "print('%.0f' % (100 * ($c1 - $c0) / $(getconf CLK_TCK) / $wall))")% of one core," \
             "$(python3 -c "print('%.0f' % (($w1 - $w0) / $wall))") wakeups/s," \
             "longest watchdog gap ${gap} s (pings every 1 s), status p50/max ${lat/ / / } ms," \
             "SCHED_OTHER on its CPU at $(python3 -c "print('%.0f' % (100 * $spin / $BASE_SPIN))")% of idle," \
             "a counted read finds counting on: $found"
}

# FLOOD_ONLY="read fork mount calls storm": those floods only.
want() { [ -z "${FLOOD_ONLY:-}" ] || [[ " $FLOOD_ONLY " == *" $1 "* ]]; }
want read && run_flood "read ($N processes pread())" taskset -c 1-$(($NCPU - 1)) "$FLOOD" read "$N" "$SECONDS_EACH" "$T/proc/vmstat"
sleep 2
# Where readers usually are: on every CPU, the daemon's too.
want read && run_flood "read ($N processes, every CPU)" "$FLOOD" read "$N" "$SECONDS_EACH" "$T/proc/vmstat"
sleep 2
want fork && run_flood "fork/exit ($((N / 10)) loops)" taskset -c 1-$(($NCPU - 1)) "$FLOOD" fork $((N / 10)) "$SECONDS_EACH" "$T/proc/vmstat"
sleep 2
mount_flood() {
        local p=()
        for _ in $(seq 1 8); do
                taskset -c 1-$(($NCPU - 1)) setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare -Urm sh -c \
                        'mkdir -p /tmp/m; end=$(($(date +%s) + $1)); while [ $(date +%s) -lt $end ]; do mount -t tmpfs none /tmp/m; umount /tmp/m; done' \
                        _ "$SECONDS_EACH" &
                p+=($!)
        done
        wait "${p[@]}"
}
want mount && run_flood "mount (8 namespaces)" mount_flood

# The calls flood: what one user's pipelined calls cost. It stops at the
# end (FLOOD_DRAIN=0), leaving what the daemon had not answered yet.
if want calls; then
        sleep 2
        FLOOD_OUT=$T/calls.out run_flood "calls (4 connections of uid 65534, 256 GetStatus calls a send)" \
                env FLOOD_DRAIN=0 taskset -c 1-$(($NCPU - 1)) "$FLOOD" calls 4 "$SECONDS_EACH" "$SOCK" 256
        answered=$(awk '{ for (i = 1; i < NF; i++) if ($i == "in_time") print $(i + 1) }' "$T/calls.out")
        echo "# figure: calls flood: $(python3 -c "print('%.0f' % (${answered:-0} / $SECONDS_EACH))") GetStatus calls" \
             "answered a second to uid 65534 ($(cat "$T/calls.out"))"
fi

# The mountinfo storm: N readers of uid 65534's, chrooted in a root of
# their own (unshare -Urm) whose mount table is just under the 1 MiB the
# daemon reads, each running a copy of a catalogued binary at its path
# there (prometheus-node-exporter, with no option that exports numa_*):
# their reads need a look into their root. Root's counted read in the
# middle: how long until counting is on (if it was off), and until the
# daemon lists it; root's status; the daemon's CPU and its looks'.
STORM_MOUNTS=${FLOOD_STORM_MOUNTS:-560}
storm() {  # storm N: the readers, in the background (their launcher's pid)
        local n=$1 r=$T/storm
        rm -rf "$r"
        mkdir -p "$r/usr/bin" "$r/proc" "$r/m"
        cp "$FLOOD" "$r/usr/bin/prometheus-node-exporter"
        # ...and the libraries it needs, at their paths.
        for lib in $(ldd "$FLOOD" | grep -o '/[^ ]*'); do cp --parents -L "$lib" "$r"; done
        chown -R 65534:65534 "$r"
        taskset -c 1-$(($NCPU - 1)) setpriv --reuid=65534 --regid=65534 --clear-groups -- \
                unshare -Urm --propagation private sh -c '
                r=$1 tree=$2 n=$3 secs=$4 mounts=$5
                mount --bind "$tree/proc" "$r/proc" || exit 1
                long=$(printf "%0240d" 0)
                d=$r/m/a$long/b$long/c$long
                mkdir -p "$d" || exit 1
                i=0
                while [ $i -lt "$mounts" ]; do
                        mkdir "$d/$i" && mount --bind "$d/$i" "$d/$i" || exit 1
                        i=$((i + 1))
                done
                echo "$(wc -c < /proc/self/mountinfo)" > "$r/mountinfo-bytes"
                exec env FLOOD_KEEP_IDS=1 chroot "$r" /usr/bin/prometheus-node-exporter read "$n" "$secs" /proc/vmstat' \
                _ "$r" "$T" "$n" "$((SECONDS_EACH + 150))" "$STORM_MOUNTS" > /dev/null 2>&1 &
        echo $!
}
child_ticks() { awk '{ print $16 + $17 }' "/proc/$DAEMON/stat"; }
# read_seen_ms: root's counted read ("probe") until numastatctl readers lists it.
read_seen_ms() {
        python3 - "$NUMASTATCTL" "$SOCK" "$T/probe" "$T/proc/vmstat" <<'PY'
import json, subprocess, sys, time
ctl, sock, probe, f = sys.argv[1:5]
def count():
    out = subprocess.run([ctl, "--socket=" + sock, "--json=short", "readers"], capture_output=True, text=True).stdout
    try:
        return sum(r["count"] for r in json.loads(out) if r["comm"] == "probe")
    except ValueError:
        return 0
before = count()
t = time.monotonic()
subprocess.run([probe, f], stdout=subprocess.DEVNULL)
while count() == before and time.monotonic() - t < 30:
    time.sleep(0.005)
print("%.0f" % ((time.monotonic() - t) * 1000))
PY
}
# read_to_on_ms: root's counted read until counting is on; "-" if it was on already.
read_to_on_ms() {
        python3 - "$T/probe" "$T/proc/vmstat" "$T/proc/sys/vm/numa_stat" <<'PY'
import subprocess, sys, time
probe, f, sysctl = sys.argv[1:4]
if open(sysctl).read().strip() == "1":
    print("- (on already)")
    sys.exit(0)
t = time.monotonic()
subprocess.run([probe, f], stdout=subprocess.DEVNULL)
while open(sysctl).read().strip() != "1" and time.monotonic() - t < 30:
    time.sleep(0.001)
print("%.0f" % ((time.monotonic() - t) * 1000))
PY
}
run_storm() {  # run_storm N
        local n=$1 launcher t0 c0 k0 wall lat off seen on
        launcher=$(storm "$n")
        PIDS+=($launcher)
        # The storm spins on the other CPUs: the measures run on the daemon's.
        taskset -p -c 0 $$ > /dev/null
        # Its readers: the launcher's children (setpriv, unshare, sh and
        # chroot exec; the flood forks them), not anyone's named readflood.
        for _ in $(seq 1 600); do [ "$(pgrep -c -P "$launcher" -x readflood)" -ge "$n" ] && break; sleep 0.1; done
        # Their reads count until each reader's look is done (20 looks a
        # second for a uid: a minute for 1,200): the steady state is when
        # counting goes off (two minutes at most).
        local settled=never s0
        s0=$(mono)
        for _ in $(seq 1 1200); do
                [ "$(cat "$T/proc/sys/vm/numa_stat")" = 0 ] && { settled="$(python3 -c "print('%.0f' % ($(mono) - $s0))") s"; break; }
                sleep 0.1
        done
        t0=$(mono)
        c0=$(cpu_ticks)
        k0=$(child_ticks)
        off=$(numa_off_share 3)
        on=$(read_to_on_ms)
        sleep 1.5       # linger = 1s: off again, if the storm lets it
        seen=$(read_seen_ms)
        lat=$(status_latency)
        wall=$(python3 -c "print($(mono) - $t0)")
        echo "# figure: mountinfo storm ($n readers, $(pgrep -c -P "$launcher" -x readflood) running, a $(cat "$T/storm/mountinfo-bytes" 2>/dev/null || echo '?')-byte mount table):" \
             "root's read to counting on ${on} ms, until listed ${seen} ms; status p50/max ${lat/ / / } ms;" \
             "counting off after ${settled}, then ${off}% of 3 s; longest watchdog gap $(longest_gap "$t0") s; daemon CPU $(python3 -c "print('%.0f' % (100 * ($(cpu_ticks) - $c0) / $(getconf CLK_TCK) / $wall))")%," \
             "its looks $(python3 -c "print('%.0f' % (100 * ($(child_ticks) - $k0) / $(getconf CLK_TCK) / $wall))")% of one core"
        kill_tree "$launcher"
        wait "$launcher" 2>/dev/null
        rm -rf "$T/storm"
        taskset -p -c 0-$(($NCPU - 1)) $$ > /dev/null
}
cp /bin/cat "$T/probe"
if want storm; then
        for n in ${FLOOD_STORM_SIZES:-600 1200}; do
                run_storm "$n"
                sleep 2
        done
fi
echo "# (targets: status within 100 ms, watchdog gap below half of WatchdogSec=, daemon below 25% of a core," \
     "counted reads still turn counting on)"
