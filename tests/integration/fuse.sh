#!/bin/bash
# A FUSE server that never answers (tests/integration/fuse-stall.c), in
# front of the daemon with the unit's capabilities: mounted at a
# container's /proc, at its /sys, as a reader's root, and holding a
# reader's executable (served to that reader alone). The daemon must
# never ask it anything (a request would wait for ever, and the daemon with
# it): scans go on, status answers, the reader's reads still count, and the
# server's log shows no request from the daemon.
#
# The kernel lets root into another user's FUSE mount only if it was made
# with allow_other in the initial user namespace (fusermount3 with
# user_allow_other in /etc/fuse.conf), never into one made in a user
# namespace: so the server runs as root here, with user_id=65534 and
# allow_other, which is the case that reaches the daemon.
. "$(dirname "$0")/lib.sh"

require_root "mounting FUSE with allow_other in the initial user namespace needs root"
STALL="$BUILDDIR/tests/integration/fuse-stall"
nobody_copy STALL "$STALL"      # uid 65534 runs it too: the build tree may be out of its reach
if [ ! -c /dev/fuse ] || ! grep -qw fuse /proc/filesystems; then
        skip "no FUSE here (/dev/fuse or the fuse file system is missing; modprobe fuse)"
        done_testing
        exit 0
fi
command -v setpriv >/dev/null || { skip "setpriv (util-linux) is missing"; done_testing; exit 0; }
fake_kernel_tree fuse
U=$(mktemp -d /tmp/numastatd-fuse-XXXXXX)
cleanup_trees+=("$U")
chmod 755 "$U"       # the reader, as uid 65534, runs a binary in it
mkdir "$U/mnt"
auto_conf "container_scan = 200ms" > "$T/conf"
DAEMON_WRAP=$UNIT_CAPS_WRAP

# Every call bounded: a daemon stuck on the server must fail the checks,
# not hang the suite.
bctl() { timeout -s KILL 10 "$NUMASTATCTL" --socket="$SOCK" "$@"; }
scans() { bctl --json=short | json_get sources.scans; }
two_scans_since() { local s; s=$(scans) && [ -n "$s" ] && [ "$s" -ge $(($1 + 2)) ]; }
answers_quickly() { bctl status > /dev/null; }
# stall MODE [FILE]: starts the server in MODE and waits until it is mounted.
stall() {
        rm -f "$U/ready"
        "$STALL" "$1" "$U/mnt" "$U/ready" ${2:+"$2"} > "$U/$1.log" 2>&1 &
        SERVER=$!
        wait_for 10 test -e "$U/ready"
        ok $? "fuse-stall mounted ($1)"
        [ -e "$U/ready" ] || sed "s/^/#   /" "$U/$1.log"
}
# The server's children first (the reader), then the server: that aborts
# the connection, so nothing waits on it afterwards.
end_stall() {
        pkill -KILL -P "$SERVER" 2>/dev/null
        kill -KILL "$SERVER" 2>/dev/null
        wait "$SERVER" 2>/dev/null
}
asked_by_daemon() { grep " pid $DAEMON_PID\$" "$U/$1.log" | sed "s/^/# /" >&2; grep -c " pid $DAEMON_PID\$" "$U/$1.log"; }

start_daemon "$T" --config="$T/conf"
ok $? "the daemon starts with the unit's capability set"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"

for mode in proc sys; do
        n=$(scans)
        stall $mode
        wait_for 10 two_scans_since "$n"
        ok $? "FUSE at a container's /$mode that never answers: container scans go on"
        answers_quickly
        ok $? "  status answers"
        is "$(asked_by_daemon $mode)" 0 "  the daemon asked the server nothing"
        end_stall
done

for mode in root exe; do
        what=$([ $mode = root ] && echo "whose root is" || echo "running a binary")
        n=$(scans)
        stall $mode "$T/proc/vmstat"
        wait_for 10 sysctl_is 1
        ok $? "a reader $what on FUSE that never answers: its counted reads turn counting on"
        wait_for 10 two_scans_since "$n"
        ok $? "  container scans go on"
        answers_quickly
        ok $? "  status answers"
        bctl --json=short readers | grep -q '"comm":"'"$([ $mode = root ] && echo fuse-stall || echo reader)"'"'
        ok $? "  the reader is listed"
        is "$(asked_by_daemon $mode)" 0 "  the daemon asked the server nothing"
        end_stall
        wait_for 15 sysctl_is 0
        ok $? "  the reader gone: counting off again"
done

# ---- an overlay in front of a user's own FUSE server ----
# What uid 65534 can do alone (Linux >= 5.11, /dev/fuse mode 0666 as
# Debian's udev makes it): in a user namespace of its own, a FUSE mount, an
# overlay on it, and reads with the overlay as its root. The overlay asks
# the server with its mounter's credentials, so root's lookups there pass
# the kernel's FUSE gate and wait for ever. The daemon looks only through a
# child with a deadline: the reads count, status answers, one look is made
# and the namespace is then left alone.
overlay_possible() {
        local d
        d=$(mktemp -d /tmp/numastatd-ovl-XXXXXX) && chown 65534:65534 "$d" &&
                as_nobody unshare -Urm sh -c 'mkdir "$1/a" "$1/b" "$1/c" &&
                        mount -t overlay overlay -o "lowerdir=$1/a:$1/b" "$1/c"' sh "$d" 2>/dev/null
        local rc=$?
        rm -rf "$d"
        return $rc
}
FUSE_MODE=$(stat -c %a /dev/fuse)
if ! overlay_possible; then
        skip "uid 65534 cannot mount an overlay in a user namespace here (Linux < 5.11, or user namespaces off)"
elif ! command -v unshare >/dev/null; then
        skip "unshare (util-linux) is missing"
else
        # Debian's udev rule makes /dev/fuse 0666; a machine without udev
        # (this one) may not: as Debian has it, for this test alone.
        trap 'chmod "$FUSE_MODE" /dev/fuse; cleanup' EXIT
        chmod 666 /dev/fuse
        O=$(mktemp -d /tmp/numastatd-fuse-ovl-XXXXXX)
        cleanup_trees+=("$O")
        chown 65534:65534 "$O"
        chmod 755 "$O"
        as_nobody unshare -Urm "$STALL" overlay "$O" "$O/ready" "$T/proc/vmstat" > "$U/overlay.log" 2>&1 &
        SERVER=$!
        wait_for 10 test -e "$O/ready"
        ok $? "uid 65534: FUSE in a user namespace of its own, an overlay on it, a reader with that root"
        wait_for 10 sysctl_is 1
        ok $? "  its reads count (nothing in its root could be looked at in time)"
        answers_quickly
        ok $? "  status answers"
        overlay_reads() {
                bctl --json=short readers | python3 -c 'import json, sys
print(sum(r["count"] for r in json.load(sys.stdin) if r["comm"] == "fuse-stall" and r["uid"] == 65534))'
        }
        ten_reads() { [ "$(overlay_reads)" -ge 10 ]; }
        wait_for 10 ten_reads
        ok $? "  ten of its reads seen"
        is "$(asked_by_daemon overlay)" 0 "  the daemon itself asked the server nothing"
        is "$(grep -c '^stalled' "$U/overlay.log")" 1 "  one look asked it (and was left waiting): its namespace is then left alone"
        sed "s/^/# /" "$U/overlay.log" >&2
        # The server's children, then the server and as_nobody's subshell
        # ($SERVER): the connection aborts, the stuck look ends.
        kill_tree "$SERVER"
        wait "$SERVER" 2>/dev/null
        wait_for 15 sysctl_is 0
        ok $? "  the reader gone: counting off again"

        # The same overlay as the root of the only process of a mount
        # namespace, twice: the container scan looks into each through it,
        # and its lookup of /proc there waits on the server for ever, in the
        # kernel, where no signal ends it. Both its places for uid 65534
        # held so, scans go on, status answers, and root's container is
        # found (in a place of root's); each stuck child lingers, counted,
        # until its server goes.
        scans() { bctl --json=short | json_get sources.scans; }
        lingering() { bctl --json=short | json_get sources.scan_looks.lingering; }
        SERVERS=()
        for i in 1 2; do
                O2=$(mktemp -d /tmp/numastatd-fuse-ovl-XXXXXX)
                cleanup_trees+=("$O2")
                chown 65534:65534 "$O2"
                chmod 755 "$O2"
                O2S+=("$O2")
                as_nobody unshare -Urm "$STALL" overlay-ns "$O2" "$O2/ready" > "$U/overlay-ns$i.log" 2>&1 &
                SERVERS+=($!)
        done
        both_ready() { [ -e "${O2S[0]}/ready" ] && [ -e "${O2S[1]}/ready" ]; }
        wait_for 10 both_ready
        ok $? "uid 65534: overlays on its FUSE servers, each the root of a namespace's only process"
        stalled() { [ "$(cat "$U"/overlay-ns?.log | grep -c '^stalled')" -ge 1 ]; }
        wait_for 10 stalled
        ok $? "  the container scan's looks into them reached the servers, and were left waiting ($(cat "$U"/overlay-ns?.log | grep -c '^stalled'))"
        some_linger() { [ "$(lingering)" -ge 1 ]; }
        wait_for 10 some_linger
        ok $? "  past their deadline, stuck in the kernel: their places given back, the children kept ($(lingering) lingering)"
        contains "$(bctl status)" "outlived" "  numastatctl status says so"
        n=$(scans)
        more_scans() { [ "$(scans)" -ge $((n + 3)) ]; }
        wait_for 15 more_scans
        ok $? "  scans go on ($(scans) since $n)"
        answers_quickly
        ok $? "  status answers"
        unshare --pid --fork --kill-child --mount-proc sleep 300 &
        ROOTC=$!
        rootc_listed() { CTL=bctl instance_listed "$(pgrep -P "$ROOTC" | head -1)"; }
        wait_for 10 rootc_listed
        ok $? "  a container root starts then is found and watched"
        is "$(cat "$U"/overlay-ns?.log | grep -c " pid $DAEMON_PID\$")" 0 "  the daemon itself asked the servers nothing"
        kill -KILL "$ROOTC" 2>/dev/null
        wait "$ROOTC" 2>/dev/null
        for p in "${SERVERS[@]}"; do kill_tree "$p"; done
        wait "${SERVERS[@]}" 2>/dev/null
        none_linger() { [ "$(lingering)" = 0 ]; }
        wait_for 10 none_linger
        ok $? "  the servers gone, the stuck children end and are reaped"
        chmod "$FUSE_MODE" /dev/fuse
fi

stop_daemon
is "$DAEMON_STATUS" 0 "the daemon exits cleanly"

done_testing
