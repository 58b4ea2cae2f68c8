# Shared helpers for the integration tests: TAP output, fake kernel trees,
# and starting/stopping the real numastatd. Sourced, not run.

set -u

BUILDDIR=${TEST_BUILDDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
NUMASTATD="$BUILDDIR/numastatd"
NUMASTATCTL="$BUILDDIR/numastatctl"

tap_n=0
tap_failed=0

ok() {  # ok CONDITION_EXIT_CODE DESCRIPTION
        tap_n=$((tap_n + 1))
        if [ "$1" -eq 0 ]; then
                echo "ok $tap_n - $2"
        else
                echo "not ok $tap_n - $2"
                tap_failed=$((tap_failed + 1))
        fi
}

check() {  # check DESCRIPTION COMMAND...: passes if COMMAND succeeds
        local desc=$1
        shift
        "$@" >/dev/null 2>&1
        ok $? "$desc"
}

is() {  # is GOT EXPECTED DESCRIPTION
        if [ "$1" = "$2" ]; then
                ok 0 "$3"
        else
                ok 1 "$3"
                echo "#   got '$1', expected '$2'"
        fi
}

contains() {  # contains HAYSTACK NEEDLE DESCRIPTION
        case "$1" in
        *"$2"*) ok 0 "$3" ;;
        *) ok 1 "$3"; echo "#   '$2' not found in:"; printf '%s\n' "$1" | sed 's/^/#     /' ;;
        esac
}

skip() {
        tap_n=$((tap_n + 1))
        echo "ok $tap_n # SKIP $1"
}

# require_root WHY: the whole script is skipped, saying why, unless root.
require_root() {
        if [ "$(id -u)" -ne 0 ]; then
                echo "1..0 # SKIP needs root: $1"
                exit 0
        fi
}

done_testing() {
        echo "1..$tap_n"
        # A failure on a loaded CI machine is seen once: keep the daemon's word.
        if [ "$tap_failed" -gt 0 ] && [ -n "${DAEMON_LOG:-}" ] && [ -r "$DAEMON_LOG" ]; then
                echo "# the last daemon's log ($DAEMON_LOG), its last 80 lines:"
                tail -n 80 "$DAEMON_LOG" | sed 's/^/#   /'
        fi
        [ "$tap_failed" -eq 0 ]
}

# A tree that looks like /proc and /sys of a 2-node, 4-CPU machine.
# make_tree KIND: mainline | v3 | v2 | none
make_tree() {
        local t
        t=$(mktemp -d /tmp/numastatd-it-XXXXXX)
        chmod 755 "$t"
        mkdir -p "$t/proc/sys/vm" "$t/run"
        for n in 0 1; do
                mkdir -p "$t/sys/devices/system/node/node$n"
                echo "$((n * 2))-$((n * 2 + 1))" > "$t/sys/devices/system/node/node$n/cpulist"
                echo "Node $n MemTotal:        1048576 kB" > "$t/sys/devices/system/node/node$n/meminfo"
        done
        case "$1" in
        mainline) echo 1 > "$t/proc/sys/vm/numa_stat" ;;
        v3) echo auto > "$t/proc/sys/vm/numa_stats_mode" ;;
        v2) echo strict > "$t/proc/sys/vm/vmstat_mode" ;;
        none) ;;
        esac
        echo "$t"
}

# json_get FIELD: reads numastatctl --json=short output on stdin and prints
# a top-level field (strings without quotes). Uses python3 for robust JSON.
json_get() {
        python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v,(dict,list)) or v is None else (str(v).lower() if isinstance(v,bool) else v))' "$1"
}

# The daemon judges known readers by the catalogue it ships, not by what
# this machine may have installed in /etc or /usr/lib.
export NUMASTATD_KNOWN_READERS_PATH=${NUMASTATD_KNOWN_READERS_PATH:-$SRCDIR/conf/readers.d}

# start_daemon TREE [ARGS...]: starts numastatd on TREE with its socket and
# runtime directory (the crash-restore state) in TREE/run/numastatd; sets
# DAEMON_PID and SOCK.
start_daemon() {
        local tree=$1
        shift
        SOCK="$tree/run/numastatd/io.numastatd"
        mkdir -p "$tree/run/numastatd"
        # DAEMON_WRAP: a command that execs the rest (setpriv with the unit's capabilities).
        # shellcheck disable=SC2086
        DAEMON_LOG=$tree/daemon.log
        ${DAEMON_WRAP:-} "$NUMASTATD" --root="$tree" --socket="$SOCK" --runtime-dir="$tree/run/numastatd" \
                --log-level="${NUMASTATD_TEST_LOG_LEVEL:-info}" "$@" >"$DAEMON_LOG" 2>&1 &
        DAEMON_PID=$!
        # Up to 30 s: under the sanitizers, on a busy machine, start-up is slow.
        for _ in $(seq 1 600); do
                [ -S "$SOCK" ] && "$NUMASTATCTL" --socket="$SOCK" status >/dev/null 2>&1 && return 0
                kill -0 "$DAEMON_PID" 2>/dev/null || break
                sleep 0.05
        done
        echo "# numastatd did not come up:"
        sed 's/^/#   /' "$tree/daemon.log"
        return 1
}

# stop_daemon [SIGNAL]: stops it and waits; sets DAEMON_STATUS.
stop_daemon() {
        kill -"${1:-TERM}" "$DAEMON_PID" 2>/dev/null
        wait "$DAEMON_PID"
        DAEMON_STATUS=$?
}

ctl() {
        "$NUMASTATCTL" --socket="$SOCK" "$@"
}

# instance_listed PID [ours]: whether the file system at PID's /proc is a
# procfs instance the status lists (ours: one found through a process of
# the daemon's own user namespace); 2 if PID's /proc cannot be told. Asked
# through $CTL (default ctl).
instance_listed() {
        local dev
        dev=$(stat -c '%Hd:%Ld' "/proc/$1/root/proc" 2>/dev/null) || return 2
        "${CTL:-ctl}" --json=short | json_get sources.proc_instances | python3 -c 'import json, sys
ours = sys.argv[2] == "ours"
sys.exit(0 if any(i["device"] == sys.argv[1] and not (ours and i["user_namespace"]) for i in json.load(sys.stdin)) else 1)' \
                "$dev" "${2:-}"
}

# The unit's capability bounding set, as setpriv takes it, read from the
# unit itself (one place): "-all,+sys_admin,+sys_ptrace,...". A daemon
# started with DAEMON_WRAP=$UNIT_CAPS_WRAP has what the shipped unit gives.
UNIT_CAPS=-all$(sed -n 's/^CapabilityBoundingSet=//p' "$SRCDIR/systemd/numastatd.service.in" |
        tr ' ' '\n' | sed -n 's/^CAP_\(.*\)/,+\L\1/p' | tr -d '\n')
UNIT_CAPS_WRAP="setpriv --bounding-set=$UNIT_CAPS --"

# require_user_namespaces: the whole script is skipped, saying why, unless
# util-linux's unshare, setpriv and nsenter are here and uid 65534 may make
# a user and mount namespace of its own.
require_user_namespaces() {
        local c
        for c in unshare setpriv nsenter; do
                command -v $c > /dev/null || { skip "$c (util-linux) is missing"; done_testing; exit 0; }
        done
        if ! as_nobody unshare -Urm true 2> /dev/null; then
                skip "unprivileged user namespaces are off here (kernel.unprivileged_userns_clone or a sysctl of AppArmor)"
                done_testing
                exit 0
        fi
}

# Runs a command as an unprivileged user.
as_nobody() {
        setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# nobody_copy VAR PROGRAM: sets VAR to the path of a copy of PROGRAM (one
# of the build's) that another user may run: in a directory of mode 0755
# under /tmp, removed at exit. The build tree may be where uid 65534 cannot
# go (a clone in /root, mode 0700): exec'd from there by a process of that
# user (unshare -Urm, a shell) the program does not start, and a check that
# expects a refusal could pass for that reason. (setpriv itself still finds
# it: it keeps root's capabilities until its exec.)
nobody_copy() {
        local d
        d=$(mktemp -d /tmp/numastatd-bin-XXXXXX) || return 1
        cleanup_trees+=("$d")
        chmod 755 "$d" && cp "$2" "$d/" || return 1
        printf -v "$1" '%s' "$d/${2##*/}"
}

# kill_tree PID: in tests/kill-tree.sh.
. "$(dirname "${BASH_SOURCE[0]}")/../kill-tree.sh"

cleanup_trees=()
cleanup_mounts=
cleanup() {
        jobs -p | xargs -r kill 2>/dev/null
        wait 2>/dev/null
        for t in "${cleanup_trees[@]}"; do rm -rf "$t"; done
        if [ -n "$cleanup_mounts" ]; then umount "$cleanup_mounts" && rmdir "$cleanup_mounts"; fi
}
trap cleanup EXIT

# wait_for SECONDS COMMAND...: polls until COMMAND succeeds. SECONDS is
# what it should take; the deadline is never below WAIT_FOR_MIN (30 s): a
# state is waited for, and a busy CI machine (sanitizers, two tests per
# core) may be slow to reach it. Only a failure pays the wait. Timed in
# microseconds (EPOCHREALTIME), not bash's whole SECONDS: SECONDS may tick
# just after the start, making "2 s" one.
WAIT_FOR_MIN=${WAIT_FOR_MIN:-30}
usec_now() { local t=${EPOCHREALTIME/[.,]/}; echo "$((10#$t))"; }
wait_for() {
        local secs=$(( $1 > WAIT_FOR_MIN ? $1 : WAIT_FOR_MIN ))
        local deadline=$(( $(usec_now) + secs * 1000000 ))
        shift
        until "$@"; do [ "$(usec_now)" -ge $deadline ] && return 1; sleep 0.05; done
}
# lines_at_least FILE N: FILE holds N whole lines, each ended by its
# newline. What a program streams into a file (numastatctl monitor: one JSON
# status a line, flushed as it goes) may be seen half written: a file that
# is not empty may hold only the start of its first line.
lines_at_least() { [ "$(wc -l < "$1")" -ge "$2" ]; }
# whole_lines FILE: FILE's whole lines, not the one still being written.
whole_lines() { head -n "$(wc -l < "$1")" "$1"; }
# conforms TYPE DESCRIPTION <<< JSON (not in a pipe: ok counts): the value is TYPE as the interface file
# declares it (every field declared, types right), else prints what is not.
conforms() {
        local out
        out=$(python3 "$SRCDIR/tests/integration/varlink-conform.py" "$SRCDIR/varlink/io.numastatd.varlink" "$1")
        local rc=$?
        [ -z "$out" ] || echo "$out" | sed 's/^/# /'
        ok $rc "$2"
}
# auto_conf [LINE...]: policy auto under the fake kernel's pressure (100 ms
# samples, off above 5000 pages/s after 300 ms, no dwell), linger 1s; each
# LINE goes into [readers].
auto_conf() {
        printf '[policy]\nmode = auto\nmin_dwell = 0\n[pressure]\ninterval = 100ms\ncoarse_above = 5000\n'
        printf 'strict_below = 500\nsustain = 300ms\n[readers]\nlinger = 1s\n'
        [ $# -eq 0 ] || printf '%s\n' "$@"
}
status_is() { [ "$(ctl --json=short | json_get "$1")" = "$2" ]; }
status_at_least() { [ "$(ctl --json=short | json_get "$1")" -ge "$2" ]; }

# fake_kernel_tree NAME [KIND]: a 2-node tree on tmpfs (fanotify marks need
# a real superblock, not overlayfs) whose counters a small fake kernel
# drives (fake-kernel.py: pgalloc at a chosen rate, the NUMA counters as the
# kernel KIND treats them: mainline (default), v3 (numa_stats_mode, booting
# in auto, armed) or v2 (vmstat_mode)). Sets T, FAKE_PID and SYSCTL; the
# whole script is skipped, saying why, without tmpfs.
fake_kernel_tree() {
        local kind=${2:-mainline}
        local shm=/dev/shm
        if [ "$(stat -f -c %T "$shm" 2>/dev/null)" != tmpfs ]; then
                shm=$(mktemp -d /tmp/numastatd-tmpfs-XXXXXX)
                mount -t tmpfs tmpfs "$shm" || { echo "1..0 # SKIP no tmpfs available"; exit 0; }
                cleanup_mounts=$shm
        fi
        T=$(mktemp -d "$shm/numastatd-$1-XXXXXX")
        cleanup_trees+=("$T")
        chmod 755 "$T"
        mkdir -p "$T/proc/sys/vm" "$T/run"
        case $kind in
        mainline) SYSCTL=$T/proc/sys/vm/numa_stat; echo 1 > "$SYSCTL" ;;
        v3) SYSCTL=$T/proc/sys/vm/numa_stats_mode; echo auto > "$SYSCTL" ;;
        v2) SYSCTL=$T/proc/sys/vm/vmstat_mode; echo auto > "$SYSCTL" ;;
        esac
        for n in 0 1; do
                mkdir -p "$T/sys/devices/system/node/node$n"
                echo "$((n * 2))-$((n * 2 + 1))" > "$T/sys/devices/system/node/node$n/cpulist"
                echo "Node $n MemTotal:        1048576 kB" > "$T/sys/devices/system/node/node$n/meminfo"
        done
        cp "$SRCDIR/tests/data/zoneinfo-2node.txt" "$T/proc/zoneinfo"
        python3 "$SRCDIR/tests/integration/fake-kernel.py" "$T" "$kind" &
        FAKE_PID=$!
        # The daemon marks the files that exist when it starts: wait for them.
        wait_for 10 test -s "$T/sys/devices/system/node/node1/numastat"
}
# fake COMMAND: tells the fake kernel ("rate N", "hit A B", "grow on") and waits until it took it
# and published the files it left.
fake() {
        echo "$*" > "$T/ctl.tmp" && mv "$T/ctl.tmp" "$T/ctl" || return 1
        while [ -e "$T/ctl" ]; do
                kill -0 "$FAKE_PID" 2>/dev/null || { echo "# the fake kernel died (fake $*)"; return 1; }
                sleep 0.01
        done
}
sysctl_is() { [ "$(cat "$SYSCTL")" = "$1" ]; }
# host_uevent FILE [COUNT]: writes "change" into this machine's real
# /sys/.../uevent FILE (COUNT times): the only way to make the kernel send a
# uevent, which no --root tree can fake. udev and every other listener on
# this machine see it too ("change" only reruns rules; never "add"), so it
# says so, and NUMASTATD_TEST_HOST_UEVENTS=no turns it off (the caller
# skips, saying why).
host_uevent() {
        local i
        if [ "${NUMASTATD_TEST_HOST_UEVENTS:-yes}" = no ]; then
                echo "# not writing $1: NUMASTATD_TEST_HOST_UEVENTS=no"
                return 1
        fi
        [ -w "$1" ] || { echo "# cannot write $1"; return 1; }
        echo "# writing \"change\" into this machine's $1 (${2:-1}x): udev here sees a synthetic uevent"
        for ((i = 0; i < ${2:-1}; i++)); do echo change > "$1" || return 1; done
}
# fake_state KEY: the fake kernel's own view (mode, counting, resets, hit).
fake_state() { sed -n "s/.* \{0,1\}$1=\([^ ]*\).*/\1/p" "$T/state"; }
fake_state_is() { [ "$(fake_state "$1")" = "$2" ]; }
