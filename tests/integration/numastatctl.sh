#!/bin/bash
# numastatctl's command line, exit codes and output formats; Monitor; the
# varlink wire protocol on the daemon's real socket; numastatd's own flags.
. "$(dirname "$0")/lib.sh"

# ---- without a daemon (any user) ----
OUT=$("$NUMASTATCTL" --socket=/nonexistent/sock status 2>&1 >/dev/null)
is "$?" 3 "no daemon: exit 3"
is "$(printf '%s\n' "$OUT" | wc -l)" 1 "one line on stderr"
contains "$OUT" "cannot reach numastatd at /nonexistent/sock" "naming the socket"
"$NUMASTATCTL" bogus >/dev/null 2>&1
is "$?" 2 "unknown command: exit 2"
"$NUMASTATCTL" set-policy sometimes >/dev/null 2>&1
is "$?" 2 "unknown policy: exit 2"
"$NUMASTATCTL" set-policy >/dev/null 2>&1
is "$?" 2 "set-policy without POLICY: exit 2"
"$NUMASTATCTL" --json=ugly >/dev/null 2>&1
is "$?" 2 "bad --json format: exit 2"
contains "$("$NUMASTATCTL" --help)" "set-policy POLICY" "--help lists commands"
contains "$("$NUMASTATCTL" --help)" "3 the daemon is not reachable" "--help documents exit codes"
contains "$("$NUMASTATCTL" --version)" "numastatctl " "--version"
contains "$("$NUMASTATD" --version)" "numastatd " "numastatd --version"
# Which varlink client configure chose (sd-varlink where libsystemd >= 257).
CLIENT_IMPL=$(sed -n 's/^#define VARLINK_CLIENT_IMPL "\(.*\)"$/\1/p' "$BUILDDIR/config.h")
contains "$("$NUMASTATCTL" --version)" "varlink client: ${CLIENT_IMPL:-?}" "--version names the varlink client ($CLIENT_IMPL)"
SERVER_IMPL=$(sed -n 's/^#define VARLINK_SERVER_IMPL "\(.*\)"$/\1/p' "$BUILDDIR/config.h")
contains "$("$NUMASTATD" --version)" "varlink server: ${SERVER_IMPL:-?}" "numastatd --version names the varlink server ($SERVER_IMPL)"
contains "$("$NUMASTATD" --help)" "--check-config" "numastatd --help"
"$NUMASTATD" --bogus >/dev/null 2>&1
is "$?" 1 "numastatd: unknown option fails"

# The client speaks varlink with json-c alone, or json-c and sd-varlink
# (libsystemd): no netlink, no libnuma, no config parser linked in.
NEEDED=$(LC_ALL=C readelf -d "$NUMASTATCTL" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
contains "$NEEDED" "libjson-c" "numastatctl links json-c"
case $CLIENT_IMPL in
sd-varlink*) contains "$NEEDED" "libsystemd" "numastatctl links libsystemd, for sd-varlink" ;;
*) case "$NEEDED" in
   *libsystemd*) ok 1 "the hand-written client needs no libsystemd (needs: $NEEDED)" ;;
   *) ok 0 "the hand-written client needs no libsystemd (needs: $NEEDED)" ;;
   esac ;;
esac
case "$NEEDED" in
*libnl*|*libnuma*|*libinih*) ok 1 "numastatctl links nothing else (needs: $NEEDED)" ;;
*) ok 0 "numastatctl links nothing else (needs: $NEEDED)" ;;
esac

# ---- --check-config ----
C=$(mktemp /tmp/numastatd-conf-XXXXXX)
cleanup_trees+=("$C")
"$NUMASTATD" --check-config --config="$SRCDIR/conf/numastatd.conf" >/dev/null
is "$?" 0 "--check-config accepts the shipped config"
printf '[policy]\nmode = auto\n\n[pressure]\ninterval = 500ms\nsustain = 90s\n[readers]\nlinger = 5min\n' > "$C"
"$NUMASTATD" --check-config --config="$C" >/dev/null
is "$?" 0 "--check-config accepts durations with units"
printf '[policy]\nmode = auto\nfrobnicate = yes\n' > "$C"
OUT=$("$NUMASTATD" --check-config --config="$C" 2>&1)
is "$?" 1 "--check-config rejects an unknown key"
contains "$OUT" "$C:3" "with file:line"
contains "$OUT" "frobnicate" "and the key"
printf '[bogus]\n' > "$C"
"$NUMASTATD" --check-config --config="$C" >/dev/null 2>&1
is "$?" 1 "--check-config rejects an unknown section"
"$NUMASTATD" --check-config --config=/nonexistent.conf >/dev/null 2>&1
is "$?" 1 "an explicit config that does not exist is an error"

if [ "$(id -u)" -ne 0 ]; then
        skip "daemon tests need root (the socket tests check root-only methods)"
        done_testing
        exit $?
fi

T=$(make_tree mainline); cleanup_trees+=("$T")
printf '[policy]\nmode = strict\n' > "$T/conf"
start_daemon "$T" --config="$T/conf"

# ---- output formats ----
OUT=$(ctl status)
contains "$OUT" "Policy: strict (from config)" "status: policy line"
contains "$OUT" "Kernel: strict via /proc/sys/vm/numa_stat (numa_stat), counting on" "status: kernel line"
contains "$OUT" "node1: cpus 2-3, 1.0 GiB" "status: nodes"
contains "$(ctl)" "Reason: policy strict" "status is the default command"
is "$(ctl --json=short | wc -l)" 1 "--json=short is one line"
is "$(ctl -jshort | wc -l)" 1 "-jshort is --json=short (not -j -s hort)"
ok $([ "$(ctl --json | wc -l)" -gt 10 ]; echo $?) "--json is pretty by default"
is "$(ctl --json=pretty | json_get backend)" numa_stat "--json=pretty parses"
is "$(ctl history)" "No transitions." "history when nothing switched"
is "$(ctl readers)" "No readers seen." "readers before any reader"
is "$(ctl --json=short readers)" "[]" "readers --json"

# ---- monitor ----
MON="$T/monitor.out"
ctl --json=short monitor > "$MON" &
MON_PID=$!
wait_for 5 lines_at_least "$MON" 1
is "$(wc -l < "$MON")" 1 "monitor prints the status at once"
ctl set-policy coarse >/dev/null
wait_for 5 lines_at_least "$MON" 2
is "$(sed -n 2p "$MON" | json_get kernel_mode)" coarse "monitor prints the change"
ctl status >/dev/null
sleep 0.2
is "$(wc -l < "$MON")" 2 "monitor stays quiet when nothing changed"
contains "$(ctl history)" "strict  -> coarse  policy" "history shows the switch"
stop_daemon TERM
wait "$MON_PID"
is "$?" 3 "monitor ends with exit 3 when the daemon goes away"

# ---- the wire protocol on the real socket ----
start_daemon "$T" --config="$T/conf"
OUT=$(python3 - "$SOCK" "$T/served.varlink" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
calls = [
    {"method": "org.varlink.service.GetInfo"},
    {"method": "org.varlink.service.GetInterfaceDescription", "parameters": {"interface": "io.numastatd"}},
    {"method": "io.numastatd.GetStatus", "parameters": None},
    {"method": "io.numastatd.GetStatus", "parameters": {}},
    {"method": "io.numastatd.Monitor"},
    {"method": "io.numastatd.SetPolicy", "parameters": {"policy": "never"}},
    {"method": "io.numastatd.GetStatus", "parameters": {"x": 1}},
    {"method": "io.numastatd.Nope"},
]
# all pipelined in one write
s.sendall(b"".join(json.dumps(c).encode() + b"\0" for c in calls))
buf = b""
replies = []
while len(replies) < len(calls):
    d = s.recv(65536)
    if not d: break
    buf += d
    while b"\0" in buf:
        m, buf = buf.split(b"\0", 1); replies.append(json.loads(m))
r = replies
# sd-varlink also lists io.systemd, whose errors it sends (io.systemd.System).
print("interfaces", " ".join(sorted(set(r[0]["parameters"]["interfaces"]) - {"io.systemd"})))
print("url", r[0]["parameters"]["url"])
open(sys.argv[2], "w").write(r[1]["parameters"]["description"])
print("status_backend", r[2]["parameters"]["status"]["backend"], r[3]["parameters"]["status"]["backend"])
print("monitor_error", r[4].get("error"))
print("bad_policy", r[5].get("error"), r[5]["parameters"].get("parameter"))
print("bad_param", r[6].get("error"), r[6]["parameters"].get("parameter"))
print("unknown", r[7].get("error"))
PY
)
contains "$OUT" "interfaces io.numastatd org.varlink.service" "GetInfo lists both interfaces"
contains "$OUT" "url https://github.com/numastatd/numastatd" "GetInfo names the project's URL"
IDL=$SRCDIR/varlink/io.numastatd.varlink
case $SERVER_IMPL in
sd-varlink*)
        # sd-varlink prints the compiled interface its own way.
        OUT2=$(python3 "$SRCDIR/varlink/gen-sd-interface.py" --same-symbols "$IDL" "$T/served.varlink" 2>&1)
        ok $? "GetInterfaceDescription declares what the repo's .varlink file does${OUT2:+: $OUT2}"
        contains "$(cat "$T/served.varlink")" "a pidfd proved the pid was the reader's while it was named" \
                "  with the file's comments"
        ;;
*)
        cmp -s "$IDL" "$T/served.varlink"
        ok $? "GetInterfaceDescription returns the repo's .varlink file"
        ;;
esac
contains "$OUT" "status_backend numa_stat numa_stat" "null and {} parameters both work, pipelined"
contains "$OUT" "monitor_error org.varlink.service.ExpectedMore" "Monitor without more: ExpectedMore"
contains "$OUT" "bad_policy org.varlink.service.InvalidParameter policy" "bad policy: InvalidParameter"
contains "$OUT" "bad_param org.varlink.service.InvalidParameter x" "unknown parameter: InvalidParameter"
contains "$OUT" "unknown org.varlink.service.MethodNotFound" "unknown method: MethodNotFound"

# Garbage from one client does not disturb another: status is asked once
# the garbage is sent, and the garbage client's connection is dropped.
python3 - "$SOCK" "$T/garbage.sent" > "$T/garbage.out" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"{this is not json\0")
open(sys.argv[2], "w").close()
s.settimeout(30)
try:
    while s.recv(65536):
        pass
    print("closed")
except socket.timeout:
    print("still open")
PY
GARBAGE=$!
wait_for 10 test -e "$T/garbage.sent"
check "status works while another client sends garbage" ctl status
wait $GARBAGE
is "$(cat "$T/garbage.out")" closed "  and the daemon drops the garbage client's connection"
ok $(kill -0 "$DAEMON_PID"; echo $?) "daemon survives garbage"
stop_daemon TERM
is "$DAEMON_STATUS" 0 "clean exit"

# A daemon that did not escape what it serves (a fake one): numastatctl
# still prints no control byte to the terminal.
FAKE_SOCK=$(mktemp -u /tmp/numastatd-fake-XXXXXX)
python3 - "$FAKE_SOCK" <<'PY' &
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
reader = {"pid": 7, "pid_verified": False, "comm": "\x1b[2J\nforged", "exe": None, "uid": 0, "unit": None,
          "path": "/proc/vmstat", "first_seen": 0, "last_seen": 0, "count": 1, "ignored": False, "rule": None}
# A string where the uid's number belongs.
forged_uid = dict(reader, pid=8, comm="uidcat", uid="\x1b[31m0")
# Brackets in a string are data: --json's tidying of empty arrays leaves them.
brackets = dict(reader, pid=9, comm="[  ]", exe="{ }")
fourth = dict(reader, pid=10, comm="fourth")
status = {"version": "x", "pid": 1, "backend": "numa_stat", "backend_path": "/proc/sys/vm/numa_stat",
          "kernel_mode": "strict", "kernel_state": {"text": "strict"}, "target_mode": "strict", "counting": True,
          "policy": "auto", "policy_source": "config", "dry_run": False, "paused": False,
          "reason": "\x1b]0;owned\x07 reason", "readers": [reader, forged_uid, brackets, fourth], "transitions": [], "nodes": [],
          "sources": {}, "root": "/", "config_file": "/etc/numastatd.conf", "transitions_total": 0, "started": 0}
for _ in range(3):
    c, _ = s.accept()
    buf = b""
    while b"\0" not in buf:
        buf += c.recv(65536)
    c.sendall(json.dumps({"parameters": {"status": status}}).encode() + b"\0")
    c.close()
PY
FAKE=$!
wait_for 5 test -S "$FAKE_SOCK"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" readers)
ok $(! printf '%s' "$OUT" | grep -q $'\x1b'; echo $?) "a raw escape sequence from the daemon does not reach the terminal"
contains "$OUT" '\x1b[2J\x0aforged' "  it is shown as \\xNN, on one line"
contains "$OUT" 'uidcat (pid 8, uid \x1b[31m0)' "  a uid that is a string with an escape sequence too"
contains "$OUT" '(pid 7, uid 0)' "  a uid that is a number, as its digits"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" status)
ok $(! printf '%s' "$OUT" | grep -q $'[\x07\x1b]'; echo $?) "  nor through the reason in numastatctl status"
contains "$OUT" '\x1b]0;owned\x07 reason' "  where the reason is shown, escaped"
contains "$OUT" "Readers: 4 programs, most frequent:" "status counts the programs in words"
contains "$OUT" "and 1 more (numastatctl readers)" "  and says how many it does not list"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" --json status)
contains "$OUT" '"comm": "[  ]",' "--json: brackets inside a string are left as they are"
contains "$OUT" '"exe": "{ }",' "  braces too"
contains "$OUT" '"transitions": [],' "  while an empty array prints as []"
wait $FAKE 2>/dev/null
rm -f "$FAKE_SOCK"

# A fake daemon answers with what a real one never sends: the client
# neither crashes nor prints anything raw.
python3 - "$FAKE_SOCK" <<'PY' &
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
def reader(i, **kw):
    r = {"pid": 100 + i, "comm": "r\u00e9ader%d" % i, "uid": 1000, "path": "/proc/vmstat", "count": 1,
         "first_seen": 0, "last_seen": 0, "ignored": False, "verdict": "unknown", "why": "\u00fcber %d" % i}
    r.update(kw)
    return r
# 20 readers with non-ASCII text, then strings the status line keeps
# pointers to: more than the client's old ring of 16 escaped copies.
many = {"version": "v\u00e9", "pid": 1, "backend": "numa_stat\u0001", "backend_path": "/proc/sys/vm/n\u00e9",
        "kernel_mode": "str\u00efct", "kernel_state": {"text": "str\u00efct"}, "target_mode": "co\u00e4rse",
        "counting": True, "policy": "auto", "policy_source": "config", "reason": "r\u00e9ason",
        "readers": [reader(i) for i in range(20)], "root": "/", "sources": {}}
redacted = dict(many, readers=[{"redacted": True, "comm": "cat", "pid": None, "uid": None, "path": "/proc/vmstat",
                                "count": 3, "first_seen": 0, "last_seen": 0, "verdict": "unknown"}])
bare = {"version": "x", "pid": 1}
evil = {"error": "io.numastatd.\u001b]0;owned\u0007Evil", "parameters": {"message": "\u001b[2Jbad\nline"}}
replies = [{"parameters": {"status": many}}, {"parameters": {"status": redacted}}, {"parameters": {"status": bare}},
           evil, evil]
for rep in replies:
    c, _ = s.accept()
    buf = b""
    while b"\0" not in buf:
        buf += c.recv(65536)
    c.sendall(json.dumps(rep).encode() + b"\0")
    c.close()
PY
FAKE=$!
wait_for 5 test -S "$FAKE_SOCK"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" status 2>&1)
is "$?" 0 "a status with 20 readers' non-ASCII names: numastatctl status works"
contains "$OUT" "Kernel: str\xc3\xafct via /proc/sys/vm/n\xc3\xa9 (numa_stat\x01), counting on" \
        "  the fields read first are still theirs after 20 more escaped strings"
contains "$OUT" "Target: co\xc3\xa4rse" "  and the target mode too"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" readers 2>&1)
contains "$OUT" "cat (another user's process) read /proc/vmstat 3x" "another user's reader: by comm, not as (pid 0, uid ?)"
ok $(! printf '%s' "$OUT" | grep -q "pid 0"; echo $?) "  no pid 0 shown"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" status 2>&1)
is "$?" 0 "a status without backend or root: numastatctl status does not crash"
contains "$OUT" "numastatd x" "  and prints what it has"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" status 2>&1)
is "$?" 1 "an error reply: exit 1"
ok $(! printf '%s' "$OUT" | grep -q $'[\x07\x1b]'; echo $?) "  its name and message reach the terminal escaped"
contains "$OUT" 'io.numastatd.\x1b]0;owned\x07Evil: \x1b[2Jbad\x0aline' "  as \\xNN"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" monitor 2>&1)
ok $(! printf '%s' "$OUT" | grep -q $'[\x07\x1b]'; echo $?) "  and so does monitor's"
wait $FAKE 2>/dev/null
rm -f "$FAKE_SOCK"

# Metrics text from a fake daemon, with a control byte in a line: printed
# line by line, escaped.
python3 - "$FAKE_SOCK" <<'PY' &
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept()
buf = b""
while b"\0" not in buf:
    buf += c.recv(65536)
text = "# HELP numastatd_x a metric\nnumastatd_x{comm=\"\x1b[2Jevil\"} 1\nnumastatd_y 2\n"
c.sendall(json.dumps({"parameters": {"text": text}}).encode() + b"\0")
c.close()
PY
FAKE=$!
wait_for 5 test -S "$FAKE_SOCK"
OUT=$("$NUMASTATCTL" --socket="$FAKE_SOCK" metrics 2>&1)
is "$?" 0 "metrics from a fake daemon: exit 0"
ok $(! printf '%s' "$OUT" | grep -q $'\x1b'; echo $?) "  a control byte in a metrics line does not reach the terminal"
contains "$OUT" 'numastatd_x{comm="\x1b[2Jevil"} 1' "  it is shown as \\xNN"
is "$(printf '%s\n' "$OUT" | grep -c '^numastatd_')" 2 "  and the lines stay lines"
wait $FAKE 2>/dev/null
rm -f "$FAKE_SOCK"

# ---- bash completion: every command the client knows is offered ----
complete_words() {  # complete_words WORD...: what completing the last word offers
        bash -c 'complete() { :; }; compopt() { :; }; source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _numastatctl; echo "${COMPREPLY[*]}"' \
                _ "$SRCDIR/completion/numastatctl.bash" "$@"
}
HELP_COMMANDS=$("$NUMASTATCTL" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\).*/\1/p' | sort | tr '\n' ' ')
is "$(complete_words numastatctl '' | tr ' ' '\n' | sort | tr '\n' ' ')" "$HELP_COMMANDS" \
   "completion offers exactly the commands --help lists"
is "$(complete_words numastatctl hold --re)" "--reason=" "  hold's options"
ok $(complete_words numastatctl hold -- bas | tr " " "\n" | grep -qx bash; echo $?) "  and after hold --, a command"
is "$(complete_words numastatctl set-policy a)" "auto" "  set-policy's policies"
is "$(complete_words numastatctl known-readers --ex)" "--explain=" "  known-readers' --explain"

done_testing
