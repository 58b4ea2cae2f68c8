#!/bin/bash
# What an unprivileged user (uid 65534, with user namespaces) can do to
# reader detection, against the daemon with the unit's capabilities only
# (no CAP_DAC_*):
# - a /proc of their own that is no procfs (a tmpfs with an unreadable
#   vmstat; vmstat a link to /etc/shadow) is no procfs instance: the host's
#   marks stay, and nothing they pointed at is marked;
# - in a real procfs of theirs, a file bind-mounted over a statistics file
#   is not marked; their real statistics files are;
# - a file of the root's own that cannot be marked: the daemon goes blind
#   and says so (auto keeps counting on), and recovers once it can mark.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN; the attacker is uid 65534"
require_user_namespaces
fake_kernel_tree hostile
U=$(mktemp -d /tmp/numastatd-hostile-XXXXXX)
cleanup_trees+=("$U")
chmod 755 "$U"
install -o 65534 -g 65534 -d "$U/nobody"
for c in shadowcat passwdcat ctrcat probecat churncat; do cp /bin/cat "$T/$c"; done
auto_conf "container_scan = 200ms" > "$T/conf"
# The unit's capabilities: no CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH.
DAEMON_WRAP=$UNIT_CAPS_WRAP

# listed: whether the file system at the attacker's /proc is a procfs
# instance in the status (other tests' containers may be too).
listed() { instance_listed "$(attacker_leaf)"; }
watched() { ctl --json=short | json_get sources.watched | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin))))'; }
scans() { ctl --json=short | json_get sources.scans; }
# two_scans_since N: two scans ran after the one numbered N (a whole scan
# saw the namespace made before it).
two_scans_since() { [ "$(scans)" -ge $(($1 + 2)) ]; }
# reads COMM PATH: how many reads by COMM of PATH the reader table holds.
reads() {
        ctl --json=short readers | python3 -c 'import json, sys
print(sum(r["count"] for r in json.load(sys.stdin) if r["comm"] == sys.argv[1] and r["path"] == sys.argv[2]))' "$1" "$2"
}
reads_are() { [ "$(reads "$1" "$2")" = "$3" ]; }
# attack NAME SCRIPT: uid 65534 runs SCRIPT in namespaces of its own (user,
# mount, and the flags in NS), then says it is ready and runs ATTACK_TAIL
# (default: sleeps); ATTACKER is its pid.
attack() {
        local name=$1 script=$2
        rm -f "$U/nobody/ready"
        # Not through as_nobody (a function: $! would be a subshell's).
        # shellcheck disable=SC2086
        setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare -Ur $NS \
                sh -c "$script"' && : > "$1/ready" && '"${ATTACK_TAIL:-exec sleep 120}" _ "$U/nobody" > "$U/$name.log" 2>&1 &
        ATTACKER=$!
        wait_for 10 test -e "$U/nobody/ready" || { echo "# the attack $name did not start:"; sed 's/^/#   /' "$U/$name.log"; }
}
end_attack() { kill -KILL "$ATTACKER" 2>/dev/null; wait "$ATTACKER" 2>/dev/null; }
# The attacker's own process: its mount namespace is the one that matters.
attacker_leaf() { local p=$ATTACKER c; while c=$(pgrep -P "$p" | head -1) && [ -n "$c" ]; do p=$c; done; echo "$p"; }

start_daemon "$T" --config="$T/conf"
ok $? "the daemon starts with the unit's capability set"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"
# The tree's files (other tests' containers, running alongside, may add
# their own).
HOST_MARKS="/proc/vmstat /proc/zoneinfo /sys/devices/system/node/node0/numastat /sys/devices/system/node/node1/numastat"
watches_tree() { local w; w=" $(watched) "; for f in $HOST_MARKS; do [[ $w == *" $f "* ]] || return 1; done; }
watches_tree
ok $? "the tree's statistics files are watched ($(watched))"

# ---- a tmpfs at /proc, its vmstat unreadable ----
NS=-m
n=$(scans)
attack blind 'mount -t tmpfs none /proc && : > /proc/vmstat && chmod 000 /proc/vmstat'
wait_for 10 two_scans_since "$n"
ok $? "two container scans ran since uid 65534 mounted a tmpfs at its /proc"
listed; is $? 1 "  a tmpfs at /proc is no procfs instance"
watches_tree
ok $? "  the host's marks are all kept"
is "$(ctl --json=short | json_get sources.readers_error)" null "  and reader detection reports no error"
"$T/probecat" "$T/proc/vmstat" > /dev/null
wait_for 10 sysctl_is 1
ok $? "  a counted read of the tree's /proc/vmstat still turns counting on"
end_attack
wait_for 15 sysctl_is 0

# ---- /proc/vmstat a link to /etc/shadow ----
n=$(scans)
attack shadow 'mount -t tmpfs none /proc && ln -s /etc/shadow /proc/vmstat && ln -s /etc/shadow /proc/zoneinfo'
wait_for 10 two_scans_since "$n"
ok $? "two scans ran since uid 65534 made its /proc/vmstat a link to /etc/shadow"
listed; is $? 1 "  not taken for a procfs instance"
"$T/shadowcat" /etc/shadow > /dev/null
"$T/shadowcat" "$T/proc/vmstat" > /dev/null
wait_for 10 reads_are shadowcat /proc/vmstat 1
ok $? "  root reading /etc/shadow, then the tree's vmstat: only the second is a read (/etc/shadow is not marked)"
is "$(reads shadowcat /proc/vmstat)" 1 "  one read recorded, not two"
end_attack
wait_for 15 sysctl_is 0

# ---- a real procfs of theirs, with /etc/passwd bound over its zoneinfo ----
NS="-m -p -f --kill-child --mount-proc"
n=$(scans)
attack bind 'mount --bind /etc/passwd /proc/zoneinfo'
wait_for 10 two_scans_since "$n"
ok $? "two scans ran since uid 65534 made a procfs of its own, /etc/passwd bound over its zoneinfo"
# On a loaded machine a scan's look may outlive its deadline (1 s); then
# that user's looks are held for a minute: wait past it for the state.
wait_for 75 listed
ok $? "  its real procfs is an instance"
LEAF=$(attacker_leaf)
nsenter -t "$LEAF" -m "$T/passwdcat" /proc/zoneinfo > /dev/null
nsenter -t "$LEAF" -m "$T/ctrcat" /proc/vmstat > /dev/null
wait_for 10 reads_are ctrcat /proc/vmstat 1
ok $? "  a read of its real /proc/vmstat is seen"
is "$(reads passwdcat /proc/zoneinfo)" 0 "  a read of the /etc/passwd bound over its /proc/zoneinfo is not"
end_attack
wait_for 15 sysctl_is 0
stop_daemon

# ---- a mount flood must not postpone the scan forever ----
# uid 65534 mounts and unmounts a tmpfs every 30 ms in a namespace the daemon
# marks for mount events (kernels with FAN_MNT_ATTACH, 6.14+); meanwhile a
# namespace known since the start mounts its procfs. Scans are only asked
# for by mount events here (container_scan = 1h).
auto_conf "container_scan = 1h" > "$T/conf2"
NS=-m
# (The loop is the attacker's process itself: end_attack's kill ends it.)
ATTACK_TAIL='exec sh -c "while :; do mount -t tmpfs none /tmp/m; umount /tmp/m; sleep 0.03; done"' \
        attack mountflood 'mkdir -p /tmp/m'
unshare --pid --fork --kill-child --mount --propagation private \
        sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done; mount -t proc proc /proc; exec sleep 60' _ "$U/go-late" &
LATE=$!
in_own_ns() { [ "$(readlink "/proc/$(pgrep -P "$LATE" | head -1)/ns/mnt" 2>/dev/null)" != "$(readlink /proc/self/ns/mnt)" ]; }
wait_for 5 in_own_ns
start_daemon "$T" --config="$T/conf2"
if [ "$(ctl --json=short | json_get sources.mount_events)" != true ]; then
        skip "no mount events here: $(ctl --json=short | json_get sources.mount_events_error)"
else
        late_listed() { instance_listed "$(pgrep -P "$LATE" | head -1)"; }
        # The start-up scan must be over (it would find the procfs itself,
        # not through the mount event), and have marked the namespace.
        scanned_once() { [ "$(scans)" -ge 1 ]; }
        wait_for 10 scanned_once
        touch "$U/go-late"
        wait_for 5 late_listed
        ok $? "with uid 65534 mounting every 30 ms, a procfs mounted in a known namespace is still found"
        contains "$(ctl --json=short | json_get sources.proc_instances)" "mount-event" "  by a mount event's scan"
fi
kill -KILL "$LATE" 2>/dev/null
wait "$LATE" 2>/dev/null
end_attack
stop_daemon

# ---- 260 procfs instances of one user's do not crowd out root's container ----
# One owner's namespaces are looked into up to 128 a scan (half the
# instances kept): the rest keep what they had, and cost nothing more. The
# scan sees the whole host: the crowd's uid is one no other test uses, so
# that the share is the crowd's alone (tests run side by side, and uid
# 65534's namespaces of another are the same owner's).
CROWD_UID=65529
auto_conf "container_scan = 300ms" > "$T/conf3"
start_daemon "$T" --config="$T/conf3"
CROWD=()
for _ in $(seq 1 260); do
        setpriv --reuid=$CROWD_UID --regid=$CROWD_UID --clear-groups -- \
                unshare -Urpf --kill-child --mount-proc sleep 300 > /dev/null 2>&1 &
        CROWD+=($!)
done
status_num() { ctl --json=short | json_get "$1"; }
# theirs: the crowd's instances watched, seen through the unshare we started
# or its child (whichever has the lower pid: pids wrap).
theirs() {
        local pids
        pids=$(ps -o pid= --ppid "$(IFS=,; echo "${CROWD[*]}")" | tr -s ' \n' ' ')
        ctl --json=short | json_get sources.proc_instances | python3 -c 'import json, sys
crowd = set(int(p) for p in sys.argv[1:])
print(sum(1 for i in json.load(sys.stdin) if i["pid"] in crowd))' "${CROWD[@]}" $pids
}
full_of_theirs() { [ "$(status_num sources.scan_skipped)" -ge 132 ] && [ "$(theirs)" -ge 128 ]; }
wait_for 60 full_of_theirs
ok $? "uid $CROWD_UID makes 260 real procfs instances: 128 are looked into and watched, the rest left alone ($(status_num sources.scan_skipped) left, $(theirs) watched)"
unshare --pid --fork --kill-child --mount-proc sleep 300 &
ROOTC=$!
rootc_listed() { instance_listed "$(pgrep -P "$ROOTC" | head -1)" ours; }
wait_for 10 rootc_listed
ok $? "  a container root starts then is watched all the same"
# At most their share, not exactly: instances are kept 256 in all, and
# other tests' containers beside this one may take some of the places.
n=$(theirs)
ok $([ "$n" -le 128 ]; echo $?) "  theirs stay within their share ($n, at most 128)"
kill -KILL "${CROWD[@]}" 2>/dev/null
wait "${CROWD[@]}" 2>/dev/null
few_of_theirs() { [ "$(ctl --json=short | json_get sources.proc_instances | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -lt 20 ]; }
wait_for 30 few_of_theirs

# Marks change with the set, by difference: uid 65534's instances come and
# go (a change at nearly every scan) while a reader in root's container
# reads 200 times, one process each. Every read is seen.
setpriv --reuid=65534 --regid=65534 --clear-groups -- \
        sh -c 'while :; do unshare -Urpf --kill-child --mount-proc sleep 0.6 & sleep 0.15; done' > /dev/null 2>&1 &
CHURN=$!
n=$(scans)
wait_for 10 two_scans_since "$n"
LEAFC=$(pgrep -P "$ROOTC" | head -1)
for _ in $(seq 1 200); do nsenter -t "$LEAFC" -m -p "$T/churncat" /proc/vmstat > /dev/null; done
# Each read is a new process in a root of its own: the daemon may wait for
# a look into it up to 100 ms (numastatd.conf(5)), 20 s for all 200 on a
# loaded host. The check is that none is lost, not how fast.
wait_for 45 reads_are churncat /proc/vmstat 200
ok $? "while uid 65534's instances come and go ($(($(scans) - n)) scans), all 200 reads in root's container are seen ($(reads churncat /proc/vmstat))"
kill -KILL "$CHURN" "$ROOTC" 2>/dev/null
wait "$CHURN" "$ROOTC" 2>/dev/null
stop_daemon

# ---- a file of the root's own that cannot be marked ----
chmod 000 "$T/proc/zoneinfo"
start_daemon "$T" --config="$T/conf"
ok $? "the daemon starts with the tree's zoneinfo unreadable to it (no CAP_DAC_OVERRIDE)"
blind() { [ "$(ctl --json=short | json_get sources.readers_error)" != null ]; }
wait_for 10 blind
ok $? "  it cannot mark the tree's files: reader detection reports an error"
contains "$(ctl --json=short | json_get sources.readers_error)" "cannot mark the statistics files: Permission denied" "  saying why"
contains "$(ctl status)" "cannot mark the statistics files" "  numastatctl status says so"
is "$(watched)" "" "  nothing listed as watched"
on=0
for _ in $(seq 1 20); do sleep 0.1; sysctl_is 1 && fake_state_is counting 1 && on=$((on + 1)); done
is "$on" 20 "  under pressure, auto keeps counting on, blind (20 samples over 2 s; off takes 0.3 s when it can see)"
chmod 644 "$T/proc/zoneinfo"
not_blind() { ! blind; }
wait_for 15 not_blind
ok $? "  the file readable again: reader detection is back at a retry"
watches_tree
ok $? "  all the tree's files watched again"
wait_for 15 sysctl_is 0
ok $? "  and counting goes off under pressure again"
stop_daemon

done_testing
