#!/bin/bash
# What a local user can do to the daemon's looks into processes (each a
# child that becomes the process, with a deadline), against the daemon
# with the unit's capabilities, as uid 65534 (and a second uid, and a
# range of subordinate uids):
# - stopping the children (the daemon's children file is world-readable):
#   each is killed at its deadline all the same, root's container is still
#   found and its reads seen, and no child outlives the daemon;
# - every way a look can fail to answer counts the read: its deadline, a
#   refusal, a child its user killed; and so do the process's later reads;
# - 4,200 one-process namespaces, mounts in 300 of them: root's container
#   is still found and all its reads seen;
# - a mount loop of uid 65533's where statmount() is filtered (Debian 12's
#   systemd): the scan's answers for root's namespaces stand;
# - a catalogued program that runs a set-user-ID program (su) right after
#   its read, naming a root-only @FILE: the look never runs as root, and
#   nothing of the file is told;
# - readers as 400 uids of one user's subordinate range: they share that
#   user's looks.
. "$(dirname "$0")/lib.sh"

require_root "fanotify needs CAP_SYS_ADMIN; the attacks are uid 65534's"
ATTACKER=$BUILDDIR/tests/integration/attacker
PRELOAD=$BUILDDIR/tests/integration/attacker-preload.so
require_user_namespaces
fake_kernel_tree looks
# Where uid 65534 may reach what it runs, wherever the build tree is.
U=$(mktemp -d /tmp/numastatd-looks-XXXXXX)
cleanup_trees+=("$U")
chmod 755 "$U"
install -m 755 "$ATTACKER" "$U/attacker"
install -o 65534 -g 65534 -d "$U/nobody"
cp /bin/cat "$T/rootcat"
auto_conf "container_scan = 200ms" > "$T/conf"
DAEMON_WRAP=$UNIT_CAPS_WRAP NUMASTATD_TEST_LOG_LEVEL=debug start_daemon "$T" --config="$T/conf"
ok $? "the daemon starts with the unit's capability set"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"

looks() { ctl --json=short | json_get "sources.$1"; }
reads() {
        ctl --json=short readers | python3 -c 'import json, sys
print(sum(r["count"] for r in json.load(sys.stdin) if r["comm"] == sys.argv[1] and r["path"] == sys.argv[2]))' "$1" "$2"
}
reads_are() { [ "$(reads "$1" "$2")" = "$3" ]; }
# dead PID...: each gone, or a zombie waiting for its reaper.
dead() {
        local p s
        for p in "$@"; do
                s=$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$p/status" 2> /dev/null)
                [ -z "$s" ] || [ "$s" = Z ] || [ "$s" = X ] || return 1
        done
}
stopped_pids() { awk '/^stopped/ { print $2 }' "$1"; }
# stopper LOG [kill]: uid 65534 stops (kills) the daemon's children as they
# come, into LOG; STOPPER its pid. stopped_some LOG: one was, at least.
stopper() {
        setpriv --reuid=65534 --regid=65534 --clear-groups -- "$U/attacker" stop-children "$DAEMON_PID" 300 ${2:+"$2"} \
                > "$1" 2>&1 &
        STOPPER=$!
}
stopped_some() { [ "$(stopped_pids "$1" | wc -l)" -ge 1 ]; }
# A container of root's, started now: ROOTC; rootc_leaf its process.
root_container() {
        unshare --pid --fork --kill-child --mount-proc sleep 300 &
        ROOTC=$!
}
rootc_leaf() { pgrep -P "$ROOTC" | head -1; }
rootc_listed() { instance_listed "$(rootc_leaf)" ours; }
# uid 65534's reader of the tree's vmstat in a root of its own, where its
# binary is /bin/node_exporter (a catalogued path: its look finds it
# there): every PERIOD ms. NAME's pid (the reader's) in READER.
nobody_reader() {
        local name=$1 period=$2 r=$U/nobody/$1
        rm -rf "$r"
        mkdir -p "$r/bin" "$r/proc"
        cp "$ATTACKER" "$r/bin/node_exporter"
        chown -R 65534:65534 "$r"
        setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare -Urm --propagation private sh -c '
                mount --bind "$2/proc" "$1/proc" && ATTACK_NAME=$4 exec chroot "$1" /bin/node_exporter read /proc/vmstat "$3"' \
                _ "$r" "$T" "$period" "$name" > "$U/$name.log" 2>&1 &
        READER_LAUNCHER=$!
        # The launcher becomes the reader (each step execs the next).
        READER=
        for _ in $(seq 1 200); do
                [ "$(readlink "/proc/$READER_LAUNCHER/exe")" = "$r/bin/node_exporter" ] && READER=$READER_LAUNCHER && break
                sleep 0.05
        done
}

# ---- stopped children: the container scan ----
setpriv --reuid=65534 --regid=65534 --clear-groups -- "$U/attacker" namespaces 2 0 "$U/nobody/two" \
        > "$U/two.log" 2>&1 &
TWO=$!
wait_for 10 test -e "$U/nobody/two"
ok $? "uid 65534 makes two namespaces of its own"
stopper "$U/stopper.log"
wait_for 15 stopped_some "$U/stopper.log"
ok $? "  and stops the daemon's children that look into them ($(stopped_pids "$U/stopper.log" | wc -l) stopped)"
root_container
wait_for 15 rootc_listed
ok $? "  a container of root's started after is found all the same"
for _ in $(seq 1 20); do nsenter -t "$(rootc_leaf)" -m -p "$T/rootcat" /proc/vmstat > /dev/null; done
wait_for 15 reads_are rootcat /proc/vmstat 20
ok $? "  and all 20 reads in it are seen ($(reads rootcat /proc/vmstat))"
wait_for 15 dead $(stopped_pids "$U/stopper.log")
ok $? "  each stopped child is killed by its deadline (1 s), stopped as it is"
# A child stopped just after it answered was answered, not timed out (seen
# on a loaded machine): the stopper goes on, and one of its stops lands
# before an answer.
timed_out_some() { [ "$(looks scan_looks.timed_out)" -ge 1 ]; }
wait_for 15 timed_out_some
ok $? "  status counts them: scan looks timed out: $(looks scan_looks.timed_out)"
# A second user, whose namespace is looked into meanwhile: one user's
# attack costs that user alone.
setpriv --reuid=65533 --regid=65533 --clear-groups -- unshare -Urpf --kill-child --mount-proc sleep 300 \
        > /dev/null 2>&1 &
OTHER=$!
other_listed() { instance_listed "$(pgrep -P "$OTHER" | head -1)"; }
wait_for 15 other_listed
ok $? "uid 65533's procfs instance is found while uid 65534 stops children"
kill -KILL "$OTHER" "$TWO" "$STOPPER" "$ROOTC" 2> /dev/null
wait "$OTHER" "$TWO" "$STOPPER" "$ROOTC" 2> /dev/null

# ---- stopped children: a reader's look ----
# uid 65534 runs Debian's node_exporter (known by its binary; whether its
# command line exports numa_* needs a look), made to read the tree's vmstat
# every 3 s; its user stops the look's child. The look times out, and the
# reader's later reads count, as they would after any other way a look
# ends without an answer. (Where node_exporter is missing, a copy of ours
# in a root of its own: its look finds which entry it is.) A look lives about a millisecond, which the stopper may miss
# (then the look answers: no count), so three readers are tried at once,
# again until a look has ended so; those whose look answered count none of
# their reads, so counting goes on only for those whose look did not.
# exporter_reader NAME PERIOD: that node_exporter, READER_LAUNCHER its pid.
NE=/usr/bin/prometheus-node-exporter
cp "$PRELOAD" "$U/preload.so"
chmod 644 "$U/preload.so"
exporter_reader() {
        setpriv --reuid=65534 --regid=65534 --clear-groups -- env LD_PRELOAD="$U/preload.so" \
                ATTACK_READ="$T/proc/vmstat" ATTACK_EVERY_MS="$2" ATTACK_NAME="$1" "$NE" > "$U/$1.log" 2>&1 &
        READER_LAUNCHER=$!
        READER=$READER_LAUNCHER
}
some_reader() { if [ -x "$NE" ]; then exporter_reader "$@"; else nobody_reader "$@"; fi; }
# says COMM WHY: whether a reader entry of comm COMM has a why with WHY.
says() {
        ctl --json=short readers | python3 -c 'import json, sys
sys.exit(0 if any(r["comm"] == sys.argv[1] and sys.argv[2] in (r["why"] or "") for r in json.load(sys.stdin)) else 1)' "$1" "$2"
}
# try_readers NAME WHY: three readers at a time (each reading every 3 s, as
# comm NAME1..3) until one's why says WHY (up to 10 times); READER_LAUNCHER
# is that one, the others are ended.
try_readers() {
        local i pids
        for try in $(seq 1 10); do
                wait_for 10 sysctl_is 0
                pids=()
                for i in 1 2 3; do
                        some_reader "$1$try$i" 3000
                        pids+=("$READER_LAUNCHER")
                done
                one_says() { for i in 1 2 3; do says "$1$try$i" "$2" && FOUND=$i && return 0; done; return 1; }
                FOUND=
                # A try that failed is tried again: its wait is not stretched.
                WAIT_FOR_MIN=10 wait_for 10 one_says "$1" "$2"
                for i in 1 2 3; do
                        if [ "$i" = "$FOUND" ]; then READER_LAUNCHER=${pids[$((i - 1))]}; continue; fi
                        kill -KILL "${pids[$((i - 1))]}" 2> /dev/null
                        wait "${pids[$((i - 1))]}" 2> /dev/null
                done
                [ -n "$FOUND" ] && return 0
        done
        return 1
}
stopper "$U/stopper-reads.log"
try_readers stop "took too long"
ok $? "uid 65534's catalogued reader, its look's child stopped by its user: the look times out ($(looks reader_looks.timed_out))"
wait_for 10 sysctl_is 0
ok $? "  linger over: counting off"
wait_for 10 sysctl_is 1
ok $? "  its reader's next read counts (a look that timed out is no verdict)"
wait_for 10 sysctl_is 0
wait_for 10 sysctl_is 1
ok $? "  and the next"
kill -KILL "$READER_LAUNCHER" 2> /dev/null
wait "$READER_LAUNCHER" 2> /dev/null
# Its user's looks are held now: a new reader of theirs counts at once.
wait_for 10 sysctl_is 0
nobody_reader held 3000
wait_for 5 sysctl_is 1
ok $? "a new reader of the same user, its looks held after that timeout: its read counts"
says held "took too long lately"
ok $? "  saying why"
kill -KILL "$READER_LAUNCHER" "$STOPPER" 2> /dev/null
wait "$READER_LAUNCHER" "$STOPPER" 2> /dev/null
stop_daemon

# ---- the daemon killed while a child is stopped ----
DAEMON_WRAP=$UNIT_CAPS_WRAP start_daemon "$T" --config="$T/conf"
wait_for 15 sysctl_is 0
setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare -Urpf --kill-child --mount-proc sleep 300 \
        > /dev/null 2>&1 &
ONE=$!
stopper "$U/stopper2.log"
wait_for 15 stopped_some "$U/stopper2.log"
ok $? "a look's child stopped by its user (pid $(stopped_pids "$U/stopper2.log" | head -1))"
stop_daemon KILL
wait_for 10 dead $(stopped_pids "$U/stopper2.log")
ok $? "  the daemon killed (SIGKILL), the stopped child dies too: its death signal outlived its change of ids"
kill -KILL "$STOPPER" "$ONE" 2> /dev/null
wait "$STOPPER" "$ONE" 2> /dev/null
for p in $(stopped_pids "$U/stopper2.log"); do kill -KILL "$p" 2> /dev/null; done

# ---- a child its user kills ----
DAEMON_WRAP=$UNIT_CAPS_WRAP start_daemon "$T" --config="$T/conf"
stopper "$U/killer.log" kill
KILLER=$STOPPER
try_readers kill "could not be looked into"
ok $? "a reader whose look's child its user kills: the look ends without an answer ($(looks reader_looks.failed) failed)"
wait_for 10 sysctl_is 0
wait_for 10 sysctl_is 1
ok $? "  its reader's next read counts"
kill -KILL "$KILLER" "$READER_LAUNCHER" 2> /dev/null
wait "$KILLER" "$READER_LAUNCHER" 2> /dev/null
stop_daemon

# ---- 4,200 namespaces, mounts in 300 of them ----
auto_conf "container_scan = 1s" > "$T/conf-crowd"
DAEMON_WRAP=$UNIT_CAPS_WRAP start_daemon "$T" --config="$T/conf-crowd"
wait_for 15 sysctl_is 0
setpriv --reuid=65534 --regid=65534 --clear-groups -- "$U/attacker" namespaces 4200 300 "$U/nobody/crowd" \
        > "$U/crowd.log" 2>&1 &
CROWD=$!
wait_for 60 test -e "$U/nobody/crowd"
ok $? "uid 65534 makes 4,200 one-process namespaces, mounting in 300 of them"
skipped_many() { [ "$(looks scan_skipped)" -ge 4000 ]; }
wait_for 30 skipped_many
ok $? "  a scan looks into 128 of them, the rest are left alone ($(looks scan_skipped))"
cpu0=$(awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat")
t0=$(usec_now)
root_container
# Root's looks go first, but on a loaded machine one may outlive its
# deadline, and root's are then held for a minute like anyone's.
wait_for 75 rootc_listed
ok $? "  a container of root's started then is found"
for _ in $(seq 1 40); do nsenter -t "$(rootc_leaf)" -m -p "$T/rootcat" /proc/vmstat > /dev/null; done
wait_for 30 reads_are rootcat /proc/vmstat 40
ok $? "  and all 40 reads in it are seen ($(reads rootcat /proc/vmstat))"
sleep 2 # a figure over a few scans
echo "# figure: daemon CPU with 4,200 namespaces of uid 65534, 300 of them mounting: $(python3 -c "print('%.0f' % (100 * ($(awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat") - $cpu0) / $(getconf CLK_TCK) / (($(usec_now) - $t0) / 1e6)))")% of a core (scans every 1 s)"
kill -KILL "$CROWD" "$ROOTC" 2> /dev/null
wait "$CROWD" "$ROOTC" 2> /dev/null
stop_daemon

# ---- a set-user-ID program run right after the read ----
# uid 65534 runs the catalogued node_exporter (Debian's, whose
# --collector.vmstat.fields the daemon checks, and whose @FILE arguments
# it reads as kingpin does) with a library that reads the tree's vmstat
# and then runs su @FILE in the same process, FILE being root's alone,
# its first line a marker. 20 times, the exec a little later each time.
if [ ! -x "$NE" ]; then
        skip "prometheus-node-exporter is not installed (scripts/install-deps.sh --test installs it)"
elif [ ! -u /bin/su ]; then
        skip "/bin/su is not set-user-ID here"
else
        S=$(mktemp -d /tmp/numastatd-secret-XXXXXX)
        cleanup_trees+=("$S")
        chmod 700 "$S"
        # A regex that does not compile: a look that read the file would
        # tell why its readers count, and (before this was fixed) repeat it.
        MARK=numastatdSECRET$$MARK
        echo "--collector.vmstat.fields=$MARK(" > "$S/args"
        chmod 600 "$S/args"
        DAEMON_WRAP=$UNIT_CAPS_WRAP NUMASTATD_TEST_LOG_LEVEL=debug start_daemon "$T" --config="$T/conf"
        wait_for 15 sysctl_is 0
        # su waits for a password on a pipe nobody writes.
        exec 7< <(sleep 300)
        SILENT=$!
        for i in $(seq 0 19); do
                setpriv --reuid=65534 --regid=65534 --clear-groups -- env LD_PRELOAD="$U/preload.so" \
                        ATTACK_READ="$T/proc/vmstat" ATTACK_EXEC=/bin/su ATTACK_ARG="@$S/args" \
                        ATTACK_DELAY_US=$((i * 200)) "$NE" <&7 > /dev/null 2>&1 &
                A=$!
                sleep 0.5
                kill -KILL "$A" 2> /dev/null
                wait "$A" 2> /dev/null
        done
        exec 7<&-
        kill "$SILENT" 2> /dev/null
        settled() { [ "$(looks reader_looks.running)" = 0 ]; }
        wait_for 10 settled
        seen=$(ctl --json=short readers)
        is "$(grep -c "$MARK" <<< "$seen")" 0 "su @FILE raced 20 times: root's view of the readers tells nothing of the file"
        is "$(grep -c -- "--collector.vmstat.fields" <<< "$seen")" 0 \
                "  no verdict comes from it (the option it names was never read: no look ran as root)"
        is "$(grep -ac "$MARK" "$DAEMON_LOG")" 0 "  nor does the daemon's log (debug)"
        is "$(as_nobody "$NUMASTATCTL" --socket="$SOCK" --json=short readers | grep -c "$MARK")" 0 "  nor uid 65534's view"
        echo "# figure: the race's looks: started $(looks reader_looks.started), answered $(looks reader_looks.answered)," \
             "discarded (another binary or other ids meanwhile) $(looks reader_looks.changed)," \
             "failed $(looks reader_looks.failed), refused $(looks reader_looks.refused)"
        stop_daemon
fi

# ---- a user's mount loop, statmount() filtered ----
# Under the shipped unit on Debian 12, systemd 252's SystemCallFilter=
# knows nothing of statmount() (Linux 6.8) and the daemon gets an error for
# it: a mount event's namespace cannot be told. uid 65533 mounts in a loop
# in a namespace of its own while root runs 8 containers: the scan's
# answers for root's namespaces (kept 5 scans) must stand, each looked
# into once in 5 scans, not at every scan.
DENY=$BUILDDIR/tests/integration/deny-syscall
auto_conf "container_scan = 200ms" > "$T/conf-mounts"
# shellcheck disable=SC2086
DAEMON_WRAP="$DENY 457 $(python3 -c 'import errno; print(errno.ENOSYS)') $UNIT_CAPS_WRAP" start_daemon "$T" --config="$T/conf-mounts"
if [ "$(looks mount_events)" != true ]; then
        skip "no mount events here: $(looks mount_events_error)"
else
        ROOTS=()
        for _ in $(seq 1 8); do
                unshare --pid --fork --kill-child --mount-proc sleep 300 &
                ROOTS+=($!)
        done
        setpriv --reuid=65533 --regid=65533 --clear-groups -- "$U/attacker" namespaces 1 1 "$U/mounter-ready" \
                > "$U/mounter.log" 2>&1 &
        MOUNTER=$!
        wait_for 10 test -e "$U/mounter-ready"
        all_listed() {
                local p
                for p in "${ROOTS[@]}"; do instance_listed "$(pgrep -P "$p" | head -1)" ours || return 1; done
        }
        wait_for 15 all_listed
        ok $? "statmount() filtered: root's 8 containers are found, uid 65533 mounting in a loop"
        is "$(looks fallbacks | grep -c "no statmount().*namespace cannot be told")" 1 \
           "  status names the fallback and its cost: a mount event's namespace cannot be told"
        # Each namespace once in 5 scans, uid 65533's at most once a scan,
        # over 20 scans. Root's own mounts elsewhere on the host (tests
        # beside this one) rightly have root's namespaces looked into
        # again, and the kernel cannot tell which here: up to three windows,
        # one within the bound suffices. uid 65533's loop never stops, so
        # a daemon it costs more fails them all (10.6 looks a scan, seen).
        windows=
        for _ in 1 2 3; do
                s0=$(looks scans) l0=$(looks scan_looks.started)
                twenty_more() { [ "$(looks scans)" -ge $((s0 + 20)) ]; }
                wait_for 30 twenty_more
                scans=$(($(looks scans) - s0)) started=$(($(looks scan_looks.started) - l0))
                n=$(looks mount_namespaces)
                bound=$(python3 -c "print('%.1f' % (1 + $n / 5 + 1.5))")
                per=$(python3 -c "print('%.1f' % ($started / max($scans, 1)))")
                windows="$windows${windows:+, }$per over $scans scans"
                python3 -c "import sys; sys.exit(0 if $per <= $bound else 1)" && break
        done
        ok $(python3 -c "import sys; sys.exit(0 if $per <= $bound else 1)"; echo $?) \
                "  the mounts cost uid 65533 alone: looks a scan $windows, $n namespaces (at most $bound)"
        all_listed
        ok $? "  root's containers are all still watched"
        kill -KILL "$MOUNTER" "${ROOTS[@]}" 2> /dev/null
        wait "$MOUNTER" "${ROOTS[@]}" 2> /dev/null
fi
stop_daemon

# ---- 400 uids of one user's subordinate range ----
# newuidmap maps uid 65534's subordinate range (/etc/subuid, here a file
# bound over it in a mount namespace of the test's own) into a user
# namespace it makes; as 400 uids of it, one after another (100 a second),
# readers that each need a look. Each uid new to a limit by uid would get
# a full burst; as one user's, they share its looks.
if ! command -v newuidmap > /dev/null || ! unshare --help | grep -q -- --map-users; then
        skip "newuidmap (package uidmap) or unshare --map-users (util-linux >= 2.38) is missing"
else
        R=$U/nobody/range-root
        mkdir -p "$R/bin" "$R/proc"
        cp "$ATTACKER" "$R/bin/node_exporter"
        chmod -R a+rX "$R"
        echo "nobody:200000:65536" > "$U/subid"
        DAEMON_WRAP=$UNIT_CAPS_WRAP start_daemon "$T" --config="$T/conf"
        wait_for 15 sysctl_is 0
        started0=$(looks reader_looks.started)
        t0=$(usec_now)
        unshare -m --propagation private sh -c '
                mount --bind "$1" /etc/subuid && mount --bind "$1" /etc/subgid || exit 1
                exec setpriv --reuid=65534 --regid=65534 --clear-groups -- \
                        unshare --map-user=0 --map-group=0 --map-users=200000,1,65535 --map-groups=200000,1,65535 \
                        -m --propagation private sh -c "
                        mount --bind \"\$1/proc\" \"\$2/proc\" && exec \"\$3\" readers 400 \"\$2\" /proc/vmstat 60000 \"\$4\" 10" \
                        _ "$2" "$3" "$4" "$5"' _ "$U/subid" "$T" "$R" "$U/attacker" "$U/nobody/range-ready" \
                > "$U/range.log" 2>&1 &
        RANGE=$!
        wait_for 20 test -e "$U/nobody/range-ready"
        ok $? "uid 65534, through newuidmap, starts 400 readers as 400 uids of its subordinate range"
        # Each one's first read is judged: a look, or refused (it counts).
        all_read() { [ "$(ctl --json=short | json_get sources.reads_total)" -ge 400 ]; }
        wait_for 30 all_read
        # The count first, then the time: looks go on starting while a
        # loaded machine asks (146 counted after a time that allowed 137).
        started=$(($(looks reader_looks.started) - started0))
        secs=$(python3 -c "print('%.1f' % max(1.0, ($(usec_now) - $t0) / 1e6))")
        bound=$(python3 -c "print(int(40 + 20 * $secs + 5))")
        ok $([ "$started" -le "$bound" ]; echo $?) \
                "  they share their user's looks: $started started in $secs s (one user's: burst 40, 20/s: at most $bound)"
        counted=$(ctl --json=short | json_get sources.reads_counted)
        ok $([ "$counted" -ge $((400 - bound)) ]; echo $?) "  the reads refused a look count: $counted of 400"
        uids=$(ctl --json=short readers | python3 -c 'import json, sys
print(len(set(r["uid"] for r in json.load(sys.stdin) if 200000 <= r["uid"] < 200400)))')
        ok $([ "$uids" -ge 10 ]; echo $?) "  (readers of $uids of those uids are in the table)"
        kill -KILL "$RANGE" 2> /dev/null
        wait "$RANGE" 2> /dev/null
        stop_daemon
fi

done_testing
