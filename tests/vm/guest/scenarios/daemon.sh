#!/bin/sh
# numastatd's scenarios on a real kernel (mainline vm.numa_stat or the
# patched numa_stats_mode), run inside the VM as root. TAP on the results
# port; figures as "# figure:" diagnostics.
. /guest/tap.sh
SOCK=/run/numastatd/io.numastatd
CONF=/tmp/numastatd.conf

if [ -e /proc/sys/vm/numa_stats_mode ]; then
        # The default off_mode is coarse (measured: see patched.sh, which
        # covers off_mode=auto, armed and triggered, on its own).
        KIND=patched SYSCTL=/proc/sys/vm/numa_stats_mode BACKEND=numa_stats_mode ON=strict OFF_AUTO=coarse OFF_COARSE=coarse
else
        KIND=mainline SYSCTL=/proc/sys/vm/numa_stat BACKEND=numa_stat ON=1 OFF_AUTO=0 OFF_COARSE=0
fi
diag "kernel $(uname -r), $KIND, $(ls -d /sys/devices/system/node/node[0-9]* | wc -l) nodes, $(nproc) cpus"

ctl() { numastatctl --socket=$SOCK "$@"; }
# jget KEY: a scalar top-level field of the status (the status JSON is flat
# enough at the top for this; nested fields use their own greps).
jget() { ctl --json=short | sed -n "s/^{.*\"$1\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p" | head -1 | tr -d '"'; }
sysctl_is() { [ "$(cat $SYSCTL)" = "$1" ]; }
# counting_is true|false: what the daemon says of the kernel (not the sysctl's word).
counting_is() { [ "$(ctl --json=short | grep -o '"counting":[a-z]*' | head -1 | cut -d: -f2)" = "$1" ]; }
start() {  # start [ARGS]: numastatd with $CONF in the background
        numastatd --config=$CONF "$@" >>/tmp/numastatd.log 2>&1 &
        DPID=$!
        wait_for 10 ctl status >/dev/null 2>&1
}
stop() { kill -TERM "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; }
hits() {  # sum of numa_hit over the nodes (reads the node files!)
        cat /sys/devices/system/node/node*/numastat | awk '$1 == "numa_hit" { s += $2 } END { print s + 0 }'
}

# ---- backend, strict, coarse ----
printf '[policy]\nmode = strict\n' > $CONF
start
is "$(jget backend)" "$BACKEND" "backend detected: $BACKEND"
is "$(cat $SYSCTL)" "$ON" "policy strict: $SYSCTL reads $ON"
ctl set-policy coarse >/dev/null
is "$(cat $SYSCTL)" "$OFF_COARSE" "policy coarse: $SYSCTL reads $OFF_COARSE"
is "$(jget kernel_mode)" coarse "status: kernel_mode coarse"
ctl set-policy strict >/dev/null
is "$(cat $SYSCTL)" "$ON" "back to strict"
nodes=$(ctl --json=short | grep -o '"memory_total_bytes"' | wc -l)
is "$nodes" "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" "status lists every node"
stop
is "$(cat $SYSCTL)" "$ON" "stop leaves counting on"

# ---- auto: pressure turns counting off; readers turn it on ----
cat > $CONF <<EOF2
[policy]
mode = auto
min_dwell = 0
[pressure]
interval = 200ms
coarse_above = 2000
strict_below = 100
sustain = 1s
[readers]
linger = 4s
ignore = comm=head
EOF2
start
alloc-load load 600 &
LOAD=$!
wait_for 60 counting_is false
ok $? "auto: allocation load and no reader: the daemon says counting off"
is "$(cat $SYSCTL)" "$OFF_AUTO" "  $SYSCTL reads $OFF_AUTO"
diag "allocation rate seen: $(jget allocation_rate) pages/s"

# Off means off, by the counters, not the sysctl's word: read by an
# ignored reader (head), numa_hit must not move under allocation load.
# head stays alive on its stdin after the file: a reader gone before the
# daemon looks cannot be named, so no ignore rule could match it.
node_hit() { sleep 1 | head -c 200 /sys/devices/system/node/node0/numastat - | awk '$1 == "numa_hit" { print $2 }'; }
sleep 1
H1=$(node_hit)
sleep 2
H2=$(node_hit)
diag "$KIND, off under load: node0 numa_hit $H1, 2 s later $H2"
is "${H1:-none} $H2" "$H1 $H1" "off means off: numa_hit does not move under allocation load"

# An ignored reader: stays off (on the patched kernel the read itself turns
# the kernel's counting on; the daemon re-arms it).
sleep 3 | head -c 10 /sys/devices/system/node/node1/numastat - >/dev/null &
sleep 1.5
is "$(cat $SYSCTL)" "$OFF_AUTO" "an ignored reader (head) leaves it off"

sleep 3 | cat /sys/devices/system/node/node1/numastat - >/dev/null &
sleep 0.1
CATPID=$(pidof cat | awk '{print $1}')
wait_for 10 counting_is true
ok $? "a reader (cat of node1/numastat) turns counting on"
is "$(cat $SYSCTL)" "$ON" "  $SYSCTL reads $ON"
ctl readers | grep -q "^cat (pid $CATPID, uid 0) read /sys/devices/system/node/node1/numastat"
ok $? "attributed to cat, its pid and file"
ctl readers | grep -q "^head .*ignored by rule .*(comm=head)"
ok $? "the ignored reader is listed as ignored"

# The daemon's service figures against a reader's own check: grep reads
# node0's numa_hit (alive a second on its stdin, so it is named) and calls
# a read served when the counter moved since its previous read; after each
# read the daemon's figures for grep must have moved the same way.
wait_for 30 counting_is false
svc() {  # svc: grep's served unserved first_reads_counting_off
        ctl --json=short readers | tr '{' '\n' | grep '"comm":"grep"' | grep "node0/numastat" |
                sed -n 's/.*"served":\([0-9]*\),"unserved":\([0-9]*\),"first_reads_counting_off":\([0-9]*\).*/\1 \2 \3/p'
}
judged() { set -- $(svc) 0 0 0; [ $(($1 + $2 + $3)) -ge "$N" ]; }
PREV= N=0 SEQ= AGREE=0
grep_read() {
        V=$(sleep 1 | grep -h -m1 numa_hit /sys/devices/system/node/node0/numastat - | awk '{ print $2 }')
        N=$((N + 1))
        wait_for 10 judged
        set -- $(svc) 0 0 0
        case "$1 $2 $3" in
        "$S_SERVED $S_UNSERVED $((S_FIRST + 1))") D=first-off ;;
        "$((S_SERVED + 1)) $S_UNSERVED $S_FIRST") D=served ;;
        "$S_SERVED $((S_UNSERVED + 1)) $S_FIRST") D=unserved ;;
        *) D="?($1 $2 $3)" ;;
        esac
        S_SERVED=$1 S_UNSERVED=$2 S_FIRST=$3
        if [ -z "$PREV" ]; then G=first
        elif [ "$V" -gt "$PREV" ]; then G=served
        else G=unserved; fi
        PREV=$V SEQ="$SEQ $D"
        [ "$G" = first ] || [ "$G" = "$D" ] || AGREE=1
        diag "service: read $N: numa_hit $V, the reader says $G, the daemon $D"
}
S_SERVED=0 S_UNSERVED=0 S_FIRST=0
grep_read                               # counting off: a first read that found it off
grep_read                               # within linger: on since the first
wait_for 30 counting_is false
grep_read                               # off in between: unserved
grep_read                               # on since the third
is "$SEQ" " first-off served unserved served" "the daemon's service figures, read by read"
is "$AGREE" 0 "  and each agrees with the reader's own check of the counters"

# One-off readers, gone before the daemon looks: named from their exit
# records (CONFIG_TASKSTATS), as on a host. An ignored one never turns
# counting on; a counted one is named.
is "$(jget exit_records)" true "exit records are a source"
wait_for 30 counting_is false
T0=$(jget transitions_total) I0=$(jget reads_ignored)
head -c 10 /sys/devices/system/node/node1/numastat > /dev/null
wait_for 10 sh -c "[ \$(numastatctl --socket=$SOCK --json=short | sed -n 's/.*\"reads_ignored\":\([0-9]*\).*/\1/p') -gt $I0 ]"
ok $? "a one-off head, gone at once, is ignored by its rule"
sleep 1
is "$(jget transitions_total) $(cat $SYSCTL)" "$T0 $OFF_AUTO" "  and counting never came on (no switch, $SYSCTL $OFF_AUTO)"
cat /sys/devices/system/node/node1/numastat > /dev/null &
ONEOFF=$!
wait $ONEOFF
wait_for 10 counting_is true
ok $? "a one-off cat, gone at once, turns counting on"
# Its read waits 50 ms for the exit record; a slow TCG guest may miss it
# (then the read counts unnamed, and exits_missed says so): up to three
# one-off cats, and one of them must be named.
named() { ctl readers | grep -q "^cat (pid $1, uid 0) read /sys/devices/system/node/node1/numastat"; }
tries=1
until wait_for 2 named $ONEOFF || [ $tries -ge 3 ]; do
        diag "one-off cat $ONEOFF not named (exits named $(jget exits_named), missed $(jget exits_missed)); again"
        cat /sys/devices/system/node/node1/numastat > /dev/null &
        ONEOFF=$!
        wait $ONEOFF
        tries=$((tries + 1))
done
named $ONEOFF
ok $? "  and is named: cat, its pid and file (from its exit record; try $tries of 3)"
named $ONEOFF || ctl readers | while IFS= read -r l; do diag "readers: $l"; done
kill $LOAD 2>/dev/null
stop

# ---- counters across a reset ----
printf '[policy]\nmode = strict\n[pressure]\ninterval = 200ms\n' > $CONF
start
sleep 1
BASE=$(hits)             # at least what the daemon started counting from
alloc-load load 3 0
SEEN=$(hits)
ctl set-policy coarse >/dev/null        # entering coarse zeroes the counters
AFTER_RESET=$(hits)
ctl set-policy strict >/dev/null
alloc-load load 1 0
sleep 0.5
TOTAL=$(ctl --json=short | grep -o '"counters":{"total":{"numa_hit":[0-9]*' | grep -o '[0-9]*$')
diag "numa_hit: $BASE at the start, $SEEN before the reset, $AFTER_RESET after it; the daemon counted $TOTAL"
ok $([ "$AFTER_RESET" -lt "$SEEN" ]; echo $?) "the kernel zeroed the counters"
ok $([ "$TOTAL" -ge $((SEEN - BASE)) ]; echo $?) "the daemon's total ($TOTAL) >= what was counted before the reset ($((SEEN - BASE)))"
is "$(ctl --json=short | grep -o '"resets_compensated":[0-9]*' | grep -o '[0-9]*$')" 1 "one reset compensated"
stop

# ---- CPU hotplug ----
printf '[policy]\nmode = strict\n' > $CONF
start
if [ -w /sys/devices/system/cpu/cpu3/online ]; then
        echo 0 > /sys/devices/system/cpu/cpu3/online
        wait_for 10 sh -c "numastatctl --socket=$SOCK --json=short | grep -q '\"topology_changes\":[1-9]'"
        ok $? "cpu3 offline is noticed (uevent)"
        # The topology is re-read once the burst of uevents settled (100 ms).
        wait_for 10 sh -c "numastatctl --socket=$SOCK --json=short | grep -q '\"topology_reloads\":[1-9]'"
        ctl --json=short | grep -q '"id":1,"cpus":\[2\]'
        ok $? "node1 now has cpu 2 only"
        echo 1 > /sys/devices/system/cpu/cpu3/online
        wait_for 10 sh -c "numastatctl --socket=$SOCK --json=short | grep -q '\"id\":1,\"cpus\":\[2,3\]'"
        ok $? "cpu3 online again: node1 has cpus 2-3"
        is "$(cat $SYSCTL)" "$ON" "status and mode stay right"
else
        ok 1 "cpu3 cannot be taken offline (no /sys/devices/system/cpu/cpu3/online)"
fi

# ---- kill -9, then the crash restore puts counting back on ----
# numastatd --restore is what the unit runs after any stop (ExecStopPost);
# the daemon's own start would write strict anyway under this config.
ctl set-policy coarse >/dev/null
wait_for 10 sh -c "[ \"\$(cat $SYSCTL)\" != \"$ON\" ]"
kill -9 "$DPID"; wait "$DPID" 2>/dev/null
LEFT=$(cat $SYSCTL)
numastatd --restore >> /tmp/numastatd.log 2>&1
RC=$?
is "$LEFT $RC $(cat $SYSCTL)" "$LEFT 0 $ON" "after kill -9 left $LEFT, numastatd --restore puts counting back on"
ok $([ "$LEFT" != "$ON" ]; echo $?) "  (the kill had left counting off: $LEFT)"
start
is "$(cat $SYSCTL)" "$ON" "  and a restart keeps it on"

# ---- idle cost over 30 s ----
read_cost() {
        set -- $(cut -d' ' -f14,15 /proc/$DPID/stat)
        TICKS=$(($1 + $2))
        CSW=$(awk '/^voluntary_ctxt_switches/ {v=$2} /^nonvoluntary_ctxt_switches/ {n=$2} END {print v + n}' /proc/$DPID/status)
}
read_cost; T0=$TICKS; C0=$CSW
sleep 30
read_cost
diag "figure: idle cost over 30 s: $((TICKS - T0)) clock ticks of CPU (USER_HZ=100 -> $(( (TICKS - T0) * 10 )) ms), $((CSW - C0)) wakeups (context switches)"
ok $([ $((CSW - C0)) -lt 3000 ]; echo $?) "idle wakeups stay bounded (sanity: < 100/s)"
stop

done_testing
