#!/bin/bash
# The daemon's own service figures: a counted read is served when counting
# was on without a break since the reader's previous read (a first read:
# for the preceding linger), unserved otherwise; a first read that found
# counting off is counted apart. On the fake mainline kernel, one reader
# meets each case; status, readers, GetStatus and the metrics say the same.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN"
fake_kernel_tree service

# Linger 10 s: time to look between a read and counting off again, and to
# read again within it, on a loaded CI machine too (3 s was not).
auto_conf "ignore = comm=quiet" | sed 's/^linger = 1s$/linger = 10s/' > "$T/conf"
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts (policy auto, linger 10s)"
fake rate 50000
wait_for 30 sysctl_is 0
ok $? "pressure, no reader: counting off"

# read_as COMM FILE: one read by a process named COMM, which stays a moment
# so that the daemon names it.
read_as() {
        python3 -c 'import ctypes, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
with open(sys.argv[2], "rb") as f: f.read()
time.sleep(0.3)' "$@"
}
status() { ctl --json=short | json_get "$1"; }
# service: "FIRST_OFF SERVED UNSERVED" in one call (a loaded machine pays
# for every call, and linger runs meanwhile).
service() {
        ctl --json=short | python3 -c 'import json, sys
s = json.load(sys.stdin)["service"]
print(s["first_reads_counting_off"], s["served"], s["unserved"])'
}
judged() {  # judged N: the table has judged N counted reads in all
        set -- "$1" $(service)
        [ $(($2 + $3 + $4)) -eq "$1" ]
}

read_as collector "$T/proc/vmstat"
wait_for 15 judged 1
ok $? "collector's first read is judged"
is "$(service)" "1 0 0" "  it found counting off: a first read counted apart, neither served nor unserved"
# At once, well within linger (10 s) on a loaded machine too.
read_as collector "$T/proc/vmstat"
wait_for 15 judged 2
is "$(service)" "1 1 0" "its next read, within linger, found counting on since the first: served"
sysctl_is 1
ok $? "  the first read had turned counting on"
is "$(status service.share_served)" 1.0 "  share_served 1.0"
# Within linger, collector keeps counting on: the metric an alert names it by.
M=$(ctl metrics)
contains "$M" 'numastatd_reader_keeps_counting_on{comm="collector"} 1' "metrics: collector keeps counting on"
contains "$M" "numastatd_coarse_above_pages_per_second 5000" "  beside coarse_above, for the alert on pressure"

wait_for 30 sysctl_is 0
ok $? "linger passed: counting off again"
read_as collector "$T/proc/vmstat"
wait_for 15 judged 3
is "$(status service.unserved)" 1 "a read after counting went off in between: unserved"
read_as quiet "$T/proc/vmstat"
wait_for 15 status_is sources.reads_ignored 1
ok $? "an ignored reader read"
is "$(status service.served) $(status service.unserved) $(status service.first_reads_counting_off)" "1 1 1" \
        "  its read is not judged"

# Counting on for longer than linger before a new reader's first read: served.
ctl set-policy strict > /dev/null
wait_for 15 sysctl_is 1
sleep 10.5      # linger is 10 s: the whole window must pass with counting on
read_as newcomer "$T/proc/vmstat"
wait_for 15 judged 4
is "$(status service.served)" 2 "a first read with counting on for all the linger before it: served"

S=$(ctl --json=short)
conforms Status "a status with service figures conforms to the interface file" <<< "$S"
R=$(echo "$S" | python3 -c 'import json, sys
for r in json.load(sys.stdin)["readers"]:
    print(r["comm"], r["served"], r["unserved"], r["first_reads_counting_off"])' | sort)
is "$R" "collector 1 1 1
newcomer 1 0 0
quiet 0 0 0" "GetStatus: each reader's own figures"

TEXT=$(ctl status)
contains "$TEXT" "Service: 66% of counted reads found counting on since their previous read (1 of 3 did not: collector 1); 1 first read found counting off" \
        "status says the service, floored, and who was not served"
contains "$(ctl readers)" "collector (pid" "readers lists collector"
ok $(ctl readers | grep "^collector" | grep -q "served 1 of 2, 1 first read found counting off"; echo $?) \
        "  with its service"

M=$(ctl metrics)
contains "$M" "numastatd_reads_served_total 2" "metrics: reads served"
is "$(grep -c '^numastatd_reader_keeps_counting_on{' <<< "$M")" 0 "  policy strict: no reader keeps counting on"
contains "$M" 'numastatd_reads_unserved_total{comm="collector"} 1' "metrics: unserved, by comm"
contains "$M" "numastatd_first_reads_counting_off_total 1" "metrics: first reads that found counting off"

# A hostile name leaves the daemon escaped, in the metrics and the status.
ctl set-policy auto > /dev/null
wait_for 30 sysctl_is 0
read_as $'evil"\nname' "$T/proc/vmstat"
wait_for 30 sysctl_is 0
read_as $'evil"\nname' "$T/proc/vmstat"
wait_for 15 judged 6
M=$(ctl metrics)
# C-escaped first, then as the exposition format wants (the reads_total labels' way).
contains "$M" 'numastatd_reads_unserved_total{comm="evil\\\"\\nname"} 1' "an unserved comm with a quote and a newline: escaped label"
is "$(ctl metrics | grep -c '^numastatd_reads_unserved_total{')" 2 "  one series per comm, no line broken"
ctl status | grep "Service:" | sed 's/^/# /'
ok $(ctl status | grep "Service:" | grep -qF 'evil\"\nname 1'; echo $?) "  status shows it escaped"

# A benchmark under a hold reads at its start what it subtracts at its
# end: the hold's start counts as its first read's previous one.
wait_for 30 sysctl_is 0
J=$(($(status service.served) + $(status service.unserved) + $(status service.first_reads_counting_off)))
declare -f read_as > "$T/read_as.sh"
ctl hold --reason=benchmark -- bash -c ". '$T/read_as.sh'; read_as bench '$T/proc/vmstat'; sleep 0.5; read_as bench '$T/proc/vmstat'"
ok $? "a benchmark ran under numastatctl hold"
wait_for 15 judged $((J + 2))
is "$(ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["comm"] == "bench"][0]
print(r["served"], r["unserved"], r["first_reads_counting_off"])')" "2 0 0" "  both its reads were served, the first by the hold"

stop_daemon
done_testing
