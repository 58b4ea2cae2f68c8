#!/bin/bash
# The real numastatd on --root trees of every kernel kind, driven by the
# real numastatctl over the real socket.
. "$(dirname "$0")/lib.sh"

require_root "the non-root refusal is checked by switching to uid 65534"
nobody_copy NOBODY_CTL "$NUMASTATCTL"   # the build tree may be out of uid 65534's reach

# ---- mainline tree: strict and coarse end to end ----
T=$(make_tree mainline); cleanup_trees+=("$T")
printf '[policy]\nmode = strict\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts on a mainline tree"
S=$(ctl --json=short)
is "$(echo "$S" | json_get backend)" numa_stat "backend detected: numa_stat"
is "$(echo "$S" | json_get kernel_mode)" strict "kernel_mode strict"
is "$(echo "$S" | json_get policy)" strict "policy strict from config"
is "$(echo "$S" | json_get dry_run)" false "not a dry run"
# Fallbacks: what this kernel and the libsystemd built against lack, each
# listed where it is lacking and only there.
FB=$(echo "$S" | json_get sources.fallbacks)
kernel_at_least() { printf '%s\n%s\n' "$1" "$(uname -r | cut -d- -f1)" | sort -V -C; }
want() { if "$@"; then echo 0; else echo 1; fi; }
# Before libsystemd 248 the daemon limits its sources' wakeups itself: no
# fallback to tell (test-event-ratelimit, flood.sh in the Debian 11 root).
is "$(grep -c 'rate limit' <<< "$FB")" 0 \
   "fallbacks: no event rate limit fallback, whatever libsystemd (built with $(pkg-config --modversion libsystemd))"
is "$(grep -c 'no statmount()' <<< "$FB")" "$(want kernel_at_least 6.11)" \
   "  no statmount(), only before Linux 6.11 ($(uname -r))"
is "$(grep -c 'fanotify without pidfds' <<< "$FB")" "$(want kernel_at_least 5.15)" "  no pidfds, only before Linux 5.15"
is "$(ctl status | grep -c '^ *Fallback: ')" "$(python3 -c 'import json, sys; print(len(json.loads(sys.argv[1])))' "$FB")" \
   "  numastatctl status prints each on a line"
is "$(echo "$S" | json_get nodes.1.cpus)" "[2, 3]" "node1's cpus from the tree"
is "$(echo "$S" | json_get nodes.0.memory_total_bytes)" 1073741824 "node0's memory from the tree"
is "$(echo "$S" | json_get transitions_total)" 0 "no switch needed at start"
ok $([ -S "$SOCK" ] && [ "$(stat -c %a "$SOCK")" = 666 ]; echo $?) "socket created in a new directory, mode 0666"

ctl set-policy coarse >/dev/null
ok $? "set-policy coarse succeeds"
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "the tree's numa_stat now holds 0"
S=$(ctl --json=short)
is "$(echo "$S" | json_get kernel_mode)" coarse "status shows coarse"
is "$(echo "$S" | json_get policy_source)" SetPolicy "status says who set the policy"
is "$(echo "$S" | json_get transitions.0.to)" coarse "transition recorded"
contains "$(echo "$S" | json_get reason)" "policy coarse" "reason explains the switch"

# Non-root: may read the status, may not change the policy.
OUT=$(as_nobody "$NOBODY_CTL" --socket="$SOCK" set-policy strict 2>&1)
is "$?" 4 "non-root set-policy exits 4 (permission denied)"
contains "$OUT" "permission denied" "and says so"
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "the file did not change"
as_nobody "$NOBODY_CTL" --socket="$SOCK" reload >/dev/null 2>&1
is "$?" 4 "non-root reload refused"
check "non-root status works" as_nobody "$NOBODY_CTL" --socket="$SOCK" status

# A file that vanished: a clear error, never success, and the daemon lives.
rm "$T/proc/sys/vm/numa_stat"
OUT=$(ctl set-policy strict 2>&1)
is "$?" 1 "set-policy on a vanished sysctl fails (exit 1)"
contains "$OUT" "No such file or directory" "error names the cause"
S=$(ctl --json=short)
contains "$(echo "$S" | json_get last_error.message)" "numa_stat" "status carries the last error"
ok $([ ! -e "$T/proc/sys/vm/numa_stat" ]; echo $?) "no regular file was created in its place"
ok $(kill -0 "$DAEMON_PID"; echo $?) "daemon still running"
echo 0 > "$T/proc/sys/vm/numa_stat"
ctl set-policy strict >/dev/null
ok $? "set-policy works again once the file is back"
is "$(ctl --json=short | json_get last_error)" null "and the error clears"

# Reload: a bad file keeps the running config and shows the error.
printf '[policy]\nmode = coarse\nmin_dwell = soon\n' > "$T/conf"
OUT=$(ctl reload 2>&1)
is "$?" 1 "reload of a bad config fails"
contains "$OUT" "$T/conf:3" "error names file:line"
S=$(ctl --json=short)
contains "$(echo "$S" | json_get config_error)" "min_dwell" "status shows the rejected key"
is "$(ctl status | head -c 2)" "×" "a rejected reload: status's first line starts with ×, as for an error"
is "$(echo "$S" | json_get kernel_mode)" strict "running policy kept"
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "kernel untouched"
# SIGHUP with a good file applies it and drops the SetPolicy override.
printf '[policy]\nmode = coarse\n' > "$T/conf"
kill -HUP "$DAEMON_PID"
numa_stat_is() { [ "$(cat "$T/proc/sys/vm/numa_stat")" = "$1" ]; }
wait_for 5 numa_stat_is 0
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "SIGHUP reload applies mode=coarse"
S=$(ctl --json=short)
is "$(echo "$S" | json_get config_error)" null "config error cleared"
is "$(ctl status | head -c 3)" "●" "  and status's first line starts with ● again"
is "$(echo "$S" | json_get policy_source)" config "policy back from config"

# Clean shutdown restores strict and removes the socket.
stop_daemon TERM
is "$DAEMON_STATUS" 0 "SIGTERM: exit 0"
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "SIGTERM left counting on (exit_mode=strict)"
ok $([ ! -e "$SOCK" ]; echo $?) "socket removed"
contains "$(cat "$T/daemon.log")" "Restored NUMA statistics from coarse to strict: daemon stopping (exit_mode=strict)" "shutdown logged"

# ---- patched v3 tree ----
T=$(make_tree v3); cleanup_trees+=("$T")
printf '[policy]\nmode = coarse\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"
S=$(ctl --json=short)
is "$(echo "$S" | json_get backend)" numa_stats_mode "v3 tree: backend numa_stats_mode"
is "$(cat "$T/proc/sys/vm/numa_stats_mode")" coarse "policy coarse wrote 'coarse'"
ctl set-policy strict >/dev/null
is "$(cat "$T/proc/sys/vm/numa_stats_mode")" strict "set-policy strict wrote 'strict'"
ctl set-policy coarse >/dev/null
stop_daemon INT
is "$DAEMON_STATUS" 0 "SIGINT: exit 0"
is "$(cat "$T/proc/sys/vm/numa_stats_mode")" strict "SIGINT restored strict"

# exit_mode=previous puts back what was found.
printf '[policy]\nmode = coarse\nexit_mode = previous\n' > "$T/conf"
echo auto > "$T/proc/sys/vm/numa_stats_mode"
start_daemon "$T" --config="$T/conf"
is "$(cat "$T/proc/sys/vm/numa_stats_mode")" coarse "coarse applied"
stop_daemon TERM
is "$(cat "$T/proc/sys/vm/numa_stats_mode")" auto "exit_mode=previous restored auto"

# ---- patched v1/v2 tree ----
T=$(make_tree v2); cleanup_trees+=("$T")
printf '[policy]\nmode = coarse\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"
is "$(ctl --json=short | json_get backend)" vmstat_mode "v2 tree: backend vmstat_mode"
is "$(cat "$T/proc/sys/vm/vmstat_mode")" coarse "wrote 'coarse' to vmstat_mode"
stop_daemon TERM
is "$(cat "$T/proc/sys/vm/vmstat_mode")" strict "restored strict"

# ---- no NUMA interface ----
T=$(make_tree none); cleanup_trees+=("$T")
printf '[policy]\nmode = coarse\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"
S=$(ctl --json=short)
is "$(echo "$S" | json_get backend)" none "no sysctl: backend none"
is "$(echo "$S" | json_get kernel_mode)" unknown "kernel_mode unknown"
contains "$(echo "$S" | json_get reason)" "observing only" "reason says it only observes"
contains "$(ctl status)" "no NUMA statistics interface" "status says so to a person"
is "$(ctl counters)" "No NUMA counters: the kernel keeps none here (no NUMA statistics interface)." \
   "counters says there are none, not an empty table with a share and an armed auto"
stop_daemon TERM
is "$DAEMON_STATUS" 0 "stops cleanly"
is "$(ls "$T/proc/sys/vm")" "" "nothing written"

# ---- dry run ----
T=$(make_tree mainline); cleanup_trees+=("$T")
printf '[policy]\nmode = coarse\n' > "$T/conf"
start_daemon "$T" --config="$T/conf" --dry-run
S=$(ctl --json=short)
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "--dry-run: nothing written"
is "$(echo "$S" | json_get dry_run)" true "status dry_run true"
is "$(echo "$S" | json_get target_mode)" coarse "target_mode says what it would do"
is "$(echo "$S" | json_get transitions.0.dry_run)" true "would-be switch recorded as dry run"
# set-policy without --no-dry-run keeps dry run on, and says so.
is "$(ctl set-policy coarse)" "Policy set to coarse (dry run)." "set-policy without --no-dry-run: still a dry run, and it says so"
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "  and nothing written"
contains "$(ctl status)" "Policy: coarse (from numastatctl set-policy), dry run" \
         "status names the command that set the policy, not the varlink method"
# SetPolicy can turn dry run off at run time.
is "$(ctl set-policy coarse --no-dry-run)" "Policy set to coarse." "set-policy --no-dry-run: no longer a dry run"
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "set-policy --no-dry-run writes"
stop_daemon TERM
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "and the exit restores strict"

# ---- a kernel without VM event counters: no pgalloc_*, no rate ----
T=$(make_tree mainline); cleanup_trees+=("$T")
printf 'nr_free_pages 100\nnuma_hit 5\nnuma_miss 0\nnuma_foreign 0\nnuma_interleave 0\nnuma_local 5\nnuma_other 0\n' > "$T/proc/vmstat"
printf '[policy]\nmode = auto\n[pressure]\ninterval = 100ms\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"
has_rate_error() { [ "$(ctl --json=short | json_get sources.rate_error)" != null ]; }
wait_for 5 has_rate_error
contains "$(ctl --json=short | json_get sources.rate_error)" "CONFIG_VM_EVENT_COUNTERS" "no pgalloc_* lines: status says why there is no rate"
contains "$(ctl status)" "Warning: no pgalloc_* lines" "numastatctl status shows it"
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "and auto keeps counting on"
stop_daemon TERM

# ---- crash safety ----
T=$(make_tree mainline); cleanup_trees+=("$T")
printf '[policy]\nmode = coarse\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "coarse applied"
STATE="$T/run/numastatd/restore"
contains "$(cat "$STATE" 2>/dev/null)" "restore=strict" "the mode to restore is recorded in the runtime directory"
OUT=$("$NUMASTATD" --root="$T" --socket="$SOCK" --runtime-dir="$T/run/numastatd" --config="$T/conf" 2>&1)
is "$?" 1 "a second daemon on the same socket refuses to start"
contains "$OUT" "Another numastatd" "and says why"
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "without touching the kernel"
stop_daemon KILL
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "SIGKILL leaves the kernel as it was"
OUT=$("$NUMASTATD" --restore --root="$T" --runtime-dir="$T/run/numastatd" 2>&1)
is "$?" 0 "numastatd --restore succeeds"
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "and puts counting back on"
contains "$OUT" "did not stop cleanly; restored NUMA statistics from coarse to strict" "and says what it did"
ok $([ ! -e "$STATE" ]; echo $?) "the state file is gone"
OUT=$("$NUMASTATD" --restore --root="$T" --runtime-dir="$T/run/numastatd" 2>&1)
is "$?" 0 "--restore with nothing to do succeeds"
contains "$OUT" "Nothing to restore" "and says so"

# A crash, then a plain restart: it restores first and says so.
start_daemon "$T" --config="$T/conf"
stop_daemon KILL
printf '[policy]\nmode = strict\nexit_mode = previous\n' > "$T/conf"
echo 0 > "$T/proc/sys/vm/numa_stat"     # what the crashed daemon left
start_daemon "$T" --config="$T/conf"
contains "$(cat "$T/daemon.log")" "did not stop cleanly" "a restart after a crash restores first and logs it"
stop_daemon TERM
is "$(cat "$T/proc/sys/vm/numa_stat")" 1 "exit_mode=previous restores what the admin had (1), not what the crash left"
ok $([ ! -e "$STATE" ]; echo $?) "a clean stop removes the state file"

# ---- its own samples are quiet ----
# The daemon rereads the files it samples through fds kept open, and takes
# over fanotify's fd from its first read of each: later samples are
# reported to no fanotify group, its own or anyone's, and cost it no
# event. A group of our own counts what the daemon's reads still report.
T=$(make_tree mainline); cleanup_trees+=("$T")
printf 'pgalloc_normal 100\nnuma_hit 10\nnuma_miss 0\nnuma_foreign 0\nnuma_interleave 0\nnuma_local 10\nnuma_other 0\n' > "$T/proc/vmstat"
for n in 0 1; do
        printf 'numa_hit 5\nnuma_miss 0\nnuma_foreign 0\ninterleave_hit 0\nlocal_node 5\nother_node 0\n' \
                > "$T/sys/devices/system/node/node$n/numastat"
done
printf '[policy]\nmode = strict\n[pressure]\ninterval = 100ms\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"
N=$(ctl --json=short | json_get sources.samples_total)
wait_for 10 status_at_least sources.samples_total $((N + 2))
FILES=("$T/proc/vmstat" "$T/sys/devices/system/node/node0/numastat" "$T/sys/devices/system/node/node1/numastat")
"$BUILDDIR/tests/integration/fan-count" "$T/fan-ready" "$DAEMON_PID" "${FILES[@]}" > "$T/fan-count" &
FAN=$!
wait_for 10 test -e "$T/fan-ready"
N=$(ctl --json=short | json_get sources.samples_total)
wait_for 10 status_at_least sources.samples_total $((N + 5))
ok $? "five samples taken (counting on: vmstat and each node's numastat read)"
cat "${FILES[@]}" > /dev/null
kill -TERM $FAN; wait $FAN
is "$(sed -n "s/^$DAEMON_PID //p" "$T/fan-count")" 0 "the daemon's samples report no read to fanotify"
ok $([ "$(sed -n 's/^others //p' "$T/fan-count")" -ge 3 ]; echo $?) "  while others' reads of the same files are reported"
stop_daemon TERM

# ---- --check-config ----
printf '[readers]\nignore = exe=/no/such/binary\nignore = exe=/bin/sh\n' > "$T/exe.conf"
OUT=$("$NUMASTATD" --check-config --config="$T/exe.conf" 2>&1)
is "$?" 0 "--check-config: a rule for a binary that does not exist is not an error"
contains "$OUT" "exe.conf:2: exe=/no/such/binary does not exist: the rule matches nothing until it does." \
         "  but it is warned about, naming the line"
ok $(! echo "$OUT" | grep -q "/bin/sh does not exist"; echo $?) "  and one that exists is not"
# The default file is where configure's --sysconfdir put it (make distcheck: its prefix's).
DEFAULT_CONF=$("$NUMASTATD" --help | sed -n 's/.*configuration file (default \(.*\))$/\1/p')
OUT=$("$NUMASTATD" --check-config 2>&1)
if [ -z "$DEFAULT_CONF" ]; then
        ok 1 "numastatd --help names the default configuration file"
elif [ -e "$DEFAULT_CONF" ]; then
        skip "this machine has $DEFAULT_CONF: the missing default file cannot be tried"
else
        is "$OUT" "$DEFAULT_CONF: not found, the built-in defaults apply: OK" \
           "--check-config without the default file says the defaults apply, not just OK"
fi

done_testing
