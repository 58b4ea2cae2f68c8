#!/bin/bash
# Short-lived readers named from their taskstats exit records: a one-off
# cat has usually exited before the daemon looks at /proc, so without its
# exit record it is unnamed, and an ignore rule cannot match it. 200 reads
# by an ignored one-off program under allocation pressure leave counting
# off every time; 200 by a counted one are each named in readers.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN, taskstats CAP_NET_ADMIN"
fake_kernel_tree exits
cp /bin/cat "$T/quietcat"
cp /bin/cat "$T/loudcat"

conf() {  # conf EXIT_RECORDS
        auto_conf "exit_records = $1" "ignore = exe=$T/quietcat" > "$T/conf"
}
conf yes
# reads_of COMM N: the readers list has N reads by COMM (the last exit
# records are handled; under ASan and a busy machine that takes a while).
reads_of() {
        [ "$(ctl --json=short readers | python3 -c 'import json, sys
print(sum(x["count"] for x in json.load(sys.stdin) if x["comm"] == sys.argv[1]))' "$1")" -ge "$2" ]
}
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with exit_records = yes"
S=$(ctl --json=short)
# Skipped only where the kernel has no taskstats (asked directly, not of
# the daemon); as root, a kernel that has them must give them.
if [ "$(echo "$S" | json_get sources.exit_records)" != true ] &&
   ! python3 "$SRCDIR/tests/integration/has-taskstats.py"; then
        skip "no taskstats in this kernel: $(echo "$S" | json_get sources.exit_records_error)"
        stop_daemon
        done_testing
        exit 0
fi
is "$(echo "$S" | json_get sources.exit_records)" true \
   "exit records are a reader source (the kernel has taskstats) $(echo "$S" | json_get sources.exit_records_error)"
contains "$(ctl status)" "exit records (taskstats)" "  numastatctl status says so"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"
sleep 1.5       # past linger: a counted read now would switch it on

before=$(ctl --json=short | json_get transitions_total)
for _ in $(seq 200); do "$T/quietcat" "$T/proc/vmstat" > /dev/null; done
wait_for 30 reads_of quietcat 200    # a switch, had there been one, came with them
S=$(ctl --json=short)
is "$(echo "$S" | json_get transitions_total)" "$before" \
   "200 one-off reads by an ignored program (exe= rule): counting never went on"
is "$(cat "$SYSCTL")" 0 "  and is off"
named=$(echo "$S" | json_get sources.exits_named)
missed=$(echo "$S" | json_get sources.exits_missed)
echo "# exited before the daemon looked: $named named from their exit record, $missed not in time"
ok $([ "$named" -gt 0 ]; echo $?) "  readers gone before the daemon looked were named from their exit records ($named)"
is "$missed" 0 "  none missed its record"
is "$(ctl --json=short readers | python3 -c 'import json,sys
r = [r for r in json.load(sys.stdin) if r["comm"] == "quietcat"]
print(sum(x["count"] for x in r) >= 200, all(x["ignored"] for x in r), len(r))')" "True True 1" \
   "  readers: quietcat, every read ignored, one line (seen alive or by its exit record)"

for _ in $(seq 200); do "$T/loudcat" "$T/proc/vmstat" > /dev/null; done
wait_for 30 reads_of loudcat 200
R=$(ctl --json=short readers)
got=$(echo "$R" | python3 -c 'import json,sys
r = json.load(sys.stdin)
loud = [x for x in r if x["comm"] == "loudcat"]
print(sum(x["count"] for x in loud) >= 200, all(not x["ignored"] for x in loud),
      len([x for x in r if not x["comm"]]), len(loud))')
is "$got" "True True 0 1" \
   "200 one-off reads by a counted program: each named loudcat, counted, none unattributed, one line"
if [ "$got" != "True True 0 1" ]; then
        echo "$R" | python3 -c 'import json, sys
for x in json.load(sys.stdin):
    if x["comm"] in ("loudcat", None):
        print("#   " + json.dumps({k: x.get(k) for k in ("comm", "exe", "unit", "uid", "count", "ignored", "why", "source", "verdict")}))'
        S=$(ctl --json=short)
        echo "#   named from exit records $(echo "$S" | json_get sources.exits_named), missed $(echo "$S" | json_get sources.exits_missed)"
        grep -E 'loudcat|exited during|exit record' "$DAEMON_LOG" | tail -n 20 | sed 's/^/#   log: /'
fi
contains "$(ctl history)" "loudcat" "  and the switch it caused names it"
stop_daemon

# Off: the same one-off readers may stay unnamed, and status says exit
# records are not in use.
conf no
start_daemon "$T" --config="$T/conf"
S=$(ctl --json=short)
is "$(echo "$S" | json_get sources.exit_records)" false "exit_records = no: not a source"
is "$(echo "$S" | json_get sources.exit_records_error)" null "  and not an error either"
stop_daemon
done_testing
