#!/bin/sh
# Rounds for the instruction-counting plugin (tests/vm/insn-count.c): on CPU
# 0 of an otherwise idle guest, alloc-load faults in and frees
# vm_insn_pages pages per phase, counting on and off alternately over
# vm_insn_rounds paired rounds, each phase between two markers. The figures
# are computed on the host from the plugin's log (tests/vm/insn-figure.py);
# here only that the rounds ran.
. /guest/tap.sh
if [ -e /proc/sys/vm/numa_stats_mode ]; then
        SYSCTL=/proc/sys/vm/numa_stats_mode ON=strict OFF=coarse
else
        SYSCTL=/proc/sys/vm/numa_stat ON=1 OFF=0
fi
PAGES=${vm_insn_pages:-4000} ROUNDS=${vm_insn_rounds:-3}
out=$(alloc-load insn "$PAGES" "$ROUNDS" 0 $SYSCTL $ON $OFF)
ok $? "alloc-load insn ran $ROUNDS paired rounds of $PAGES pages, $SYSCTL $ON/$OFF ($out)"
is "$(cat $SYSCTL)" "$ON" "counting is on again afterwards"
diag "kernel: $(uname -r)"
done_testing
