#!/bin/bash
# Names other processes chose, and what callers may see. Readers name
# themselves with newlines, "<0>" (a forged log priority), an ANSI escape
# sequence and invalid UTF-8: the log, STATUS=, the JSON and numastatctl's
# terminal output show them C-escaped, one line each, valid UTF-8. And a
# caller who is not root (uid 65534) sees its own readers in full and
# root's by comm and file only: no pid, uid, unit or executable, in
# GetStatus, readers, history and Monitor.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN, and readers run as two users"
nobody_copy NOBODY_CTL "$NUMASTATCTL"   # the build tree may be out of uid 65534's reach
fake_kernel_tree privacy

# reader NAME FILE SECONDS: a process named NAME (prctl PR_SET_NAME, raw
# bytes given as a Python bytes literal) that reads FILE and stays a while.
reader() {
        python3 -c 'import ctypes, sys, time
libc = ctypes.CDLL(None)
libc.prctl(15, eval(sys.argv[1]), 0, 0, 0)
open(sys.argv[2], "rb").read()
time.sleep(float(sys.argv[3]))' "$@"
}

NOTIFY="$T/notify.sock"
python3 - "$NOTIFY" > "$T/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    d = s.recv(65536)
    # One record per datagram: its bytes, escaped, so the test sees them all.
    sys.stdout.write(repr(d) + "\n"); sys.stdout.flush()
PY
NOTIFY_PID=$!
wait_for 5 test -S "$NOTIFY"

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
chmod 644 "$T/conf"
export NOTIFY_SOCKET="$NOTIFY"
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts"
unset NOTIFY_SOCKET

# Counting off first, so that the forged reader's read is a switch: its
# name then reaches the reason, the history, the journal line and STATUS=.
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "counting off under pressure"
reader "b'x\\n<0>forged'" "$T/proc/vmstat" 3 &
wait_for 5 sysctl_is 1
ok $? "a reader named x\\n<0>forged turns counting on"
reader "b'\\x1b[31mred'" "$T/sys/devices/system/node/node0/numastat" 3 &
reader "b'\\xff\\xfeinv'" "$T/sys/devices/system/node/node1/numastat" 3 &
# The system's python: a user's (pyenv under /root, say) is not nobody's to run.
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3)
as_nobody "$PYTHON" -c 'import ctypes, time
ctypes.CDLL(None).prctl(15, b"nobodyreader", 0, 0, 0)
open("'"$T"'/proc/vmstat", "rb").read()
time.sleep(3)' &
wait_for 10 bash -c "'$NUMASTATCTL' --socket='$SOCK' --json=short readers | python3 -c 'import json, sys; sys.exit(len(json.load(sys.stdin)) < 4)'"
ok $? "all four readers seen"
sleep 0.3

# ---- escaped wherever they leave the daemon ----
LOG=$(cat "$T/daemon.log")
contains "$LOG" 'New reader: x\n<0>forged (pid' "the log shows the name C-escaped"
ok $(! grep -q '^<0>forged' "$T/daemon.log"; echo $?) "  no log line begins with a forged <0>"
ok $(! grep -q $'\x1b' "$T/daemon.log"; echo $?) "  no escape byte reaches the log"
contains "$LOG" '\x1b[31mred' "  the escape sequence is shown as \\x1b"
contains "$LOG" '\xff\xfeinv' "  invalid UTF-8 as \\xNN"

ctl --json=short > "$T/status.json"
python3 -c 'import json, sys
raw = open(sys.argv[1], "rb").read()
s = json.loads(raw.decode("utf-8", errors="strict"))
comms = sorted(r["comm"] for r in s["readers"])
print(" ".join(comms))' "$T/status.json" > "$T/comms" 2>&1
ok $? "the status JSON is valid UTF-8 and parses"
is "$(cat "$T/comms")" '\x1b[31mred \xff\xfeinv nobodyreader x\n<0>forged' "  the names, C-escaped"
ok $(! grep -qP '[\x00-\x08\x1b\x7f]' "$T/status.json"; echo $?) "  no control byte in the JSON text"

OUT=$(ctl readers)
ok $(! printf '%s\n' "$OUT" | grep -q '^<0>forged'; echo $?) "numastatctl readers: no line begins with a forged <0>"
ok $(! printf '%s' "$OUT" | grep -q $'\x1b'; echo $?) "  no escape byte reaches the terminal"
contains "$OUT" 'x\n<0>forged (pid' "  the name shown C-escaped"
OUT=$(ctl history)
contains "$OUT" 'x\n<0>forged (pid' "numastatctl history: the switch's reason names it, escaped"
ok $(! printf '%s\n' "$OUT" | grep -q '^<0>forged'; echo $?) "  on one line"

# STATUS= carried the switch's reason: one line, escaped.
wait_for 5 grep -q 'forged' "$T/notify.log"
ok $? "STATUS= named the reader"
python3 -c 'import ast, sys
bad = 0
for line in open(sys.argv[1]):
    d = ast.literal_eval(line)
    if d.startswith(b"STATUS=") and (b"\n" in d.rstrip(b"\n") or b"\x1b" in d):
        bad += 1
sys.exit(bad)' "$T/notify.log"
ok $? "  every STATUS= datagram is one line without control bytes"

# ---- what a caller who is not root may see ----
as_nobody "$NOBODY_CTL" --socket="$SOCK" --json=short > "$T/nobody.json"
ok $? "uid 65534 may ask for the status"
conforms Status "  what it gets, redacted, conforms to the interface file" < "$T/nobody.json"
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
out = []
for r in sorted(s["readers"], key=lambda r: r["comm"]):
    out.append("%s:%s:%s:%s:%s:%s" % (r["comm"], r["pid"] is not None, r["uid"], r["exe"] is not None,
                                      r["unit"] is not None, r.get("redacted", False)))
print(" ".join(out))' "$T/nobody.json" > "$T/nobody.readers"
is "$(cat "$T/nobody.readers")" \
   '\x1b[31mred:False:None:False:False:True \xff\xfeinv:False:None:False:False:True nobodyreader:True:65534:True:False:False x\n<0>forged:False:None:False:False:True' \
   "as uid 65534: its own reader in full; root's by comm only (no pid, uid, exe, unit)"
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
t = [t for t in s["transitions"] if t["cause"] == "read"][-1]
r = t["reader"]
ok = r.get("redacted") and r["pid"] is None and r["uid"] is None and "pid " not in t["reason"] \
     and "another user" in t["reason"]
sys.exit(0 if ok else 1)' "$T/nobody.json"
ok $? "  history: root's reader redacted in the entry and its reason"
ROOT_PID=$(ctl --json=short | python3 -c 'import json,sys; print([r for r in json.load(sys.stdin)["readers"] if "forged" in r["comm"]][0]["pid"])')
OUT=$(as_nobody "$NOBODY_CTL" --socket="$SOCK" readers)
ok $(! printf '%s' "$OUT" | grep -q "pid $ROOT_PID"; echo $?) "  numastatctl readers as uid 65534 does not show root's pid $ROOT_PID"
contains "$OUT" "nobodyreader (pid" "  but its own reader's"
OUT=$(as_nobody "$NOBODY_CTL" --socket="$SOCK" history)
ok $(! printf '%s' "$OUT" | grep -q "pid $ROOT_PID"; echo $?) "  nor does its history"
# Until its first reply is whole, however long a busy machine takes (not a
# fixed 2 s): numastatctl writes a status of several KiB through stdio, so
# the file may hold the start of the line before its end. No whole line in
# time, or one that shows root's readers, fails.
setpriv --reuid=65534 --regid=65534 --clear-groups -- "$NOBODY_CTL" --socket="$SOCK" --json=short monitor \
        > "$T/nobody.monitor" 2>/dev/null &
MONITOR=$!
wait_for 30 lines_at_least "$T/nobody.monitor" 1
kill "$MONITOR" 2>/dev/null
wait "$MONITOR" 2>/dev/null
whole_lines "$T/nobody.monitor" | head -n 1 | python3 -c 'import json,sys
s = json.load(sys.stdin)
own = [r for r in s["readers"] if r["comm"] == "nobodyreader"]
others = [r for r in s["readers"] if r["comm"] != "nobodyreader"]
sys.exit(0 if own and all(r["pid"] is not None and r["uid"] == 65534 for r in own) and len(others) == 3 and
         all(r["pid"] is None and r["uid"] is None and r["exe"] is None and r["unit"] is None and r.get("redacted")
             for r in others) else 1)'
ok $? "  Monitor as uid 65534 is filtered the same way"
ROOT_VIEW=$(ctl --json=short | python3 -c 'import json,sys
r = json.load(sys.stdin)["readers"]
print(len(r) > 1, sum(1 for x in r if x["pid"] is None))')
is "$ROOT_VIEW" "True 0" "root sees every reader's pid (of several)"

stop_daemon TERM
kill $NOTIFY_PID 2>/dev/null
done_testing
