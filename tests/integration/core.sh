#!/bin/bash
# The one-way core, end to end on a fake-kernel tree: Monitor sends an
# update for a change and stays quiet while only the rate ticks; causes as
# data in history and status; a reload that changes a threshold is judged at
# once with the samples' own times; a burst of uevents is one topology reload.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN"
fake_kernel_tree core

monitor_lines() { wc -l < "$T/monitor.out"; }

cat > "$T/conf" <<EOF
[policy]
mode = auto
min_dwell = 0
[pressure]
interval = 100ms
coarse_above = 5000
strict_below = 500
sustain = 300ms
[readers]
linger = 1s
EOF
fake rate 1000
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts"
wait_for 5 status_is rule on-not-above
ok $? "a rate between the thresholds: counting on, rule on-not-above"

# ---- Monitor: quiet while numbers tick, an update for a change ----
ctl --json=short monitor > "$T/monitor.out" 2>/dev/null &
MON_PID=$!
wait_for 5 lines_at_least "$T/monitor.out" 1
# The first line is the whole status (waited for whole: a status of several
# KiB may be seen half written). A second may follow at once when
# another test's uevent reloads the topology: a real change, which the
# repeat check below tells from a tick.
first=$(head -1 "$T/monitor.out" | python3 -c 'import json, sys; l = json.loads(sys.stdin.read()); print(l.get("parameters", l).get("policy"))' 2>/dev/null)
is "$first" auto "Monitor: the status at once"
for r in 1500 2500 3500 1200; do fake rate $r; sleep 0.4; done
# Another test's host uevent (a topology reload) or the like is a real
# change and earns an update; an update that changed nothing but what
# ticks with the rate is a repeat.
monitor_repeats() {
        python3 - "$T/monitor.out" <<'PYEND'
import json, sys
TICKS = {"allocation_rate", "ledger.pages_total", "sources.samples_total"}
# Whole lines only: the last may still be being written.
lines = [json.loads(l) for l in open(sys.argv[1]).read().split("\n")[:-1] if l.strip()]
lines = [l.get("parameters", l) for l in lines]
def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        else:
            out[pre + k] = v
    return out
lines = [flat(l) for l in lines]
repeats = 0
for a, b in zip(lines, lines[1:]):
    changed = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    print("#   an update changed:", changed, file=sys.stderr)
    repeats += set(changed) <= TICKS
print(repeats)
PYEND
}
is "$(monitor_repeats 2>"$T/monitor.why")" 0 "Monitor: no update while only the allocation rate ticks (2 s, 4 rates)"
cat "$T/monitor.why"    # what each update changed, if any came
ok $([ "$(ctl --json=short | json_get allocation_rate)" -gt 1000 ]; echo $?) "  (the rate did change: $(ctl --json=short | json_get allocation_rate) pages/s)"
sleep 2 | cat "$T/proc/vmstat" - >/dev/null &
wait_for 5 lines_at_least "$T/monitor.out" 2
ok $? "Monitor: an update for a new reader"
# An update after the first, whole, names it (another test's uevent may have
# earned one before it).
names_cat() { whole_lines "$T/monitor.out" | tail -n +2 | grep -q '"comm":"cat"'; }
wait_for 5 names_cat
ok $? "  naming it"
kill $MON_PID

# ---- causes as data ----
fake rate 50000
wait_for 10 sysctl_is 0
ok $? "pressure and no reader within linger: counting off"
S=$(ctl --json=short)
is "$(echo "$S" | json_get cause)" pressure-above "status: cause pressure-above"
wait_for 5 status_is rule off-waiting
ok $? "status: rule off-waiting, after the switch"
is "$(echo "$S" | json_get transitions.-1.cause)" pressure-above "history: the switch off was pressure"
sleep 2 | cat "$T/sys/devices/system/node/node0/numastat" - >/dev/null &
CAT=$!
wait_for 5 sysctl_is 1
ok $? "a reader turns counting on"
S=$(ctl --json=short)
is "$(echo "$S" | json_get cause)" read "status: cause read"
is "$(echo "$S" | json_get cause_reader.comm)" cat "status: the cause's reader is cat"
is "$(echo "$S" | json_get transitions.-1.cause)" read "history: the switch on was a read"
is "$(echo "$S" | json_get transitions.-1.reader.path)" /sys/devices/system/node/node0/numastat \
   "history: with the file it read"
contains "$(ctl history)" "cause read" "numastatctl history shows the cause"
stop_daemon TERM

# ---- a reload re-judges the rate with the samples' own times ----
# Above 5000 for seconds, but coarse_above is 10000: counting stays on. A
# reload that lowers coarse_above to 5000 finds the rate above it since long
# before, past sustain (5 s): counting goes off at once, not one sample plus
# sustain later. "At once" is judged by the switch's own time, before sustain
# could have passed since the reload, so a slow machine cannot fail it.
cat > "$T/conf" <<EOF
[policy]
mode = auto
min_dwell = 0
[pressure]
interval = 1s
coarse_above = 10000
strict_below = 500
sustain = 5s
[readers]
linger = 0
EOF
fake rate 7000
start_daemon "$T" --config="$T/conf"
sleep 9         # the first rate comes from the second sample: above 5000 for 6-7 s
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "7000 pages/s under coarse_above=10000: counting on"
# The reload also sets the next sample a minute away: only the reload itself
# can make this switch.
sed -i -e 's/^coarse_above = 10000$/coarse_above = 5000/' -e 's/^interval = 1s$/interval = 60s/' "$T/conf"
T0=$(( $(date +%s%N) / 1000 ))
ctl reload >/dev/null
wait_for 10 sysctl_is 0
ok $? "reload to coarse_above=5000: counting off"
S=$(ctl --json=short)
MS=$(( ($(echo "$S" | json_get transitions.-1.time) - T0) / 1000 ))
ok $([ "$MS" -ge 0 ] && [ "$MS" -lt 5000 ]; echo $?) \
   "  at once: the switch $MS ms after the reload, before sustain (5 s) could pass"
contains "$(echo "$S" | json_get transitions.-1.reason)" "above coarse_above=5000 for 5s" \
         "  the switch's reason names the new threshold"
# Raising it again above the rate: the reason never claims what is not.
sed -i 's/^coarse_above = 5000$/coarse_above = 20000/' "$T/conf"
ctl reload >/dev/null
sleep 1.5
S=$(ctl --json=short)
contains "$(echo "$S" | json_get reason)" "allocation rate between strict_below=500 and coarse_above=20000" \
         "reload to coarse_above=20000: the reason says the rate is between"
stop_daemon TERM

# ---- a burst of uevents is one topology reload ----
start_daemon "$T" --config="$T/conf"
C0=$(ctl --json=short | json_get sources.topology_changes)
R0=$(ctl --json=short | json_get sources.topology_reloads)
if host_uevent /sys/devices/system/memory/memory0/uevent 40; then
        wait_for 5 status_at_least sources.topology_changes $((C0 + 40))
        ok $? "40 memory uevents seen"
        sleep 0.5
        R1=$(ctl --json=short | json_get sources.topology_reloads)
        C1=$(ctl --json=short | json_get sources.topology_changes)
        # Other tests' uevents (auto.sh's cpu0 and node0) may land within
        # the burst: each may cost one reload more, never 40.
        OTHERS=$((C1 - C0 - 40))
        ok $([ $((R1 - R0)) -ge 1 ] && [ $((R1 - R0)) -le $((2 + OTHERS)) ]; echo $?) \
           "  coalesced into $((R1 - R0)) topology reload(s), not 40 ($OTHERS other uevent(s))"
else
        skip "no synthetic uevents of memory0 (see above)"
        skip "(coalescing)"
fi
stop_daemon TERM

done_testing
