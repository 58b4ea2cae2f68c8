#!/bin/bash
# The NUMA counters continue across daemon restarts: after SIGKILL, after a
# clean stop, and when the kernel zeroed them while no daemon ran (counting
# off, then `numastatd --restore`, as the unit's ExecStopPost= does). The
# file they are carried in is refused when it is not safe to obey, or is
# another boot's, and the counters then start over. Counters are read with
# numastatctl counters --json: the continuous total of node numa_hit.
. "$(dirname "$0")/lib.sh"

require_root "the daemon writes the tree's sysctl as uid 0; fanotify"
fake_kernel_tree carry
mkdir -p "$T/proc/sys/kernel/random"
echo 11111111-2222-3333-4444-555555555555 > "$T/proc/sys/kernel/random/boot_id"
auto_conf > "$T/conf"
RUN=$T/run/numastatd
CARRY=$RUN/counters

# hits: the continuous numa_hit of both nodes, as numastatctl counters says.
hits() {
        ctl --json=short counters | python3 -c 'import json, sys
c = json.load(sys.stdin)
c = c.get("counters", c)
print(sum(n["numa_hit"] for n in c["nodes"]))'
}
hits_at_least() { [ "$(hits)" -ge "$1" ]; }
start() { start_daemon "$T" --config="$T/conf"; }

fake hit 1000 2000
fake grow on
start
ok $? "daemon starts"
wait_for 5 hits_at_least 3000
ok $? "it counts from the kernel's 3000 hits"
fake rate 2000
wait_for 10 hits_at_least 5000
H1=$(hits)
wait_for 5 test -s "$CARRY"
ok $? "it keeps the counters in its runtime directory ($CARRY)"
stop_daemon KILL
H1=$(grep -o '^source=[0-9]* [0-9]*' "$CARRY" | awk '{ s += $2 } END { print s }')
# Someone zeroed the kernel's counters meanwhile: it shows 10 + 10.
fake rate 0
fake hit 10 10
start
ok $? "restarted after SIGKILL"
H2=$(hits)
is "$H2" $((H1 + 20)) "  the counters continue: the $H1 kept, plus the 20 the kernel counted since (not 20 alone)"
contains "$(cat "$T/daemon.log")" "Continuing the NUMA counters a previous daemon kept" "  and its log says so"

# Counting goes off (the kernel zeroes the counters), the daemon dies, and
# the kernel is given back as the unit would (ExecStopPost=): the counters
# restart at zero in the kernel, not in numastatctl counters.
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure: counting off (the kernel zeroed its counters)"
H3=$(hits)
stop_daemon KILL
# The allocator stopped first: once counting is back, nothing but the 100
# below may add to the kernel's counters.
fake rate 0
"$NUMASTATD" --root="$T" --runtime-dir="$RUN" --restore > /dev/null 2>&1
is "$(cat "$SYSCTL")" 1 "numastatd --restore gave counting back after the kill"
fake hit 40 60
start
H4=$(hits)
ok $([ "$H4" -ge "$H3" ] && [ "$H4" -le $((H3 + 100)) ]; echo $?) \
        "  the next daemon continues across the kernel's reset: $H3 before, $H4 now (+ the 100 counted since)"
stop_daemon
is "$DAEMON_STATUS" 0 "clean stop"
start
ok $([ "$(hits)" -ge "$H4" ]; echo $?) "after a clean stop too ($(hits) >= $H4)"

# The file is rewritten when its meaning changes, not at every sample: an
# idle daemon need not write, fsync and rename once a second. A save
# renames a new file into place: a new inode and a new mtime.
carry_version() { stat -c '%i %y' "$CARRY"; }
samples() { ctl --json=short | json_get sources.samples_total; }
samples_past() { [ "$(samples)" -ge "$1" ]; }
rewritten() { [ "$(carry_version)" != "$1" ]; }
fake rate 2000
V0=$(carry_version) S0=$(samples)
wait_for 10 samples_past $((S0 + 20))
ok $? "20 more samples while the counters grow"
is "$(carry_version)" "$V0" "  leave the counters file as it was (it is saved at most once a minute)"
fake hit 10 10
wait_for 10 rewritten "$V0"
ok $? "someone else zeroes the counters: the file is saved at once"
stop_daemon
fake rate 0
fake hit 40 60   # what the checks below start over at

# What is not safe to obey, or is another boot's, is refused: start over.
refused() {  # refused WHY: the daemon starts, says it, and counts from the kernel's value
        start
        contains "$(cat "$T/daemon.log")" "Not continuing the NUMA counters" "  $1: refused"
        is "$(hits)" 100 "  and the counters start over at the kernel's (100)"
        stop_daemon
}
cp "$CARRY" "$T/carry.good"
chmod 666 "$CARRY"
refused "a counters file others can write"
cp "$T/carry.good" "$CARRY"
chown 65534 "$CARRY"
refused "a counters file of another user"
rm -f "$CARRY"
ln -s "$T/carry.good" "$CARRY"
refused "a symbolic link"
rm -f "$CARRY"
sed 's/^boot=.*/boot=99999999-2222-3333-4444-555555555555/' "$T/carry.good" > "$CARRY"
refused "another boot's counters"
rm -f "$CARRY"
sed 's/^source=0 .*/source=0 1 2 3/' "$T/carry.good" > "$CARRY"
refused "a malformed file"
done_testing
