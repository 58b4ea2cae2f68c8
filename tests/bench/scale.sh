#!/bin/bash
# make bench-scale: the daemon's own cost as the machine grows, on --root
# trees shaped like machines of 4 to 1024 CPUs and 2 to 16 nodes
# (tests/bench/make-tree.py: a zoneinfo with every CPU's pageset lines in
# every zone, a numastat per node). For each size it prints the daemon's
# CPU time per sample (policy strict, so every sample reads /proc/vmstat
# and each node's numastat; interval 10ms), per read event (one reader,
# 500 reads of the tree's /proc/vmstat, sampling paused; an event judged
# or coalesced into its burst counts), the start-up time
# to the first answer (which parses zoneinfo) and the RSS. CPU time is the
# scheduler's (/proc/PID/schedstat, ns). Target: at most 1 ms per sample at
# 1024 CPUs. Needs root (fanotify) and tmpfs.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
NUMASTATD=$BUILDDIR/numastatd NUMASTATCTL=$BUILDDIR/numastatctl
SIZES=${SCALE_SIZES:-"4:2 16:4 64:8 256:16 1024:16"}
READS=${SCALE_READS:-500}
. "$HERE/lib.sh"
bench_init scale
cpu_ns() { cut -d' ' -f1 "/proc/$DPID/schedstat"; }
field() { "$NUMASTATCTL" --socket="$SOCK" --json=short status | python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split("."): v=v[k]
print(v)' "$1"; }
# Read events seen: those judged, and those a burst coalesced (a reader in
# a loop is judged once per burst; readers.c).
events() { echo $(( $(field sources.reads_total) + $(field sources.reads_coalesced) )); }
conf() {  # conf INTERVAL
        printf '[policy]\nmode = strict\n[pressure]\ninterval = %s\n' "$1" > "$T/conf"
}

declare -a SUMMARY
for size in $SIZES; do
        cpus=${size%:*} nodes=${size#*:}
        T=$WORK/t$cpus
        python3 "$HERE/make-tree.py" "$T" "$cpus" "$nodes"
        SOCK=$T/run/io.numastatd
        conf 10ms
        t0=$(date +%s%N)
        "$NUMASTATD" --root="$T" --socket="$SOCK" --runtime-dir="$T/run" --config="$T/conf" > "$T/log" 2>&1 &
        DPID=$!
        until "$NUMASTATCTL" --socket="$SOCK" status > /dev/null 2>&1; do
                kill -0 $DPID 2>/dev/null || { cat "$T/log"; break; }
                sleep 0.005
        done
        startup_ms=$((($(date +%s%N) - t0) / 1000000))
        sleep 0.5
        # The status calls stay outside the measured stretch.
        s0=$(field sources.samples_total); c0=$(cpu_ns)
        sleep 3
        c1=$(cpu_ns); s1=$(field sources.samples_total)
        per_sample=$(( (c1 - c0) / ((s1 - s0) > 0 ? (s1 - s0) : 1) / 1000 ))

        # Read events, sampling paused (interval 1h, by a reload).
        conf 1h
        kill -HUP $DPID
        sleep 0.3
        r0=$(events); c0=$(cpu_ns)
        # 2 ms apart: fanotify merges a process's identical events that are
        # still queued, and each read should be an event of its own.
        python3 -c 'import sys, time
for _ in range(int(sys.argv[2])):
    with open(sys.argv[1], "rb") as f: f.read()
    time.sleep(0.002)' "$T/proc/vmstat" "$READS"
        sleep 0.5
        c1=$(cpu_ns); r1=$(events)
        per_read=$(( (c1 - c0) / ((r1 - r0) > 0 ? (r1 - r0) : 1) / 1000 ))
        rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$DPID/status")
        zkb=$(( $(stat -c %s "$T/proc/zoneinfo") / 1024 ))
        kill $DPID; wait $DPID 2>/dev/null; DPID=
        echo "# figure: scale $cpus CPUs, $nodes nodes (zoneinfo $zkb KiB): ${per_sample} us CPU per sample ($((s1 - s0)) samples), ${per_read} us per read event ($((r1 - r0)) reads), start-up to first answer ${startup_ms} ms, RSS ${rss} KiB"
        ok $([ $((s1 - s0)) -gt 10 ] && [ $((r1 - r0)) -ge $((READS / 2)) ]; echo $?) "$cpus CPUs: samples taken and at least half the reads seen (fanotify merges a process's identical events still queued: more on a loaded machine)"
        ok $([ "$per_sample" -lt 100000 ]; echo $?) "$cpus CPUs: under 100 ms per sample (sanity bound; the target is 1 ms)"
        SUMMARY+=("$cpus:$per_sample:$per_read:$rss")
        rm -rf "$T"
done
first=${SUMMARY[0]} last=${SUMMARY[${#SUMMARY[@]}-1]}
IFS=: read -r c1 s1 r1 m1 <<< "$first"
IFS=: read -r c2 s2 r2 m2 <<< "$last"
echo "# figure: scale from $c1 to $c2 CPUs: per sample ${s1} -> ${s2} us, per read event ${r1} -> ${r2} us, RSS ${m1} -> ${m2} KiB"
echo "1..$n"
[ $failed -eq 0 ]
