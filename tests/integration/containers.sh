#!/bin/bash
# Readers in containers with a procfs of their own (unshare --mount-proc:
# another superblock, which the host's marks do not cover) are seen once
# the daemon's scan finds the instance: an ignored one leaves counting off,
# a counted one turns it on, both named with their host pid. A container
# that exits is dropped. With container_scan = 0 they are not seen.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN, unshare --pid needs root"
command -v unshare >/dev/null || { skip "unshare (util-linux) is missing"; done_testing; exit 0; }
fake_kernel_tree containers
cp /bin/cat "$T/quietcat"
PY=/usr/bin/python3

conf() {  # conf CONTAINER_SCAN
        auto_conf "container_scan = $1" "ignore = comm=quietreader" "ignore = exe=$T/quietcat" > "$T/conf"
}
# container NAME FILE: a container (own pid and mount namespaces, its own
# /proc) whose process NAME reads FILE every 0.3 s. exec: $! is unshare's,
# and --kill-child takes the container with it.
container() {
        exec unshare --pid --fork --kill-child --mount-proc "$PY" -c 'import ctypes, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
while True:
    with open(sys.argv[2], "rb") as f: f.read()
    time.sleep(0.3)' "$@"
}
# The procfs instances of the containers this test made, by device: not
# those the machine had before (FOREIGN), say, when the test itself runs in
# a mount namespace of its own and the host's /proc is another instance.
FOREIGN=
ours() { json_get sources.proc_instances | "$PY" -c 'import json,sys
print(json.dumps([i for i in json.load(sys.stdin) if i["device"] not in sys.argv[1:]]))' $FOREIGN; }
instances() { ctl --json=short | ours | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
has_instances() { [ "$(instances)" = "$1" ]; }
reader_json() {  # reader_json COMM: the readers entry of COMM, or nothing
        ctl --json=short readers | "$PY" -c 'import json,sys
r = [r for r in json.load(sys.stdin) if r["comm"] == sys.argv[1]]
print(json.dumps(r[0]) if r else "")' "$1"
}
seen() { [ -n "$(reader_json "$1")" ]; }

conf 300ms
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with container_scan = 300ms"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"
sleep 1.5
before=$(ctl --json=short | json_get transitions_total)
FOREIGN=$(ctl --json=short | json_get sources.proc_instances | "$PY" -c 'import json,sys
print(" ".join(i["device"] for i in json.load(sys.stdin)))')
[ -z "$FOREIGN" ] || echo "# procfs instances this machine had before the test: $FOREIGN"
if [ -z "$FOREIGN" ]; then
        contains "$(ctl status)" "no other procfs instance found (scan" "status before any container: none found, not '0 more instance(s)'"
else
        skip "this machine had procfs instances before the test: none found cannot be shown"
fi

container quietreader /proc/vmstat &
QUIET=$!
wait_for 10 has_instances 1
ok $? "the container's procfs is found and watched"
S=$(ctl --json=short)
contains "$(echo "$S" | ours | json_get 0.device)" ":" "  listed with its device"
N_INST=$((1 + $(echo $FOREIGN | wc -w)))
contains "$(ctl status)" "$N_INST more procfs instance$([ $N_INST -gt 1 ] && echo s): containers, sandboxed services (scan" \
        "  numastatctl status counts it"
wait_for 10 seen quietreader
ok $? "an ignored reader in the container is seen"
R=$(reader_json quietreader)
is "$(echo "$R" | json_get ignored)" true "  ignored by its rule"
CPID=$(pgrep -P "$QUIET" | head -1)
is "$(echo "$R" | json_get pid)" "$CPID" "  named with its host pid ($CPID)"
# One-off reads in the container: exit records name them across pid
# namespaces (the kernel sends the initial namespace's pid).
for _ in $(seq 20); do nsenter -t "$CPID" -m -p -- "$T/quietcat" /proc/vmstat >/dev/null; done
sleep 0.5
is "$(ctl --json=short | json_get transitions_total)" "$before" \
   "  reads by it and by 20 one-off ignored cats in the container: counting never went on"

container loudreader /proc/zoneinfo &
LOUD=$!
wait_for 10 sysctl_is 1
ok $? "a counted reader in another container turns counting on"
is "$(reader_json loudreader | json_get path)" /proc/zoneinfo "  named, with the file it read"
contains "$(ctl history)" "loudreader" "  and the switch names it"
is "$(instances)" 2 "two containers, two instances"

kill -KILL "$QUIET" "$LOUD"    # unshare --fork ignores SIGTERM; --kill-child takes the container
wait "$QUIET" "$LOUD" 2>/dev/null
wait_for 10 has_instances 0
ok $? "the containers exited: their instances are dropped"
stop_daemon

# A namespace the daemon already knows mounts its procfs later (kernels
# with FAN_MNT_ATTACH, 6.14+): found at once, not at the next scan (1h).
conf 1h
# The namespace first, with the host's /proc (nothing to watch), then its
# own procfs after the daemon has seen the namespace.
unshare --pid --fork --kill-child --mount --propagation private \
        sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done; mount -t proc proc /proc; exec sleep 30' _ "$T/go" &
LATE=$!
# Its namespace exists before the daemon's first scan looks.
in_own_ns() { [ "$(readlink "/proc/$LATE/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]; }
wait_for 5 in_own_ns
start_daemon "$T" --config="$T/conf"
if [ "$(ctl --json=short | json_get sources.mount_events)" != true ]; then
        skip "no mount events here: $(ctl --json=short | json_get sources.mount_events_error)"
else
        is "$(instances)" 0 "container_scan = 1h: the namespace is known, with no procfs of its own yet"
        touch "$T/go"
        wait_for 5 has_instances 1
        ok $? "it mounts one: found within seconds, through a mount event"
        is "$(ctl --json=short | ours | json_get 0.found_by)" mount-event "  found_by mount-event"
fi
kill -KILL "$LATE"
wait "$LATE" 2>/dev/null
stop_daemon

# Without scanning, the same counted reader is not seen: the documented
# limit of fanotify's per-superblock marks.
conf 0
start_daemon "$T" --config="$T/conf"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "container_scan = 0: pressure, counting off"
container loudreader /proc/zoneinfo &
LOUD=$!
sleep 2
is "$(cat "$SYSCTL")" 0 "  a counted reader in a container goes unseen"
is "$(ctl --json=short | json_get sources.container_scan)" null "  and status says scanning is off"
kill -KILL "$LOUD"
wait "$LOUD" 2>/dev/null
stop_daemon
done_testing
