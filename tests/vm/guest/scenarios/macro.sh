#!/bin/sh
# The macro study (make bench-vm): one workload under each strategy, side by
# side in one boot, for one reader profile (vm_macro_profile, default a).
# For each strategy, for vm_macro_seconds (default 90; profile b at least
# 150):
#   CPU 0   alloc-load, allocating and freeing without pause, except for a
#           quiet stretch (stopped) from 50% to 70% of the phase; it writes
#           the pages of each second, the trace the oracle plans over
#   CPU 1   numastatd, when the strategy runs it (nothing else is pinned there)
#   CPU 2-3 the readers (alloc-load read, named as the profile says):
#     a  a monitored host: a collector reading /proc/vmstat every 15 s and a
#        sadc-like one-off reader every 60 s, both judged not to count
#        (ignore = rules; sadc is gone at once, named by its exit record)
#     b  a, and a person running numastat twice, two minutes apart
#     c  a, and a counted delta reader of node1/numastat every 10 s for the
#        middle third of the phase only
#     d  a, and a benchmark under numastatctl hold for the middle third,
#        reading node1/numastat at its start and its end (without a daemon,
#        the same benchmark unheld)
# A counted reader's read is served, by its own check, when numa_hit moved
# since its previous read; the daemon's figures for the same readers are
# set beside it. The instruction-counting plugin's counts of CPUs 0 and 1
# are taken with markers (alloc-load mark) at the start and end of each
# phase; the host (tests/vm/macro-figure.py) turns them and the lines
# "# macro ..." and "# trace ..." below into the table and the plot.
#
# Strategies: on the patched kernel first its own auto alone (armed once,
# nobody re-arms it; before the daemon starts, whose reads would trigger
# it); strict and coarse (counting always on, always off); numastatd with
# its defaults, but for the rate thresholds, scaled to a TCG guest's
# allocation rate (coarse_above 20000, strict_below 5000 pages/s: the
# defaults, 100000 and 20000, are above what this guest allocates); on the
# patched kernel also numastatd with off_mode = auto.
#
# The daemon is measured warm, as on a host where it has run for days: it
# starts before the strict phase and sets strict and coarse itself
# (numastatctl set-policy, off CPU 1), so that its start-up linger (the
# start counts as a read) is over before its own phases; the fixed
# phases' counted readers are named x... and ignored by rule, so they do
# not linger into them. Before numastatd with off_mode = auto, the script
# waits out linger after the previous phase's counted reads and hold, as
# if those readers had gone. vm_macro_linger (default 5min, the shipped
# default) is the daemon's linger; the short version in make check-vm
# uses less, to fit.
. /guest/tap.sh
# Everything this script starts stays on CPUs 2-3 unless placed on purpose:
# a fork on CPU 0 would bill its allocations to the workload's pages, one
# on CPU 1 to the daemon.
taskset -p -c 2,3 $$ > /dev/null
D=${vm_macro_seconds:-150}
PROFILE=${vm_macro_profile:-a}
[ "$PROFILE" = b ] && [ "$D" -lt 150 ] && D=150
LINGER=${vm_macro_linger:-5min}
case $LINGER in *min) LINGER_S=$((${LINGER%min} * 60)) ;; *s) LINGER_S=${LINGER%s} ;; *) LINGER_S=$LINGER ;; esac
# The counted readers read node1, where the readers' own processes (CPUs 2-3)
# allocate every second: its numa_hit moves whenever counting is on, even
# while the workload (node0) is quiet.
NODE=/sys/devices/system/node/node1/numastat
SOCK=/run/numastatd/io.numastatd
if [ -e /proc/sys/vm/numa_stats_mode ]; then
        SYSCTL=/proc/sys/vm/numa_stats_mode ON=strict OFF=coarse PATCHED=1
        STRATEGIES="kernel-auto strict coarse numastatd numastatd-auto"
else
        SYSCTL=/proc/sys/vm/numa_stat ON=1 OFF=0 PATCHED=
        STRATEGIES="strict coarse numastatd"
fi
KIND="$([ -n "$PATCHED" ] && echo patched || echo mainline) $(uname -r)"

mark() { taskset -c 0 alloc-load mark; taskset -c 1 alloc-load mark; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 + 0.5 }' /proc/uptime; }

# The daemon's thresholds, which the oracle shares: the shipped defaults
# (interval 1s, sustain 10s, min_dwell 30s) but the rates.
COARSE_ABOVE=20000 STRICT_BELOW=5000 SUSTAIN=10 DWELL=30
daemon_conf() {  # daemon_conf OFF_MODE
        cat > /tmp/macro.conf <<EOF
[policy]
mode = auto
off_mode = $1
[pressure]
coarse_above = $COARSE_ABOVE
strict_below = $STRICT_BELOW
[readers]
linger = $LINGER
ignore = comm=collector
ignore = comm=sadc
ignore = comm=xnumastat
ignore = comm=xdelta
ignore = comm=xbench
EOF
}
# The daemon's figures so far, one per line: switches, counter resets,
# arms, the benefit ledger's pages and pages allocated with counting off,
# CPU ticks, and served unserved first_reads_counting_off summed over the
# counted readers' entries (comm numastat, delta, bench); a phase's are
# the difference.
daemon_figures() {
        S=$(numastatctl --socket=$SOCK --json=short status)
        for k in transitions_total resets_compensated arms pages_total pages_counting_off; do  # 0 where absent
                v=$(echo "$S" | sed -n "s/.*\"$k\":\([0-9]*\).*/\1/p")
                echo "${v:-0}"
        done
        awk '{ print $14 + $15 }' /proc/$DPID/stat
        numastatctl --socket=$SOCK --json=short readers | tr '{' '\n' |
                grep -E '"comm":"(numastat|delta|bench)"' |
                sed -n 's/.*"served":\([0-9]*\),"unserved":\([0-9]*\),"first_reads_counting_off":\([0-9]*\).*/\1 \2 \3/p' |
                awk '{ s += $1; u += $2; f += $3 } END { print s + 0; print u + 0; print f + 0 }'
}
# The daemon at CPUS, at policy P (strict, coarse, or auto: the file's).
daemon_at() {
        taskset -a -p -c "$1" "$DPID" > /dev/null
        if [ "$2" = auto ]; then numastatctl --socket=$SOCK reload
        else numastatctl --socket=$SOCK set-policy "$2"; fi || diag "numastatctl could not set $2"
}

# counted NAME ID FILE: a counted read by NAME (the trace's reader ID); its
# own verdict from numa_hit against its previous read.
counted() {
        at=$(($(uptime_ms) - u0))
        v=$(alloc-load read "$1" "$3" 500)
        eval "prev=\${prev_$1:-}"
        if [ -z "$prev" ]; then g_first=$((g_first + 1))
        elif [ "$v" -gt "$prev" ]; then g_served=$((g_served + 1))
        else g_unserved=$((g_unserved + 1)); fi
        eval "prev_$1=$v"
        read_times="$read_times${read_times:+,}$at:$2"
}

DPID= DSTART= last_need=0
# warm_until SECONDS: waits until SECONDS of uptime (the daemon's linger
# after its start, or after the last counted read) have passed.
warm_until() {
        while [ "$(uptime_ms)" -lt $(($1 * 1000)) ]; do sleep 1; done
}
for s in $STRATEGIES; do
        X=x
        case $s in
        kernel-auto)
                echo coarse > $SYSCTL; echo auto > $SYSCTL ;;       # armed; nobody re-arms it
        strict|coarse)
                if [ -z "$DPID" ]; then
                        echo $ON > $SYSCTL
                        daemon_conf coarse
                        taskset -c 2,3 numastatd --config=/tmp/macro.conf > /tmp/macro-numastatd.log 2>&1 &
                        DPID=$!
                        DSTART=$(($(uptime_ms) / 1000))
                        wait_for 10 numastatctl --socket=$SOCK status > /dev/null 2>&1
                fi
                daemon_at 2,3 $s ;;
        numastatd*)
                X=
                case $s in
                numastatd-auto) daemon_conf auto ;;
                *) daemon_conf coarse ;;
                esac
                # A fresh daemon: its own trace, over which it reports the
                # best possible, starts here (this phase and its warm-up,
                # where nothing allocates); warm: the start's linger, and
                # the last phase's readers', over before the phase.
                kill "$DPID"
                wait "$DPID" 2>/dev/null
                taskset -c 2,3 numastatd --config=/tmp/macro.conf > /tmp/macro-numastatd.log 2>&1 &
                DPID=$!
                DSTART=$(($(uptime_ms) / 1000))
                wait_for 10 numastatctl --socket=$SOCK status > /dev/null 2>&1
                warm_until $((DSTART + LINGER_S + 2))
                warm_until $((last_need / 1000 + LINGER_S + 2))
                daemon_at 1 auto ;;
        esac
        sleep 2
        f0=
        [ -n "$X" ] || f0=$(daemon_figures | tr '\n' ' ')
        mark
        u0=$(uptime_ms)
        taskset -c 0 alloc-load load "$D" -1 /tmp/rates > /tmp/pages &
        LOAD=$!
        t=0 g_first=0 g_served=0 g_unserved=0 read_times= BENCH=
        unset prev_numastat prev_delta prev_bench prev_xnumastat prev_xdelta prev_xbench
        qs=$((D / 2)) qe=$((D * 7 / 10)) third=$((D / 3))
        while [ $t -lt "$D" ]; do
                [ $((t % 15)) -eq 7 ] && { alloc-load read collector /proc/vmstat 500 > /dev/null & }
                [ $((t % 60)) -eq 30 ] && alloc-load read sadc /proc/vmstat 0 > /dev/null
                case $PROFILE in
                b) { [ $t -eq 20 ] || [ $t -eq 140 ]; } && counted ${X}numastat 1 $NODE ;;
                c) [ $t -ge $third ] && [ $t -lt $((2 * third)) ] && [ $((t % 10)) -eq 0 ] && counted ${X}delta 2 $NODE ;;
                d) if [ $t -eq $third ]; then
                        # The benchmark: a read at its start and at its end,
                        # each with its time for the trace.
                        cat > /tmp/bench.sh <<EOF
a=\$(awk '{ printf "%d", \$1 * 1000 + 0.5 }' /proc/uptime)
alloc-load read ${X}bench $NODE 200 > /tmp/bench
sleep $third
b=\$(awk '{ printf "%d", \$1 * 1000 + 0.5 }' /proc/uptime)
alloc-load read ${X}bench $NODE 200 >> /tmp/bench
echo "\$((a - $u0)):3,\$((b - $u0)):3" > /tmp/bench-times
EOF
                        if [ -z "$X" ]; then
                                numastatctl --socket=$SOCK hold --reason=benchmark -- sh /tmp/bench.sh &
                        else
                                sh /tmp/bench.sh &
                        fi
                        BENCH=$!
                   fi ;;
                esac
                [ $t -eq $qs ] && kill -STOP $LOAD
                [ $t -eq $qe ] && kill -CONT $LOAD
                sleep 1
                t=$((t + 1))
        done
        wait $LOAD
        mark
        if [ -n "$BENCH" ]; then
                wait $BENCH
                set -- $(cat /tmp/bench)
                g_first=$((g_first + 1))
                if [ "${2:-0}" -gt "${1:-0}" ]; then g_served=$((g_served + 1)); else g_unserved=$((g_unserved + 1)); fi
                read_times=$(cat /tmp/bench-times)
        fi
        # The last counted read (the benchmark's last is its hold's end), for
        # the next phase's warm-up.
        if [ -z "$X" ] && [ -n "$read_times" ]; then
                last=${read_times##*,}
                last_need=$((u0 + ${last%%:*}))
        fi
        pages=$(sed -n 's/^pages=//p' /tmp/pages)
        trans=0 resets=0 arms=0 cpu=0 d_served=- d_unserved=- d_first=- l_pages=0 l_off=0 b_window=
        if [ -z "$X" ]; then
                # This phase's figures: the difference from its start's.
                set -- $(printf '%s\n%s\n' "$f0" "$(daemon_figures | tr '\n' ' ')" |
                        awk 'NR == 1 { split($0, a) } NR == 2 { for (i = 1; i <= NF; i++) printf "%d ", $i - a[i] }')
                trans=$1 resets=$2 arms=$3 l_pages=$4 l_off=$5 cpu=$6 d_served=$7 d_unserved=$8 d_first=$9
                # The daemon's own figure: the best possible over its own
                # trace (since its start: the warm-up and this phase), once
                # a plan covers the phase's end.
                end_s=$(($(uptime_ms) / 1000))
                best() {
                        numastatctl --socket=$SOCK --json=short status | sed -n \
                                's/.*"best_possible":{"window_seconds":\([0-9]*\),"pages_total":\([0-9]*\),"pages_counting_off_best":\([0-9]*\),"pages_counting_off":\([0-9]*\).*/\1 \2 \3 \4/p'
                }
                best_covers() { set -- $(best); [ "${1:-0}" -ge $((end_s - DSTART - 2)) ]; }
                wait_for 240 best_covers || diag "the daemon's best possible does not cover the phase yet: $(best)"
                set -- $(best) 0 0 0 0
                b_window=$1 b_total=$2 b_best=$3 b_own=$4
                # Who read, and how the daemon judged them, for the record.
                numastatctl --socket=$SOCK readers | sed "s/^/# readers $s: /" > "$OUT"
                numastatctl --socket=$SOCK history | tail -n 12 | sed "s/^/# history $s: /" > "$OUT"
        fi
        rates=$(tr '\n' ',' < /tmp/rates | sed 's/,$//')
        echo "# macro strategy=$s profile=$PROFILE kind=$KIND seconds=$D pages=${pages:-0} counted_reads=$((g_first + g_served + g_unserved)) guest_first=$g_first guest_served=$g_served guest_unserved=$g_unserved transitions=${trans:-0} resets=${resets:-0} arms=${arms:-0} daemon_ticks=$cpu daemon_served=$d_served daemon_unserved=$d_unserved daemon_first_off=$d_first ledger_pages=$l_pages ledger_pages_off=$l_off${b_window:+ best_window=$b_window best_from=$((u0 / 1000 - DSTART)) best_pages=$b_total best_pages_off=$b_best best_own_off=$b_own}" > "$OUT"
        echo "# trace strategy=$s interval=1000000 limits=$COARSE_ABOVE,$STRICT_BELOW,${SUSTAIN}000000,${DWELL}000000 rates=$rates reads=$read_times" > "$OUT"
        ok $([ "${pages:-0}" -gt 0 ] && [ "$(wc -l < /tmp/rates)" -ge "$D" ]; echo $?) "$s: the workload allocated ${pages:-0} pages, traced over $(wc -l < /tmp/rates) s"
        # Under a hold, the benchmark's counters are counted from its start to its end.
        [ "$PROFILE" = d ] && [ -z "$X" ] &&
                is "$g_served $g_unserved" "1 0" "$s: the benchmark under numastatctl hold saw its counters move"
done
if [ -n "$DPID" ]; then
        kill $DPID
        wait $DPID 2>/dev/null
fi
echo $ON > $SYSCTL
is "$(cat $SYSCTL)" $ON "counting on at the end"
done_testing
