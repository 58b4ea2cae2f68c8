#!/bin/bash
# Linger that fits each reader: two readers that compute deltas, every 1 s
# and every 3 s (with jitter), under allocation pressure and linger=1s.
# Once their periods are learned, counting stays on from each read of the
# slow one to its next, though its reads are 3 s apart and linger is 1 s;
# when it stops reading, counting goes off after its expected read passed.
# With linger_max=0 (no learning) the same reader finds counting off. And
# a learned period ends linger for that reader; a hold's own command's
# reads do not linger past it.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN"
fake_kernel_tree linger

conf() {  # conf LINGER_MAX
        auto_conf "linger_max = $1" > "$T/conf"
}
conf 1min
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with linger=1s, linger_max=1min"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"

# reader NAME PERIOD FILE: reads FILE every PERIOD seconds (+-10% jitter),
# named NAME, in one process (so it is attributed every time). exec: the
# background job's pid is the reader's, for kill.
reader() {
        exec python3 -c 'import ctypes, random, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
while True:
    with open(sys.argv[3], "rb") as f: f.read()
    time.sleep(float(sys.argv[2]) * random.uniform(0.9, 1.1))' "$@"
}
period_of() {  # period_of COMM: the learned period in ms, or "none"
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["comm"] == sys.argv[1] and r["period"]]
print(r[0]["period"] // 1000 if r else "none")' "$1"
}
learned() { [ "$(period_of "$1")" != none ]; }

reader fast 1 "$T/proc/vmstat" &
FAST=$!
reader slow 3 "$T/sys/devices/system/node/node0/numastat" &
SLOW=$!
wait_for 20 learned fast
ok $? "the fast reader's period is learned"
wait_for 25 learned slow
ok $? "the slow reader's period is learned"
P=$(period_of fast)
ok $([ "$P" -ge 700 ] && [ "$P" -le 1300 ]; echo $?) "  fast: about 1 s ($P ms)"
P=$(period_of slow)
ok $([ "$P" -ge 2400 ] && [ "$P" -le 3600 ]; echo $?) "  slow: about 3 s ($P ms)"
# A measured period is shown to 10 ms ("every 1s 10ms"), not to its jitter.
ctl readers | grep -E "fast|slow" | grep -o "every [^,]*" | sed 's/^/: /' > "$T/every"
is "$(wc -l < "$T/every")" 2 "numastatctl readers shows both periods"
is "$(grep -cvE '^: every ([0-9]+s)?( ?[0-9]*0ms)?$' "$T/every")" 0 "  rounded to 10 ms ($(tr '\n' ' ' < "$T/every"))"
conforms Status "a status with periodic readers conforms to the interface file" <<< "$(ctl --json=short)"

# Only the slow one now: its reads are 3 s apart, linger is 1 s.
kill $FAST
wait $FAST 2>/dev/null
sleep 0.5
offs=0
for _ in $(seq 1 40); do [ "$(cat "$SYSCTL")" = 1 ] || offs=$((offs + 1)); sleep 0.2; done
is "$offs" 0 "counting stays on between the slow reader's reads, 3 s apart (linger 1 s): 8 s sampled"
R=$(ctl --json=short | json_get reason)
contains "$R" "which reads every" "the reason says who it waits for"
ok $(echo "$R" | grep -qE "reads every ([0-9]+s)?( ?[0-9]*0ms)?, expected"; echo $?) "  and its period, to 10 ms"
# A flood of one-off names (100 processes named at random, one read each)
# overfills the 64-entry table; the slow reader keeps its entry and period.
python3 "$SRCDIR/tests/integration/random-readers.py" 100 "$T/proc/vmstat"
evicted() { [ "$(ctl --json=short | json_get sources.readers_evicted)" -gt 0 ]; }
wait_for 10 evicted
ok $? "a flood of 100 one-off names overfills the reader table ($(ctl --json=short | json_get sources.readers_evicted) replaced)"
learned slow; ok $? "  the slow reader keeps its entry and its period ($(period_of slow) ms)"
offs=0
for _ in $(seq 1 40); do [ "$(cat "$SYSCTL")" = 1 ] || offs=$((offs + 1)); sleep 0.2; done
is "$offs" 0 "  and counting still stays on between its reads (8 s sampled)"
kill $SLOW
wait $SLOW 2>/dev/null
wait_for 10 sysctl_is 0
ok $? "the slow reader gone: counting goes off once its next read is overdue"

# Without learning (linger_max=0) the same reader finds counting off.
conf 0
kill -HUP "$DAEMON_PID"
wait_for 5 bash -c "grep -q 'linger_max' '$T/conf' && '$NUMASTATCTL' --socket='$SOCK' status >/dev/null"
reader slow2 3 "$T/sys/devices/system/node/node0/numastat" &
SLOW2=$!
# Its period is learned all the same (readers shows it); only no read is
# expected from it.
wait_for 25 learned slow2
ok $? "with linger_max=0 the reader's period is still learned ($(period_of slow2) ms)"
offs=0
for _ in $(seq 1 50); do [ "$(cat "$SYSCTL")" = 1 ] || offs=$((offs + 1)); sleep 0.2; done
ok $([ "$offs" -gt 0 ]; echo $?) "with linger_max=0 counting goes off between the same reader's reads ($offs of 50 samples off)"
kill $SLOW2
wait $SLOW2 2>/dev/null
stop_daemon

# A learned period ends linger for that reader: with linger=15s, a reader
# every 1 s that stops holds counting on only until its missed read (1 s
# and a 2 s margin), not for linger; and its reads, while it read, all
# found counting on.
auto_conf "linger_max = 1min" | sed 's/^linger = 1s$/linger = 15s/' > "$T/conf"
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with linger=15s"
wait_for 30 sysctl_is 0
ok $? "  the start's linger over, under pressure: counting off"
reader steady 1 "$T/proc/vmstat" &
STEADY=$!
wait_for 20 learned steady
ok $? "a reader every 1 s: its period is learned"
sleep 1
kill $STEADY
wait $STEADY 2>/dev/null
gone=$SECONDS
wait_for 15 sysctl_is 0
ok $? "  it stops: counting goes off"
ok $([ $((SECONDS - gone)) -lt 15 ]; echo $?) "  before linger=15s had passed since its last read ($((SECONDS - gone)) s)"
contains "$(ctl history)" "since, only reads by readers with a learned period, none due (last: steady" \
        "  the switch says the reads since linger's were by a reader with a learned period, none due"
set -- $(ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["comm"] == "steady"][0]
print(r["served"], r["unserved"])')
is "${2:-none}" 0 "  none of its reads found counting off since its previous one"
ok $([ "${1:-0}" -ge 3 ]; echo $?) "  $1 were served"

# A benchmark under a hold reads at its start and its end: its reads are
# the hold's, and do not linger once it ends. A read by another uid (its
# own command, made someone else) lingers as any other.
NODE0=$T/sys/devices/system/node/node0/numastat
bench_hold() {  # bench_hold [SETPRIV...]: a hold whose command reads NODE0 twice
        ctl hold --reason=bench -- "$@" sh -c "cat '$NODE0' > /dev/null; sleep 1; cat '$NODE0' > /dev/null"
}
bench_hold
released=$SECONDS
wait_for 15 sysctl_is 0
ok $? "a benchmark under a hold: counting off after it"
ok $([ $((SECONDS - released)) -lt 10 ]; echo $?) "  without waiting linger=15s after its reads ($((SECONDS - released)) s)"
contains "$(ctl history | tail -1)" "only reads that need no linger, the last by a hold's own command (last: cat" \
        "  the switch says its reads were the hold's command's"
# The same, the daemon stopped from the hold's start until the command and
# its shell are gone: its reads, handled after the release, are the hold's
# still (named from exit records, their parents too). 3,000 other exits
# between its reads, as on a busy machine: the daemon is thousands of
# records behind when it resumes, and still finds the shell's.
BURST=$BUILDDIR/tests/integration/exit-burst
ctl hold --reason=bench -- sh -c "kill -STOP $DAEMON_PID; cat '$NODE0' > /dev/null; '$BURST' 3000; cat '$NODE0' > /dev/null"
kill -CONT "$DAEMON_PID"
released=$SECONDS
wait_for 15 sysctl_is 0
ok $? "a benchmark whose reads the daemon handles after its hold ended: counting off"
took=$((SECONDS - released))
ok $([ $took -lt 10 ]; echo $?) "  without waiting linger=15s ($took s)"
if [ $took -ge 10 ]; then
        # Why: the switch's reason, the readers as judged, what exit records named.
        ctl history | tail -4 | sed 's/^/#   /'
        ctl readers | sed 's/^/#   /'
        ctl --json=short | python3 -c 'import json, sys; s = json.load(sys.stdin)["sources"]
print("#   exits named %s, missed %s" % (s["exits_named"], s["exits_missed"]))'
fi
bench_hold setpriv --reuid=65534 --regid=65534 --clear-groups
offs=0
for _ in $(seq 1 15); do [ "$(cat "$SYSCTL")" = 1 ] || offs=$((offs + 1)); sleep 0.2; done
is "$offs" 0 "the same, its command run as another uid: its reads linger (3 s sampled after the hold)"
wait_for 30 sysctl_is 0
ok $? "  until linger passed"
# Every number with a fraction or an exponent, as the daemon wrote it, is
# the shortest text that reads back the same (Python's repr is).
LONG=$(ctl --json=short | python3 -c 'import re, sys
raw = sys.stdin.read()
nums = re.findall(r"(?<![\w.])-?\d+(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)", raw)
print(len(nums), [n for n in nums if repr(float(n)) != n])')
is "$LONG" "$(echo "$LONG" | cut -d' ' -f1) []" "GetStatus prints each double (a share of time counted, a rate) in its shortest form ($LONG)"
stop_daemon
done_testing
