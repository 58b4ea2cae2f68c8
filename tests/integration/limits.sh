#!/bin/bash
# Root is always served and what others make the daemon hold is bounded:
# four other uids opening 64 connections each (256, the whole table) leave
# root's numastatctl status working; a uid gets at most 8 Monitor
# subscriptions; 32 Monitor calls that never read, plus a churn of readers
# with random names (a status change each), keep the daemon's memory under
# a bound, and the stuck subscribers are dropped. What calls cost is
# bounded: uid 65534 pipelining GetStatus calls on 4 connections has them
# answered at its budget (50 a second, 100 at once), all of them in the
# end, while root's status answers at once; 64 uids of a user namespace's
# range doing the same are held to the budget all uids but root share
# (200 a second, 400 at once).
. "$(dirname "$0")/lib.sh"

require_root "the clients run as four other uids"
nobody_copy OTHER_CTL "$NUMASTATCTL"    # the build tree may be out of other uids' reach
fake_kernel_tree limits
auto_conf > "$T/conf"
# Where the clients (other uids) say how they were served.
IPC=$T/ipc
mkdir -m 1777 "$IPC"
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts"
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON_PID/status"; }
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$DAEMON_PID/status"; }

# clients UID N ACTION: as UID, N connections that ACTION ("hold": keep
# them open and answer GetInfo once; "monitor": call Monitor and never read
# again), printing how many the daemon served, then waiting for "$IPC/go-$UID"
# to go away.
clients() {
        setpriv --reuid="$1" --regid="$1" --clear-groups -- /usr/bin/python3 - "$SOCK" "$2" "$3" "$IPC/ready-$1" "$IPC/go-$1" <<'PY' &
import json, os, socket, sys, time
path, n, action, ready, go = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
socks, served, refused = [], 0, 0
for _ in range(n):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
    except OSError:
        continue
    socks.append(s)
for s in socks:
    if action == "hold":
        msg = {"method": "org.varlink.service.GetInfo"}
    else:
        msg = {"method": "io.numastatd.Monitor", "more": True}
    try:
        s.sendall(json.dumps(msg).encode() + b"\0")
    except OSError:
        continue
for s in socks:
    s.settimeout(30)
    buf = b""
    try:
        while b"\0" not in buf:
            d = s.recv(65536)
            if not d:
                break
            buf += d
    except OSError:
        pass
    if b"\0" not in buf:
        continue    # closed: refused for the limit
    reply = json.loads(buf.split(b"\0")[0])
    if "error" in reply:
        refused += 1
    else:
        served += 1
with open(ready + ".tmp", "w") as f:
    f.write("%d %d\n" % (served, refused))
os.rename(ready + ".tmp", ready)
while os.path.exists(go):
    time.sleep(0.05)
PY
}
served() { cut -d' ' -f1 "$IPC/ready-$1"; }
refused() { cut -d' ' -f2 "$IPC/ready-$1"; }

# ---- 256 connections by four other uids ----
PIDS=()
for u in 65531 65532 65533 65534; do
        : > "$IPC/go-$u"
        clients "$u" 64 hold
        PIDS+=($!)
done
for u in 65531 65532 65533 65534; do wait_for 30 test -e "$IPC/ready-$u"; done
total=0
for u in 65531 65532 65533 65534; do total=$((total + $(served "$u"))); done
is "$total" 240 "four uids asking for 64 connections each are served 240 (16 are root's)"
OUT=$(ctl status 2>&1)
is "$?" 0 "  root's numastatctl status still works"
contains "$OUT" "NUMA statistics policy daemon" "  and shows the status"
# Exit 3, the daemon not reachable: not 126, a program it could not run.
OUT=$(setpriv --reuid=65530 --regid=65530 --clear-groups -- "$OTHER_CTL" --socket="$SOCK" status 2>&1)
rc=$?
is "$rc" 3 "  a fifth uid is refused (the table is full for others): exit 3, no answer"
[ "$rc" -eq 3 ] || printf '%s\n' "$OUT" | sed 's/^/#   /'
for u in 65531 65532 65533 65534; do rm -f "$IPC/go-$u" "$IPC/ready-$u"; done
wait "${PIDS[@]}"

# ---- half messages: what one uid can make the daemon hold ----
# uid 65534 opens 8 connections and sends each 8 MiB of one call that never
# ends (no NUL). A message is 128 KiB at most: whichever server, the daemon
# must not hold much more than that per connection (sd-varlink alone would
# buffer 16 MiB each: 8 such connections reach the unit's MemoryMax=128M).
RSS0=$(rss_kib)
: > "$IPC/go-65534"
setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/python3 - "$SOCK" 8 $((8 << 20)) "$IPC/ready-65534" "$IPC/go-65534" <<'PY' &
import os, socket, sys, time
path, n, size, ready, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
head = b'{"method":"io.numastatd.GetStatus","parameters":{"padding":"'
chunk = b"a" * 65536
socks, sent, open_ = [], [], []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.setblocking(False)
    socks.append(s)
    sent.append(0)
    open_.append(True)
pending = [head for _ in socks]
deadline = time.monotonic() + 20
# Until each has sent size bytes, or the daemon stopped taking them (a
# full socket for a second), or closed the connection.
stalled = [0.0] * n
while time.monotonic() < deadline:
    busy = False
    for i, s in enumerate(socks):
        if not open_[i] or sent[i] >= size:
            continue
        busy = True
        try:
            k = s.send(pending[i] or chunk)
            sent[i] += k
            pending[i] = (pending[i] or chunk)[k:] if pending[i] else b""
            stalled[i] = 0.0
        except BlockingIOError:
            stalled[i] = stalled[i] or time.monotonic()
            if time.monotonic() - stalled[i] > 1:
                open_[i] = False    # not taking more: done
        except OSError:
            open_[i] = False        # closed by the daemon
    if not busy:
        break
    time.sleep(0.0005)
with open(ready + ".tmp", "w") as f:
    f.write("%d %d\n" % (sum(sent), sum(1 for i in range(n) if sent[i] >= size)))
os.rename(ready + ".tmp", ready)
while os.path.exists(go):
    time.sleep(0.05)
PY
HALF=$!
wait_for 60 test -e "$IPC/ready-65534"
ok $? "uid 65534 sent 8 connections half a call each (up to 8 MiB)"
RSS1=$(rss_kib)
echo "# figure: $(served 65534) bytes sent, $(refused 65534) connections took 8 MiB; daemon RSS ${RSS0} KiB before, ${RSS1} KiB with them open"
if ldd "$NUMASTATD" 2>/dev/null | grep -q libasan; then
        skip "an ASan build: its RSS is mostly the sanitizer's own"
else
        ok $([ $((RSS1 - RSS0)) -lt 16384 ]; echo $?) "  the daemon holds under 16 MiB more for them ($((RSS1 - RSS0)) KiB)"
fi
OUT=$(ctl status 2>&1)
is "$?" 0 "  root's status still works"
rm -f "$IPC/go-65534" "$IPC/ready-65534"
wait "$HALF"

# ---- calls: pipelined GetStatus floods, paced by the call budget ----
FLOOD=$BUILDDIR/tests/bench/flood       # a check program: make check builds it
# calls_field FILE NAME: a figure of flood calls' line ("sent S answered A
# in_time W errors E closed C last L").
calls_field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }
# calls_outcome FILE: answered/errors/closed.
calls_outcome() { echo "$(calls_field "$1" answered)/$(calls_field "$1" errors)/$(calls_field "$1" closed)"; }
calls_paced() { grep -q "calls of uid $1 wait for their turn" "$T/daemon.log"; }
if [ ! -x "$FLOOD" ]; then
        skip "tests/bench/flood is not built (make check builds it)"
else
        # uid 65534, 4 connections, 64 GetStatus calls each in one send;
        # replies counted for 2 s, then until all are in. The budget lets
        # 100 through at once, then one each 20 ms: by 2 s, 200 at most.
        "$FLOOD" calls 4 2 "$SOCK" 64 1 > "$T/calls.out" &
        FLOODER=$!
        wait_for 10 calls_paced 65534
        ok $? "uid 65534 pipelining 4 x 64 GetStatus calls is paced (the daemon says its calls wait)"
        t0=$(usec_now)
        timeout 10 "$NUMASTATCTL" --socket="$SOCK" status > /dev/null
        rc=$?
        ms=$(( ($(usec_now) - t0) / 1000 ))
        echo "# figure: root's status while uid 65534's calls wait: ${ms} ms"
        is "$rc" 0 "  root's numastatctl status answers meanwhile (${ms} ms; bound 10 s)"
        # The flood prints its figures once all its replies are in.
        check "  while uid 65534's calls still wait" test ! -s "$T/calls.out"
        wait "$FLOODER"
        echo "# figure: uid 65534's flood: $(cat "$T/calls.out")"
        is "$(calls_outcome "$T/calls.out")" "256/0/0" \
                "  all 256 calls answered in the end, none with an error, no connection closed"
        W=$(calls_field "$T/calls.out" in_time)
        ok $([ "${W:-999}" -le $((100 + 50 * 2 + 10)) ]; echo $?) \
                "  by 2 s, ${W:-?} answered: at most its budget's 100 + 50 x 2 (and 10 to spare)"

        # 64 uids of a user namespace (mapped to 200000-200063, as a user's
        # subordinate range would be), one connection each with 16 calls:
        # each uid's own bucket would let all through; the shared one lets
        # 400 through at once, then one each 5 ms: by 2 s, 800 at most.
        FLOOD_STARTED=$IPC/calls-many.started python3 - "$FLOOD" "$SOCK" > "$T/calls-many.out" <<'PY' &
import ctypes, os, sys
flood, sock = sys.argv[1:3]
libc = ctypes.CDLL(None, use_errno=True)
ready_r, ready_w = os.pipe()
mapped_r, mapped_w = os.pipe()
pid = os.fork()
if pid == 0:
    if libc.unshare(0x10000000) != 0:       # CLONE_NEWUSER
        os._exit(100)
    os.write(ready_w, b"x")
    os.read(mapped_r, 1)
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    # Connection i as uid i of the namespace: 200000 + i outside.
    os.execve(flood, [flood, "calls", "64", "2", sock, "16", "1"], dict(os.environ, FLOOD_UIDS="0:64"))
os.read(ready_r, 1)
for m in ("uid_map", "gid_map"):
    with open("/proc/%d/%s" % (pid, m), "w") as f:
        f.write("0 200000 64\n")
os.write(mapped_w, b"x")
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
PY
        MANY=$!
        wait_for 10 test -e "$IPC/calls-many.started"
        ok $? "64 uids of a user namespace send 16 GetStatus calls each"
        t0=$(usec_now)
        timeout 10 "$NUMASTATCTL" --socket="$SOCK" status > /dev/null
        rc=$?
        ms=$(( ($(usec_now) - t0) / 1000 ))
        echo "# figure: root's status during the 64 uids' flood: ${ms} ms"
        is "$rc" 0 "  root's numastatctl status answers meanwhile (${ms} ms; bound 10 s)"
        check "  while their calls still wait" test ! -s "$T/calls-many.out"
        wait "$MANY"
        ok $? "  the flood ran in the namespace (uids 200000-200063)"
        echo "# figure: 64 uids' flood: $(cat "$T/calls-many.out")"
        is "$(calls_outcome "$T/calls-many.out")" "1024/0/0" \
                "  all 1024 calls answered in the end, none with an error, no connection closed"
        W=$(calls_field "$T/calls-many.out" in_time)
        ok $([ "${W:-9999}" -le $((400 + 200 * 2 + 20)) ]; echo $?) \
                "  by 2 s, ${W:-?} answered: at most the shared budget's 400 + 200 x 2 (and 20 to spare)"
fi

# ---- Monitor: 8 per uid; stuck subscribers and a churn of readers ----
RSS0=$(rss_kib)
: > "$IPC/go-65534"
clients 65534 32 monitor
MON=$!
wait_for 30 test -e "$IPC/ready-65534"
is "$(served 65534)" 8 "uid 65534 calling Monitor 32 times gets 8 subscriptions"
is "$(refused 65534)" 24 "  the other 24 are refused (MonitorRefused)"
fake rate 50000
# 300 reads by processes named at random, two runs apart: the status changes
# with each new reader.
python3 "$SRCDIR/tests/integration/random-readers.py" 300 "$T/proc/vmstat" 0.005
dropped() { grep -c "uid 65534) does not read its replies" "$T/daemon.log"; }
some_dropped() { [ "$(dropped)" -ge 1 ]; }
wait_for 30 some_dropped
ok $? "the stuck subscribers are dropped once their uid has 2 MiB queued ($(dropped) dropped)"
OUT=$(ctl status 2>&1)
is "$?" 0 "  root's status still works"
HWM=$(hwm_kib)
echo "# figure: daemon RSS ${RSS0} KiB before, peak ${HWM} KiB with 32 stuck Monitor calls and 300 new readers"
if ldd "$NUMASTATD" 2>/dev/null | grep -q libasan; then
        # Shadow memory and the allocator's quarantine are ASan's, not ours.
        skip "an ASan build: its RSS (${HWM} KiB) is mostly the sanitizer's own"
else
        ok $([ "$HWM" -lt 32768 ]; echo $?) "  the daemon's peak RSS stays under 32 MiB (${HWM} KiB)"
fi
rm -f "$IPC/go-65534"
wait "$MON"

stop_daemon
is "$DAEMON_STATUS" 0 "clean exit"
done_testing
