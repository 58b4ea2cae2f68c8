#!/bin/bash
# numastatd on this machine's real kernel (--root=/): backend detection,
# the topology from sysfs, a real switch and its restoration. It changes
# vm.numa_stat for a moment (which zeroes the kernel's NUMA counters) and
# puts the original value back whatever happens.
. "$(dirname "$0")/lib.sh"

require_root "to write /proc/sys/vm/numa_stat"
if [ ! -w /proc/sys/vm/numa_stat ] || [ -e /proc/sys/vm/numa_stats_mode ] || [ -e /proc/sys/vm/vmstat_mode ]; then
        echo "1..0 # SKIP this kernel has no writable mainline vm.numa_stat (no CONFIG_NUMA or read-only /proc/sys)"
        exit 0
fi

# A daemon of an earlier test may still be on its way out.
for _ in $(seq 1 100); do pgrep -x numastatd >/dev/null || break; sleep 0.05; done
if pgrep -x numastatd >/dev/null; then
        echo "1..0 # SKIP another numastatd runs on this machine (pid $(pgrep -x numastatd | head -1)) and drives vm.numa_stat"
        exit 0
fi

ORIG=$(cat /proc/sys/vm/numa_stat)
restore() { echo "$ORIG" > /proc/sys/vm/numa_stat; cleanup; }
trap restore EXIT

# Not the default socket: a numastatd of the machine may be running.
DIR=$(mktemp -d /tmp/numastatd-real-XXXXXX); cleanup_trees+=("$DIR")
printf '[policy]\nmode = strict\n' > "$DIR/conf"
SOCK="$DIR/sock"
"$NUMASTATD" --socket="$SOCK" --runtime-dir="$DIR" --config="$DIR/conf" >"$DIR/log" 2>&1 &
DAEMON_PID=$!
wait_for 5 ctl status >/dev/null 2>&1

S=$(ctl --json=short)
is "$(echo "$S" | json_get backend)" numa_stat "real kernel: backend numa_stat"
IDS=$(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//' | sort -n | tr '\n' ' ')
is "$(echo "$S" | python3 -c 'import json,sys; print(" ".join(str(n["id"]) for n in json.load(sys.stdin)["nodes"]), end=" ")')" \
   "$IDS" "the nodes of this machine's sysfs, by id ($IDS)"
NODES=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
is "$(echo "$S" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["nodes"]))')" "$NODES" \
   "one status node per /sys node ($NODES)"
NODE0_CPUS=$(echo "$S" | python3 -c 'import json,sys; n=json.load(sys.stdin)["nodes"][0]; print(len(n["cpus"]))')
ok $([ "$NODE0_CPUS" -ge 1 ]; echo $?) "node0 has CPUs"
ok $([ "$(echo "$S" | json_get nodes.0.memory_total_bytes)" -gt 0 ]; echo $?) "node0 has memory"
is "$(cat /proc/sys/vm/numa_stat)" 1 "policy strict: counting on"

# numastatctl counters against numastat(8) of numactl: the same table, and
# while nothing was reset the same values (read between two numastat runs:
# counters only grow, so A <= ours <= C cell by cell).
# cmp_tables MODE A B [C]: le: A <= B (<= C); reset: B >= A + C and C < A.
cmp_tables() {
        python3 - "$@" <<'PY'
import sys
def table(path):
    rows = [l.split() for l in open(path) if l.strip() and not l.startswith("#")]
    nodes = rows[0]
    return {(r[0], n): int(v) for r in rows[1:] for n, v in zip(nodes, r[1:])}
mode, files = sys.argv[1], [table(p) for p in sys.argv[2:]]
a, b = files[0], files[1]
if set(a) != set(b):
    sys.exit(f"different cells: {sorted(set(a) ^ set(b))}")
if mode == "le":
    c = files[2]
    bad = [k for k in a if not a[k] <= b[k] <= c[k]]
else:   # reset: b is ours after a reset, a ours before it, c numastat's after it
    c = files[2]
    bad = [k for k in a if not (b[k] >= a[k] + c[k])] + [k for k in a if a[k] > 0 and not c[k] < a[k]]
if bad:
    sys.exit(f"cells out of order: {bad}")
PY
}
if command -v numastat >/dev/null; then
        numastat > "$DIR/A"; ctl counters > "$DIR/B"; numastat > "$DIR/C"
        is "$(head -1 "$DIR/B")" "$(head -1 "$DIR/A")" "numastatctl counters has numastat's header (the nodes)"
        is "$(sed -n '2,7p' "$DIR/B" | awk '{print $1}' | tr '\n' ' ')" "$(sed -n '2,7p' "$DIR/A" | awk '{print $1}' | tr '\n' ' ')" \
           "and its rows"
        OUT=$(cmp_tables le "$DIR/A" "$DIR/B" "$DIR/C" 2>&1)
        ok $? "nothing reset yet: numastat before <= numastatctl counters <= numastat after, every cell${OUT:+ ($OUT)}"
        contains "$(cat "$DIR/B")" "across 0 resets by numastatd" "  and the footnote says no reset was carried"
else
        skip "numastat (Debian package numactl) is not installed: scripts/install-deps.sh --test installs it"
fi

ctl set-policy coarse >/dev/null
ok $? "set-policy coarse on the real kernel"
is "$(cat /proc/sys/vm/numa_stat)" 0 "vm.numa_stat is 0"
is "$(awk '$1 == "numa_hit" {print $2}' /proc/vmstat)" 0 "the kernel zeroed numa_hit (as documented)"
if command -v numastat >/dev/null; then
        ctl set-policy strict >/dev/null
        python3 -c 'b = [bytearray(1 << 20) for _ in range(64)]'    # something to count again
        numastat > "$DIR/D"; ctl counters > "$DIR/E"
        OUT=$(cmp_tables reset "$DIR/B" "$DIR/E" "$DIR/D" 2>&1)
        ok $? "after a reset: numastat restarted from zero, numastatctl counters carried on (>= before + since)${OUT:+ ($OUT)}"
        contains "$(cat "$DIR/E")" "across 1 reset by numastatd" "  and the footnote counts the reset"
        contains "$(ctl --json=short counters)" '"fresh":true' "  --json too, read for the call"
        conforms ContinuousCounters "  and conforms to the interface file" <<< "$(ctl --json=short counters)"
        ctl set-policy coarse >/dev/null
fi
stop_daemon TERM
is "$DAEMON_STATUS" 0 "clean exit"
is "$(cat /proc/sys/vm/numa_stat)" 1 "exit restored counting on"

# Policy auto: an allocation load with thresholds this low is pressure, so
# counting goes off; then `cat /proc/vmstat` by a child turns it on and is
# attributed to cat through fanotify on the real procfs.
printf '[policy]\nmode = auto\nmin_dwell = 0\n[pressure]\ninterval = 100ms\ncoarse_above = 100\nstrict_below = 0\nsustain = 300ms\n[readers]\nlinger = 2s\n' > "$DIR/conf"
python3 -c 'while True: b = bytearray(8 << 20)' &
LOAD_PID=$!
"$NUMASTATD" --socket="$SOCK" --runtime-dir="$DIR" --config="$DIR/conf" >"$DIR/log" 2>&1 &
DAEMON_PID=$!
wait_for 5 ctl status >/dev/null 2>&1
is "$(ctl --json=short | json_get sources.readers)" true "fanotify works on this kernel"
off=1
for _ in $(seq 1 200); do [ "$(cat /proc/sys/vm/numa_stat)" = 0 ] && { off=0; break; }; sleep 0.05; done
ok $off "allocation load and no reader: vm.numa_stat 0"
# cat stays alive on its stdin after reading, so it can be attributed.
sleep 2 | cat /proc/vmstat - >/dev/null &
CAT_PID=$!
on=1
for _ in $(seq 1 100); do [ "$(cat /proc/sys/vm/numa_stat)" = 1 ] && { on=0; break; }; sleep 0.02; done
ok $on "cat /proc/vmstat turned counting on"
kill $LOAD_PID
S=$(ctl --json=short)
READER=$(echo "$S" | python3 -c 'import json,sys
s = json.load(sys.stdin)
r = [r for r in s["readers"] if r["path"] == "/proc/vmstat"]
print(r[0]["comm"], r[0]["pid"], r[0]["uid"]) if r else print("none")')
is "$READER" "cat $CAT_PID 0" "the read is attributed to cat, its pid and uid 0"
contains "$(ctl history)" "cat (pid $CAT_PID, uid 0" "the switch on names the reader"
stop_daemon TERM
is "$(cat /proc/sys/vm/numa_stat)" 1 "exit left counting on"

done_testing
