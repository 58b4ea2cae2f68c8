#!/bin/bash
# systemd integration without systemd as PID 1: the sd_notify protocol as the
# daemon speaks it (READY after the first decision, STATUS, RELOADING,
# STOPPING, watchdog pings), socket activation with a passed fd, the units'
# static analysis, and what make install puts where.
. "$(dirname "$0")/lib.sh"

require_root "the daemon writes the tree's sysctl as uid 0 and binds under /run"

T=$(make_tree mainline); cleanup_trees+=("$T")
printf '[policy]\nmode = coarse\n' > "$T/conf"

# ---- sd_notify: a datagram socket standing in for systemd ----
NOTIFY="$T/notify"
python3 - "$NOTIFY" > "$T/notify.log" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(0.2)
end = time.time() + 20
while time.time() < end:
    try:
        d = s.recv(4096).decode()
    except socket.timeout:
        continue
    for line in d.split("\n"):
        if line:
            print(line, flush=True)
    if "STOPPING=1" in d:
        break
PY
NOTIFY_PID=$!
wait_for 5 [ -S "$NOTIFY" ]
SOCK="$T/run/numastatd/io.numastatd"
NOTIFY_SOCKET="$NOTIFY" WATCHDOG_USEC=400000 "$NUMASTATD" --root="$T" --socket="$SOCK" --runtime-dir="$T/run" --config="$T/conf" \
        >"$T/daemon.log" 2>&1 &
DAEMON_PID=$!
wait_for 5 grep -q READY=1 "$T/notify.log"
check "READY=1 sent" grep -q "^READY=1$" "$T/notify.log"
is "$(cat "$T/proc/sys/vm/numa_stat")" 0 "the first decision was applied"
contains "$(cat "$T/notify.log")" "STATUS=NUMA statistics coarse (policy coarse): policy coarse" "STATUS= carries mode and reason"
sleep 1
ok $([ "$(grep -c '^WATCHDOG=1$' "$T/notify.log")" -ge 2 ]; echo $?) "watchdog pings from the event loop (WATCHDOG_USEC=400ms)"
kill -HUP $DAEMON_PID
ready_twice() { [ "$(grep -c '^READY=1$' "$T/notify.log")" -ge 2 ]; }
wait_for 5 ready_twice
ok $(awk '/^RELOADING=1$/ { r = NR } /^READY=1$/ { if (r && NR > r) ok = 1 } END { exit !ok }' "$T/notify.log"; echo $?) \
   "SIGHUP: RELOADING=1, then READY=1"
kill -TERM $DAEMON_PID
wait $DAEMON_PID

# The order, from the daemon's system calls: its write of the first
# decision comes before the READY=1 it sends.
if command -v strace > /dev/null; then
        echo 1 > "$T/proc/sys/vm/numa_stat"
        rm -f "$T/strace.log"
        NOTIFY_SOCKET="$NOTIFY.order" strace -f -qq -s 64 -e trace=openat,sendmsg -o "$T/strace.log" \
                "$NUMASTATD" --root="$T" --socket="$SOCK" --runtime-dir="$T/run" --config="$T/conf" >/dev/null 2>&1 &
        TRACER=$!
        wait_for 10 grep -q 'READY=1' "$T/strace.log"
        pkill -TERM -P $TRACER numastatd
        wait $TRACER 2>/dev/null
        ok $(awk '/numa_stat", O_WRONLY/ && !w { w = NR } /READY=1/ && !r { r = NR } END { exit !(w && r && w < r) }' \
                "$T/strace.log"; echo $?) "READY=1 is sent after the first decision is written (strace)"
else
        skip "no strace here: the order of the first write and READY=1 is not checked"
fi
is "$?" 0 "clean exit"
wait $NOTIFY_PID
check "STOPPING=1 sent" grep -q "^STOPPING=1$" "$T/notify.log"

# ---- socket activation: a listening fd named "varlink" ----
rm -f "$SOCK"
python3 - "$NUMASTATD" "$T" "$SOCK" <<'PY' &
import os, socket, sys
numastatd, root, path = sys.argv[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path); s.listen(16)
os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
env = dict(os.environ, LISTEN_FDS="1", LISTEN_FDNAMES="varlink")
pid = os.fork()
if pid == 0:
    os.environ.update(env)
    os.environ["LISTEN_PID"] = str(os.getpid())
    os.execv(numastatd, [numastatd, "--root=" + root, "--config=" + root + "/conf", "--socket=" + path,
                         "--runtime-dir=" + root + "/run"])
os.waitpid(pid, 0)
PY
ACT_PID=$!
wait_for 5 "$NUMASTATCTL" --socket="$SOCK" status >/dev/null 2>&1
S=$("$NUMASTATCTL" --socket="$SOCK" --json=short)
is "$(echo "$S" | json_get backend)" numa_stat "answers on the socket it was passed"
pkill -TERM -P $ACT_PID numastatd; wait $ACT_PID 2>/dev/null       # the daemon the helper forked

# ---- the units ----
if command -v systemd-analyze >/dev/null; then
        U="$T/units"; mkdir -p "$U"
        sed -e "s|@sbindir@|$BUILDDIR|g" "$SRCDIR/systemd/numastatd.service.in" > "$U/numastatd.service"
        cp "$SRCDIR/systemd/numastatd.socket" "$U/"
        SCORE=$(systemd-analyze security --offline=true "$U/numastatd.service" 2>/dev/null | sed -n 's/.*Overall exposure level for numastatd.service: \([0-9.]*\).*/\1/p')
        echo "# figure: systemd-analyze security numastatd.service: exposure $SCORE"
        # 2.4: CAP_KILL (0.1) ends the looks' children, which other users may stop.
        ok $(awk -v s="$SCORE" 'BEGIN { exit !(s != "" && s <= 2.4) }'; echo $?) "hardening: exposure $SCORE <= 2.4"
        OUT=$(systemd-analyze verify --man=no "$U/numastatd.service" "$U/numastatd.socket" 2>&1)
        is "$OUT" "" "systemd-analyze verify finds nothing wrong with the units"
else
        skip "systemd-analyze is not installed: cannot score the unit's hardening"
        skip "systemd-analyze is not installed: cannot verify the units"
fi

# ---- make install ----
D="$T/dest"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$BUILDDIR" install DESTDIR="$D" >/dev/null 2>&1
ok $? "make install DESTDIR=…"
# A make variable, expanded as make expands it (distcheck's contain ${libdir}).
# (Outside the calling make's flags, which under distcheck print directories.)
mkvar() {
        printf 'print-var:\n\t@echo $(%s)\n' "$1" |
                env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$BUILDDIR" -f Makefile -f - print-var |
                tail -1
}
PREFIX=$(mkvar prefix)
for f in sbin/numastatd bin/numastatctl share/varlink/io.numastatd.varlink share/man/man8/numastatd.8 \
         share/man/man1/numastatctl.1 share/man/man5/numastatd.conf.5 share/bash-completion/completions/numastatctl; do
        ok $([ -e "$D$PREFIX/$f" ]; echo $?) "installed: \$prefix/$f"
done
UNITDIR=$(mkvar systemdsystemunitdir)
ok $([ -e "$D$UNITDIR/numastatd.service" ] && [ -e "$D$UNITDIR/numastatd.socket" ]; echo $?) "units in $UNITDIR"
grep -q "^ExecStart=$(mkvar sbindir)/numastatd$" "$D$UNITDIR/numastatd.service"
ok $? "the unit runs the installed binary"
SYSCONF=$(mkvar sysconfdir)
ok $([ -e "$D$SYSCONF/numastatd.conf" ]; echo $?) "config installed"
echo "# mine" >> "$D$SYSCONF/numastatd.conf"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$BUILDDIR" install DESTDIR="$D" >/dev/null 2>&1
check "a second make install keeps the admin's config" grep -q "^# mine$" "$D$SYSCONF/numastatd.conf"

done_testing
