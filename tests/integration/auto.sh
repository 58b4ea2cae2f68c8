#!/bin/bash
# Policy auto end to end on a tmpfs --root tree with real fanotify: pressure
# turns counting off, a reader turns it on and is attributed, an ignored
# reader does not, the daemon's own sampling does not, counters add up
# across the reset, an external change is followed, history and Monitor.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN"
fake_kernel_tree auto

cat > "$T/conf" <<EOF2
[policy]
mode = auto
min_dwell = 0
[pressure]
interval = 100ms
coarse_above = 5000
strict_below = 500
sustain = 300ms
[readers]
linger = 2s
ignore = comm=head path=/proc/vmstat
[ledger]
insns_per_page = 42.5
EOF2
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with policy auto"
ctl --json=short monitor > "$T/monitor.out" 2>/dev/null &
MON_PID=$!
S=$(ctl --json=short)
is "$(echo "$S" | json_get kernel_mode)" strict "counting on at start"
is "$(echo "$S" | json_get sources.readers)" true "fanotify reader detection is on"
is "$(echo "$S" | json_get sources.watched)" \
   '["/proc/vmstat", "/proc/zoneinfo", "/sys/devices/system/node/node0/numastat", "/sys/devices/system/node/node1/numastat"]' \
   "watches the configured files under the root (node vmstat files absent in this tree)"
is "$(echo "$S" | json_get precision.max_drift)" 64 "counter precision from the tree's zoneinfo"

# Idle allocator: counting stays on however long nobody reads.
sleep 2.5
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "low allocation rate: counting stays on"
fake hit 3000 4000   # 4000 more counted before any reset
sleep 0.3

# Pressure and no reader: counting goes off; the daemon's own reads every
# 100 ms do not count as readers.
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "allocation pressure with no reader: counting off"
# Off by the counters, not the word: the fake kernel's numa_hit stops.
wait_for 5 fake_state_is counting 0     # it applies the write a moment later
fake grow on
H0=$(fake_state hit)
sleep 0.5
is "$(fake_state counting) $(fake_state hit)" "0 $H0" "the kernel stopped counting: numa_hit stays at $H0 under the load"
fake grow off
S=$(ctl --json=short)
contains "$(echo "$S" | json_get reason)" "coarse_above=5000" "reason names the pressure"
ok $([ "$(echo "$S" | json_get allocation_rate)" -gt 5000 ]; echo $?) "allocation rate measured above the threshold"
is "$(echo "$S" | json_get readers)" "[]" "the daemon's own sampling is no reader"
is "$(echo "$S" | json_get counters.resets_compensated)" 1 "the reset was compensated"

# The ledger books the pages allocated with counting off (the fake kernel
# allocates 50000 pages/s): they grow while off, and what that saved at the
# configured 42.5 instructions per page.
L1=$(ctl --json=short | json_get ledger.pages_counting_off)
sleep 0.5
S=$(ctl --json=short)
L2=$(echo "$S" | json_get ledger.pages_counting_off)
ok $([ "$L2" -ge $((L1 + 10000)) ]; echo $?) "ledger: pages allocated with counting off grow under the load ($L1 -> $L2)"
is "$(echo "$S" | json_get ledger.insns_saved)" "$(( L2 * 85 / 2 ))" "ledger: instructions saved = pages off x 42.5"
ok $(awk -v s="$(echo "$S" | json_get ledger.share_off)" 'BEGIN { exit !(s > 0 && s < 1) }'; echo $?) \
        "ledger: the share of pages allocated with counting off is between 0 and 1"
contains "$(ctl status)" "pages allocated with counting off" "numastatctl status shows the ledger"

# An ignored reader leaves it off, but is listed.
sleep 2 | head -c 20 "$T/proc/vmstat" - >/dev/null &
sleep 0.5
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "ignored reader (head of /proc/vmstat): still off"
S=$(ctl --json=short)
is "$(echo "$S" | json_get readers.0.comm)" head "ignored reader listed"
is "$(echo "$S" | json_get readers.0.ignored)" true "marked ignored"
is "$(echo "$S" | json_get readers.0.rule)" "comm=head path=/proc/vmstat" "with the rule that matched"

# A counted reader turns it on at once and is attributed.
# cat stays alive on its stdin after reading, so it can be attributed: a
# reader that is gone before the daemon looks is only a pid.
START=$(date +%s%N)
sleep 2 | cat "$T/sys/devices/system/node/node1/numastat" - >/dev/null &
wait_for 5 sysctl_is 1
ok $? "a reader (cat of node1/numastat) turns counting on"
echo "# reaction: $(( ($(date +%s%N) - START) / 1000000 )) ms from the read to counting on"
# Read while the pressure lasts: gone, the reason says that counting stays
# on because the rate is not above coarse_above.
S=$(ctl --json=short)
fake rate 0          # the pressure is gone before linger runs out
OFF_AT_ON=$(ctl --json=short | json_get ledger.pages_counting_off)
contains "$(echo "$S" | json_get reason)" "cat (pid" "reason names the reader"
contains "$(echo "$S" | json_get reason)" "read /sys/devices/system/node/node1/numastat" "and the file"
is "$(ctl --json=short readers | python3 -c 'import json,sys; print([r["comm"] for r in json.load(sys.stdin) if not r["ignored"]][0])')" \
   cat "numastatctl readers lists cat"
contains "$(ctl readers)" "read /sys/devices/system/node/node1/numastat" "numastatctl readers shows what it read"
contains "$(ctl status)" "Readers: 2 programs, costliest first:" "status shows the readers"

# Counters across the reset: 4000 counted before it, then 300 more.
fake hit 100 200
sleep 0.4
TOTAL=$(ctl --json=short | json_get counters.total.numa_hit)
is "$TOTAL" 4300 "numa_hit since start adds up across the reset (4000 + 300)"
is "$(ctl --json=short | json_get counters.nodes.1.numa_hit)" 2200 "node1 too (2000 + 200)"

# Pressure gone: past linger, below strict_below, it stays on.
sleep 2.5
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "no pressure: counting stays on after linger"
TOTAL1=$(ctl --json=short | json_get ledger.pages_total)
fake rate 2000          # below coarse_above: nothing switches
sleep 0.5
S=$(ctl --json=short)
fake rate 0
is "$(echo "$S" | json_get ledger.pages_counting_off)" "$OFF_AT_ON" "ledger: nothing more is booked off while counting is on"
ok $([ "$(echo "$S" | json_get ledger.pages_total)" -gt "$TOTAL1" ]; echo $?) "ledger: while the total goes on growing"

# Someone else changes the mode: followed, shown, and resumed on set-policy.
echo 0 > "$T/proc/sys/vm/numa_stat"
wait_for 5 status_is paused true
ok $? "external change detected: policy paused (on_external_change=follow)"
sleep 0.3
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "the admin's value is left alone"
contains "$(ctl history)" "external" "history shows the external change"
ctl set-policy auto >/dev/null
wait_for 5 sysctl_is 1
ok $? "set-policy resumes the policy"

HIST=$(ctl history)
contains "$HIST" "strict  -> coarse  policy" "history: the switch off"
contains "$HIST" "coarse  -> strict  policy" "history: the switch on"
kill $MON_PID 2>/dev/null
sleep 0.2
ok $([ "$(grep -c '"kernel_mode":"coarse"' "$T/monitor.out")" -ge 1 ]; echo $?) "Monitor streamed the switch off"
ok $(grep -q '"comm":"cat"' "$T/monitor.out"; echo $?) "Monitor streamed the new reader"

# A node hot-added (a uevent from the real kernel, not the tree: synthetic
# "change" of cpu0) refreshes the topology.
if host_uevent /sys/devices/system/cpu/cpu0/uevent; then
        wait_for 5 status_at_least sources.topology_changes 1
        ok $? "a cpu uevent refreshes the topology"
else
        skip "no synthetic uevent of cpu0 (see above)"
fi

# A node appears (in the tree) and the kernel says so (a synthetic
# "change" uevent of node0 from the real kernel: any node event re-reads):
# the topology is re-read and the new node's files are marked.
mkdir -p "$T/sys/devices/system/node/node2"
echo "" > "$T/sys/devices/system/node/node2/cpulist"
echo "Node 2 MemTotal:        524288 kB" > "$T/sys/devices/system/node/node2/meminfo"
cp "$T/sys/devices/system/node/node0/numastat" "$T/sys/devices/system/node/node2/numastat"
if host_uevent /sys/devices/system/node/node0/uevent; then
        wait_for 5 status_is nodes.2.id 2
        ok $? "a node uevent re-reads the topology (node2 from the tree)"
        contains "$(ctl --json=short | json_get sources.watched)" "/sys/devices/system/node/node2/numastat" \
                 "and marks the new node's numastat"
        sleep 2 | cat "$T/sys/devices/system/node/node2/numastat" - >/dev/null &
        wait_for 5 bash -c "'$NUMASTATCTL' --socket='$SOCK' readers | grep -q 'cat .* read /sys/devices/system/node/node2/numastat'"
        ok $? "a read of the new node's numastat is seen"
else
        skip "no synthetic uevent of node0 (see above)"
        skip "(node files re-marked)"
        skip "(new node read seen)"
fi

stop_daemon TERM
is "$DAEMON_STATUS" 0 "clean exit"
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "counting left on"
rm -r "$T/sys/devices/system/node/node2"
# ---- dry run: decides and reports, writes nothing ----
sed -e 's/^mode = auto$/mode = auto\ndry_run = yes/' -e 's/^linger = 2s$/linger = 500ms/' "$T/conf" > "$T/conf-dry"
start_daemon "$T" --config="$T/conf-dry"
fake rate 50000
wait_for 15 status_is target_mode coarse
ok $? "dry run: the policy decides counting off"
S=$(ctl --json=short)
is "$(echo "$S" | json_get kernel_mode)" strict "dry run: the kernel keeps counting"
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "dry run: nothing written"
is "$(echo "$S" | json_get transitions.0.kind)" dry-run "the would-be switch is in the history as dry-run"
# Five more samples decide again (the reason reworded to "stay off"): still one record.
wait_for 10 status_at_least sources.samples_total $(($(echo "$S" | json_get sources.samples_total) + 5))
is "$(ctl --json=short | json_get transitions_total)" 1 "  once: later decisions for the same mode are not more would-be switches"
contains "$(ctl status)" "dry run: nothing is written" "status says dry run"
fake rate 0
# The admin turns counting off: exit_mode (strict) would write 1 back.
echo 0 > "$T/proc/sys/vm/numa_stat"
wait_for 10 status_is kernel_mode coarse
stop_daemon TERM
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "dry run: exit leaves the kernel alone (0, as the admin set it)"
echo 1 > "$T/proc/sys/vm/numa_stat"

# ---- on_external_change = override ----
printf '[policy]\nmode = strict\non_external_change = override\n[pressure]\ninterval = 100ms\n' > "$T/conf-override"
start_daemon "$T" --config="$T/conf-override"
echo 0 > "$T/proc/sys/vm/numa_stat"
wait_for 5 sysctl_is 1
ok $? "override: the policy's mode is written back"
S=$(ctl --json=short)
is "$(echo "$S" | json_get paused)" false "override: not paused"
is "$(echo "$S" | json_get transitions.0.kind)" external "the external change is in the history"
is "$(echo "$S" | json_get transitions.1.to)" strict "followed by the switch back"
stop_daemon TERM

# ---- cost: how long each reader's reads held counting on under pressure ----
# held_on COMM: its held_on_seconds (0 if not listed).
held_on() {
        ctl --json=short readers | python3 -c '
import json, sys
print(sum(r["held_on_seconds"] for r in json.load(sys.stdin) if r["comm"] == sys.argv[1]))' "$1"
}
held_on_at_least() { awk -v a="$(held_on "$1")" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
pressure_at_least() { awk -v a="$(ctl --json=short | json_get pressure.seconds)" -v b="$1" 'BEGIN { exit !(a >= b) }'; }
start_daemon "$T" --config="$T/conf"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "cost: pressure turns counting off"
# One process reading every 200 ms (a copy of bash: comm "costly").
cp /bin/bash "$T/costly"
"$T/costly" -c 'while :; do read -r _ < "$1"; sleep 0.2; done' costly "$T/proc/vmstat" &
COSTLY=$!
wait_for 5 sysctl_is 1
ok $? "cost: its reads turn counting on"
wait_for 20 held_on_at_least costly 1.5
ok $? "cost: it is charged the time its reads hold counting on under pressure ($(held_on costly) s)"
S=$(ctl --json=short)
is "$(echo "$S" | json_get readers.0.comm)" costly "cost: the costliest reader comes first"
ok "$(awk -v h="$(echo "$S" | json_get readers.0.held_on_seconds)" -v p="$(echo "$S" | json_get pressure.seconds)" \
        -v s="$(echo "$S" | json_get readers.0.held_on_share)" 'BEGIN { exit !(p >= h && s > 0 && s <= 1 && (s * p - h) ^ 2 < 0.01) }'; echo $?)" \
   "cost: its share is of the pressured time ($(echo "$S" | json_get readers.0.held_on_share))"
ST=$(ctl status)
contains "$ST" "Held on by: costly " "cost: status names the costliest reader"
contains "$ST" "of the pressured time, unknown reader" "  as an unknown reader"
contains "$ST" "to ignore it: [readers] ignore = exe=$T/costly path=/proc/vmstat" "  with the rule that would ignore it"
contains "$ST" "first check that nothing uses the numa_* values it reads" "  and what to check first"
contains "$(ctl metrics)" 'numastatd_reader_held_on_seconds_total{comm="costly",verdict="unknown"} ' \
         "cost: the metrics carry it by comm and verdict"
kill "$COSTLY"
wait "$COSTLY" 2>/dev/null
wait_for 15 sysctl_is 0
ok $? "cost: the reader gone, counting goes off past linger"
H1=$(held_on costly)
P1=$(ctl --json=short | json_get pressure.seconds)
wait_for 15 pressure_at_least "$(awk -v p="$P1" 'BEGIN { print p + 1 }')"
ok $? "cost: the pressured time goes on growing"
is "$(held_on costly)" "$H1" "cost: a reader that stopped costs nothing more"
# The best possible over the daemon's own trace (slots of 1 s here: the
# sampling interval, at least a second): there once a slot is whole, and
# its figures hang together.
wait_for 30 bash -c "'$NUMASTATCTL' --socket='$SOCK' --json=short | grep -q '\"best_possible\":{'"
ok $? "best: the best possible is reported once a slot is whole"
S=$(ctl --json=short)
B=$(echo "$S" | json_get best_possible)
ok "$(echo "$B" | python3 -c '
import json, sys
b = json.load(sys.stdin)
ok = (b["window_seconds"] >= 1 and b["pages_total"] > 0
      and 0 < b["pages_counting_off_best"] <= b["pages_total"] and b["pages_counting_off"] <= b["pages_total"]
      and abs(b["share_of_best"] - b["pages_counting_off"] / b["pages_counting_off_best"]) < 1e-6)
sys.exit(0 if ok else 1)'; echo $?)" "best: window, pages and shares hang together ($B)"
contains "$(ctl status)" "the best schedule keeps counting off for" "best: status says it"
contains "$(ctl metrics)" 'numastatd_window_pages_counting_off{schedule="best"} ' "best: the metrics carry it"
stop_daemon TERM

done_testing
