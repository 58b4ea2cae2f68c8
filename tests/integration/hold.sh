#!/bin/bash
# numastatctl hold: counting on for the length of a command (or a timeout),
# asked by any user, released when the command exits or the client dies;
# shown in status and readers with its owner; refused where it cannot be
# kept; limited per user.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN, and holds are tried as uid 65534"
nobody_copy NOBODY_CTL "$NUMASTATCTL"   # the build tree may be out of uid 65534's reach
fake_kernel_tree hold

auto_conf > "$T/conf"
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with policy auto"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"
holds() { ctl --json=short | json_get holds | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }

# ---- a command runs with counting on, and the hold outlasts linger ----
# The command runs until the test lets it go ($T/go), so that it is still
# held when checked, however slow the machine.
ctl hold --reason $'bench\nrun' -- sh -c "cat '$T/proc/sys/vm/numa_stat' > '$T/seen'
        while [ ! -e '$T/go' ]; do sleep 0.05; done; exit 7" &
HOLD_PID=$!
wait_for 5 test -s "$T/seen"
is "$(cat "$T/seen")" 1 "the command starts with counting already on (it read numa_stat = 1)"
S=$(ctl --json=short)
is "$(echo "$S" | json_get holds.0.comm)" numastatctl "status lists the hold with its owner"
is "$(echo "$S" | json_get holds.0.reason)" 'bench\nrun' "  and its reason, C-escaped"
is "$(echo "$S" | json_get holds.0.uid)" 0 "  and its uid"
is "$(echo "$S" | json_get cause)" hold "the decision's cause is the hold"
contains "$(echo "$S" | json_get reason)" 'a hold by numastatctl (pid' "the reason names it"
conforms Status "the status with a hold and a transition is what the interface file declares" <<< "$S"
contains "$(ctl status)" "Holds: 1, counting held on" "numastatctl status shows it"
contains "$(ctl readers)" 'hold 1 by numastatctl (pid' "numastatctl readers lists it, with its id"
sleep 1.5
is "$(cat "$SYSCTL")" 1 "under pressure, past linger and sustain, the hold keeps counting on"
touch "$T/go"
wait $HOLD_PID
is "$?" 7 "numastatctl hold exits with the command's status"
wait_for 5 bash -c "[ \"\$('$NUMASTATCTL' --socket='$SOCK' --json=short | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"holds\"]))')\" = 0 ]"
ok $? "the hold is released when the command exits"
wait_for 10 sysctl_is 0
ok $? "then counting goes off again"
contains "$(ctl history)" "a hold by numastatctl" "history names the hold that turned counting on"
contains "$(ctl --json=short history)" '"cause":"hold"' "  with cause hold"
conforms "[]Transition" "  history conforms to the interface file's Transition" <<< "$(ctl --json=short history)"

# ---- a timeout, without a command ----
START=$SECONDS
ctl hold --timeout 1s
is "$?" 0 "hold --timeout 1s returns 0 when it expires"
ok $([ $((SECONDS - START)) -ge 1 ] && [ $((SECONDS - START)) -le 5 ]; echo $?) "  after about a second ($((SECONDS - START)) s)"
is "$(holds)" 0 "  and leaves no hold"
# Holds so far: the command's (1), the timeout's (2).
is "$(ctl --json=short hold --timeout 1s 2>/dev/null)" '{"held":true,"id":3}' "--json hold prints the daemon's reply, with the hold's id"

# ---- what the client refuses itself, saying what is wrong ----
OUT=$(ctl hold --timeout=8d 2>&1)
is "$?" 2 "hold --timeout=8d: bad usage (exit 2)"
is "$OUT" "numastatctl: --timeout is at most 7d (got 8d)." "  naming the option and its limit"
OUT=$(ctl hold --timeout=1s --reason="$(printf 'x%.0s' $(seq 128))" 2>&1)
is "$?" 2 "hold --reason of 128 bytes: bad usage (exit 2)"
is "$OUT" "numastatctl: --reason is at most 127 bytes (got 128)." "  naming the option and its limit"
ctl hold --timeout=1s --reason="$(printf 'x%.0s' $(seq 127))" 2>/dev/null
is "$?" 0 "  127 bytes are fine"
OUT=$(python3 - "$SOCK" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(json.dumps({"method": "io.numastatd.Hold", "parameters": {"timeout": 8 * 86400 * 10**6}, "more": True}).encode() + b"\0")
print(s.recv(4096).rstrip(b"\0").decode())
PY
)
is "$(echo "$OUT" | json_get parameters.parameter)" timeout "the daemon names the parameter it refuses (timeout over 7d)"
ctl hold -- /etc/passwd 2>/dev/null
is "$?" 126 "a held command that cannot be run: 126"
ctl hold -- /no/such/command 2>/dev/null
is "$?" 127 "a held command that is not found: 127"

# ---- a client killed with SIGKILL leaves nothing behind ----
"$NUMASTATCTL" --socket="$SOCK" hold -- sleep 30 &        # not ctl: its own pid
KILLED=$!
wait_for 5 bash -c "[ \"\$('$NUMASTATCTL' --socket='$SOCK' --json=short | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"holds\"]))')\" = 1 ]"
ok $? "a hold for sleep 30"
is "$(cat "$SYSCTL")" 1 "  counting on"
pkill -KILL -P $KILLED sleep 2>/dev/null   # its command too, or it would outlive the test
kill -KILL $KILLED
wait $KILLED 2>/dev/null
wait_for 5 bash -c "[ \"\$('$NUMASTATCTL' --socket='$SOCK' --json=short | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"holds\"]))')\" = 0 ]"
ok $? "numastatctl killed with SIGKILL: the daemon drops its hold"
wait_for 10 sysctl_is 0
ok $? "  and counting goes off again"

# ---- any user may hold; others see it without its details ----
# Each hold lasts until the script releases it (a loaded machine may take
# seconds over the checks): its command waits for $RELEASE.
RELEASE=$T/release-holds
as_nobody "$NOBODY_CTL" --socket="$SOCK" hold --reason secret -- sh -c 'until [ -e "$1" ]; do sleep 0.05; done' \
        sh "$RELEASE" &
NOBODY_HOLD=$!
wait_for 5 bash -c "'$NUMASTATCTL' --socket='$SOCK' --json=short | grep -q '\"uid\":65534'"
ok $? "uid 65534 may hold counting on"
S=$(ctl --json=short)
is "$(echo "$S" | json_get holds.0.reason)" secret "root sees its reason"
V=$(as_nobody "$NOBODY_CTL" --socket="$SOCK" --json=short)
is "$(echo "$V" | json_get holds.0.reason)" secret "the owner sees it too"
ctl hold --reason mine -- sh -c 'until [ -e "$1" ]; do sleep 0.05; done' sh "$RELEASE" &
ROOT_HOLD=$!
wait_for 5 bash -c "[ \"\$('$NUMASTATCTL' --socket='$SOCK' --json=short | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"holds\"]))')\" = 2 ]"
V=$(as_nobody "$NOBODY_CTL" --socket="$SOCK" --json=short)
is "$(echo "$V" | python3 -c 'import json,sys; h=[h for h in json.load(sys.stdin)["holds"] if h.get("redacted")]; print(len(h), h[0]["reason"], h[0]["pid"], h[0]["comm"])')" \
   "1 None None numastatctl" "another user sees root's hold by comm only: no reason, no pid"
conforms Status "  and that status, redacted, conforms to the interface file" <<< "$V"
touch "$RELEASE"
wait $NOBODY_HOLD $ROOT_HOLD

# ---- limits and refusals ----
PIDS=()
for i in 1 2 3 4 5 6 7 8; do
        as_nobody "$NOBODY_CTL" --socket="$SOCK" hold -- sh -c 'until [ -e "$1" ]; do sleep 0.05; done' \
                sh "$RELEASE-8" &
        PIDS+=($!)
done
wait_for 10 bash -c "[ \"\$('$NUMASTATCTL' --socket='$SOCK' --json=short | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"holds\"]))')\" = 8 ]"
ok $? "8 holds by one user"
OUT=$(as_nobody "$NOBODY_CTL" --socket="$SOCK" hold --timeout 1s 2>&1)
is "$?" 1 "the 9th is refused (exit 1)"
contains "$OUT" "too many holds by this user" "  saying why"
touch "$RELEASE-8"
wait "${PIDS[@]}" 2>/dev/null

ctl set-policy coarse >/dev/null
OUT=$(ctl hold --timeout 1s 2>&1)
is "$?" 1 "policy coarse: a hold is refused"
contains "$OUT" "policy coarse" "  saying why"
ctl set-policy auto >/dev/null

OUT=$(ctl hold 2>&1)
is "$?" 2 "hold without a command or --timeout is a usage error"
OUT=$(ctl status --timeout 1s 2>&1)
is "$?" 2 "--timeout without hold is a usage error"
OUT=$(ctl hold -- /nonexistent/program 2>&1)
is "$?" 127 "a command that cannot run: 127, like a shell"

# ---- the daemon goes away: the client says so, and holds again when it is back ----
"$NUMASTATCTL" --socket="$SOCK" hold --reason survivor -- sh -c "while [ ! -e '$T/hold-done' ]; do sleep 0.1; done; exit 5" \
        2> "$T/hold.err" &
SURVIVOR=$!
one_hold() { [ "$(holds)" = 1 ]; }
wait_for 5 one_hold
ok $? "a hold for a running command"
stop_daemon KILL
wait_for 10 grep -q "the hold ended: numastatd went away" "$T/hold.err"
ok $? "  the daemon killed: the client says its hold ended ($(head -1 "$T/hold.err"))"
start_daemon "$T" --config="$T/conf"
ok $? "  a new daemon starts"
wait_for 10 one_hold
ok $? "  the client holds counting on again with the new daemon"
contains "$(cat "$T/hold.err")" "counting held on again" "  and says so"
contains "$(ctl --json=short | json_get holds)" "survivor" "  with its reason"
touch "$T/hold-done"
wait "$SURVIVOR"
is "$?" 5 "  the command's exit status is still the client's"

stop_daemon
done_testing
