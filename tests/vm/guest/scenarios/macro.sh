#!/bin/sh
# The macro study (make bench-vm): one workload under each strategy, side by
# side in one boot. For each strategy, for vm_macro_seconds (default 45):
#   CPU 0   alloc-load, allocating and freeing without pause, except for a
#           quiet stretch (stopped) from 50% to 70% of the phase
#   CPU 1   numastatd, when the strategy runs it (nothing else is pinned there)
#   CPU 2-3 a counted reader (awk of node0/numastat) every vm_macro_period
#           seconds (default 10), an ignored one (alloc-load sample, ignore =
#           comm=alloc-load) that reads /proc/vmstat every second and records
#           the pages allocated in each: the trace the oracle plans over
# The instruction-counting plugin's counts of CPUs 0 and 1 are taken with
# markers (alloc-load mark) at the start and end of each phase; the host
# (tests/vm/macro-figure.py) turns them and the lines "# macro ..." below
# into the table and the plot.
#
# Strategies: strict and coarse (counting always on, always off); on the
# patched kernel also its own auto alone (armed once, nobody re-arms it) and
# numastatd auto with off_mode coarse and auto; on mainline numastatd auto;
# each with linger 5s (below the counted reader's period), and numastatd
# with linger 15s (above it).
. /guest/tap.sh
# Everything this script starts stays on CPUs 2-3 unless placed on purpose:
# a fork on CPU 0 would bill its allocations to the workload's pages, one
# on CPU 1 to the daemon.
taskset -p -c 2,3 $$ > /dev/null
D=${vm_macro_seconds:-45}
PERIOD=${vm_macro_period:-10}
NODE0=/sys/devices/system/node/node0/numastat
SOCK=/run/numastatd/io.numastatd
if [ -e /proc/sys/vm/numa_stats_mode ]; then
        SYSCTL=/proc/sys/vm/numa_stats_mode ON=strict OFF=coarse PATCHED=1
        STRATEGIES="strict coarse kernel-auto numastatd-coarse numastatd-auto numastatd-linger"
else
        SYSCTL=/proc/sys/vm/numa_stat ON=1 OFF=0 PATCHED=
        STRATEGIES="strict coarse numastatd numastatd-linger"
fi
KIND="$([ -n "$PATCHED" ] && echo patched || echo mainline) $(uname -r)"

hit() { awk '$1 == "numa_hit" { print $2 }' $NODE0; }
mark() { taskset -c 0 alloc-load mark; taskset -c 1 alloc-load mark; }
uptime_cs() { awk '{ printf "%d\n", $1 * 100 + 0.5 }' /proc/uptime; }

# The daemon's thresholds, which the oracle shares.
COARSE_ABOVE=20000 STRICT_BELOW=5000 SUSTAIN=2 DWELL=2
daemon_conf() {  # daemon_conf OFF_MODE LINGER
        cat > /tmp/macro.conf <<EOF
[policy]
mode = auto
min_dwell = ${DWELL}s
off_mode = $1
[pressure]
interval = 500ms
coarse_above = $COARSE_ABOVE
strict_below = $STRICT_BELOW
sustain = ${SUSTAIN}s
armed_interval = 5s
[readers]
linger = $2
ignore = comm=alloc-load
EOF
}

for s in $STRATEGIES; do
        echo $ON > $SYSCTL
        DPID=
        case $s in
        strict) ;;
        coarse) echo $OFF > $SYSCTL ;;
        kernel-auto) echo coarse > $SYSCTL; echo auto > $SYSCTL ;;      # armed; nobody re-arms it
        numastatd*)
                # linger 5s, shorter than the counted reader's period (the
                # saving), or 15s, longer (the service)
                case $s in
                numastatd-auto) daemon_conf auto 5s ;;
                numastatd-linger) daemon_conf coarse 15s ;;
                *) daemon_conf coarse 5s ;;
                esac
                taskset -c 1 numastatd --config=/tmp/macro.conf > /tmp/macro-$s.log 2>&1 &
                DPID=$!
                wait_for 10 numastatctl --socket=$SOCK status > /dev/null 2>&1
                ;;
        esac
        sleep 2
        mark
        taskset -c 0 alloc-load load "$D" > /tmp/pages &
        LOAD=$!
        # Readers, on CPUs 2-3. The ignored one stays alive from read to
        # read, so the daemon names it; its lines are the pages allocated
        # each second since its start, u0 (centiseconds of uptime).
        u0=$(uptime_cs)
        taskset -c 2 alloc-load sample "$D" > /tmp/rates &
        IGN=$!
        : > /tmp/reads
        t=0 prev= moved=0 frozen=0 reset=0 reads=0
        qs=$((D / 2)) qe=$((D * 7 / 10))
        read_times=
        while [ $t -lt "$D" ]; do
                if [ $((t % PERIOD)) -eq $((PERIOD / 2)) ]; then
                        # When it read, in ms since u0, for the oracle's trace.
                        read_times="$read_times${read_times:+,}$((($(uptime_cs) - u0) * 10))"
                        v=$(taskset -c 3 awk '$1 == "numa_hit" { print $2 }' $NODE0)
                        reads=$((reads + 1))
                        if [ -n "$prev" ]; then
                                if [ "$v" -gt "$prev" ]; then moved=$((moved + 1))
                                elif [ "$v" -eq "$prev" ]; then frozen=$((frozen + 1))
                                else reset=$((reset + 1)); fi
                        fi
                        echo "$t $v" >> /tmp/reads
                        prev=$v
                fi
                [ $t -eq $qs ] && kill -STOP $LOAD
                [ $t -eq $qe ] && kill -CONT $LOAD
                sleep 1
                t=$((t + 1))
        done
        wait $LOAD
        mark
        wait $IGN 2>/dev/null
        rates=$(tr '\n' ',' < /tmp/rates | sed 's/,$//')
        pages=$(sed -n 's/^pages=//p' /tmp/pages)
        trans=0 resets=0 arms=0 cpu=0 served=- unserved=- first_off=-
        if [ -n "$DPID" ]; then
                S=$(numastatctl --socket=$SOCK --json=short status)
                # The daemon's own service figures, to set beside the readers' check.
                # The daemon's own service figures for the counted reader.
                set -- $(numastatctl --socket=$SOCK --json=short readers | tr '{' '\n' | grep "\"path\":\"$NODE0\"" |
                         sed -n 's/.*"served":\([0-9]*\),"unserved":\([0-9]*\),"first_reads_counting_off":\([0-9]*\).*/\1 \2 \3/p')
                served=${1:-} unserved=${2:-} first_off=${3:-}
                trans=$(echo "$S" | sed -n 's/.*"transitions_total":\([0-9]*\).*/\1/p')
                resets=$(echo "$S" | sed -n 's/.*"resets_compensated":\([0-9]*\).*/\1/p')
                arms=$(echo "$S" | sed -n 's/.*"arms":\([0-9]*\).*/\1/p')
                cpu=$(awk '{ print $14 + $15 }' /proc/$DPID/stat)
                # Who read, and how the daemon judged them, for the record.
                numastatctl --socket=$SOCK readers | sed "s/^/# readers $s: /" > "$OUT"
                kill $DPID
                wait $DPID 2>/dev/null
        fi
        echo "# macro strategy=$s kind=$KIND seconds=$D period=$PERIOD pages=${pages:-0} pgalloc=$(awk '{ s += $1 } END { print s + 0 }' /tmp/rates) counted_reads=$reads moved=$moved frozen=$frozen reset=$reset transitions=${trans:-0} resets=${resets:-0} arms=${arms:-0} daemon_ticks=$cpu daemon_served=${served:--} daemon_unserved=${unserved:--} daemon_first_off=${first_off:--}" > "$OUT"
        echo "# trace strategy=$s interval=1000000 limits=$COARSE_ABOVE,$STRICT_BELOW,${SUSTAIN}000000,${DWELL}000000 rates=$rates reads_ms=$read_times" > "$OUT"
        ok $([ "${pages:-0}" -gt 0 ] && [ "$reads" -ge 2 ]; echo $?) "$s: the workload allocated ${pages:-0} pages, the counted reader read $reads times"
done
echo $ON > $SYSCTL
is "$(cat $SYSCTL)" $ON "counting on at the end"
done_testing
