#!/bin/sh
# Scenario "kernel-checks": does the test kernel (5.10 + the numa_stats_mode
# forward port, tests/vm/patches/5.10/) behave like the seed 003 v3 kernel
# that DESIGN.md describes? Only then can it be trusted to test the daemon.
#
# busybox sh, as root, on a freshly booted guest with nothing else running.
# TAP goes to /dev/ttyS1 when there is one (else stdout), the plan line last;
# details go to stdout.
#
# Order matters: nothing may read /proc/vmstat, /proc/zoneinfo or a node's
# numastat/vmstat before the boot-state check, which relies on it (counting
# off in auto until the first read). Every later "counting is off" check
# goes through coarse (counters zeroed) -> auto -> allocate -> first read.

SYSCTL=/proc/sys/vm/numa_stats_mode
NODES=/sys/devices/system/node
OUT=${VM_RESULTS:-/dev/ttyS1}
[ -c "$OUT" ] || OUT=/dev/stdout
ALLOC_MIB=20
GREW=$((ALLOC_MIB * 256 / 2))	# half the pages of one allocation
SMALL=1000			# "about 0": far below one allocation (5120 pages)

n=0
failed=0
tap() { echo "$*" >>"$OUT"; [ "$OUT" = /dev/stdout ] || echo "kernel-checks: $*"; }
check() {	# check DESCRIPTION COMMAND...
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then
		tap "ok $n - $d"
	else
		failed=$((failed + 1))
		tap "not ok $n - $d"
	fi
}
say() { echo "kernel-checks: $*"; }

mode() { cat $SYSCTL; }
setmode() { echo "$1" >$SYSCTL; }
# val FILE NAME: the value of NAME in a "name value" file
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# sum NAME: NAME summed over every node's numastat (reads them: a reader)
sum() { cat $NODES/node[0-9]*/numastat | awk -v k="$1" '$1 == k { s += $2 } END { print s + 0 }'; }
# zero_all NAMES...: every node's numastat shows 0 for each NAME
zero_all() {
	for f in $NODES/node[0-9]*/numastat; do
		for k in "$@"; do
			v=$(val "$f" "$k")
			[ "$v" = 0 ] || { say "$f: $k $v"; return 1; }
		done
	done
}
vmstat_zero() {	# vmstat_zero NAMES...: /proc/vmstat shows 0 for each NAME
	for k in "$@"; do
		v=$(val /proc/vmstat "$k")
		[ "$v" = 0 ] || { say "/proc/vmstat: $k $v"; return 1; }
	done
}
lt() { [ "$1" -lt "$2" ]; }
ge() { [ "$1" -ge "$2" ]; }
grew() { [ $(($2 - $1)) -ge "$GREW" ]; }
# klog TEXT: how many kernel log lines contain TEXT
klog() { dmesg | grep -c -F "$1"; }
warned() { dmesg -r | grep -F "$1" | grep -q '^<4>'; }

W=/tmp/kernel-checks.$$
mkdir -p $W/local $W/il
mount -t tmpfs -o size=64m tmpfs $W/local
mount -t tmpfs -o size=64m,mpol=interleave tmpfs $W/il
alloc() {	# alloc [DIR]: allocate and free $ALLOC_MIB MiB of tmpfs pages
	dd if=/dev/zero of="${1:-$W/local}/x" bs=1M count=$ALLOC_MIB 2>/dev/null
	rm -f "${1:-$W/local}/x"
}
cleanup() { umount $W/local $W/il 2>/dev/null; rmdir $W/local $W/il $W 2>/dev/null; }

say "kernel $(uname -r), $(ls -d $NODES/node[0-9]* | wc -l) nodes, $(nproc) cpus"

# the backend the daemon must detect
check "/proc/sys/vm/numa_stats_mode exists" [ -f $SYSCTL ]
check "/proc/sys/vm/numa_stat does not exist" [ ! -e /proc/sys/vm/numa_stat ]
if [ ! -f $SYSCTL ]; then
	cleanup
	tap "1..$n"
	exit 1
fi

# boot state: auto, counting off until the first read
m=$(mode)
say "boot mode '$m'"
check "default mode reads 'auto' (got '$m')" [ "$m" = auto ]
alloc
h=$(sum numa_hit)
say "first read since boot: numa_hit (all nodes) $h"
check "boot: counting off until the first read (numa_hit $h < $SMALL)" lt "$h" $SMALL

# capitalised words, read back in lowercase
setmode Strict
m=$(mode)
check "'Strict' is accepted and reads back 'strict' (got '$m')" [ "$m" = strict ]
h0=$(sum numa_hit)
alloc
h1=$(sum numa_hit)
check "strict counts under allocation (numa_hit $h0 -> $h1)" grew "$h0" "$h1"

# the strict transition is logged
check "kernel log: strict enables numa statistics" \
	[ "$(klog 'numa_stats_mode: strict, enable numa statistics')" -ge 1 ]

# rewriting the same mode is a no-op
setmode strict
h2=$(sum numa_hit)
check "strict again keeps counting without a reset (numa_hit $h1 -> $h2)" ge "$h2" "$h1"

# /proc/vmstat counts too (folded from per-cpu diffs about once a second)
v0=$(val /proc/vmstat numa_hit)
alloc
sleep 3
v1=$(val /proc/vmstat numa_hit)
check "strict: /proc/vmstat numa_hit grows ($v0 -> $v1)" grew "$v0" "$v1"

# coarse: counting off, all six counters zeroed, stays at 0
logs=$(klog 'numa_stats_mode: coarse, disable numa statistics, and clear numa counters')
setmode coarse
m=$(mode)
check "'coarse' reads back 'coarse' (got '$m')" [ "$m" = coarse ]
check "coarse zeroes every node's numastat (all six lines)" zero_all \
	numa_hit numa_miss numa_foreign interleave_hit local_node other_node
check "coarse zeroes the numa_* lines of /proc/vmstat" vmstat_zero \
	numa_hit numa_miss numa_foreign numa_interleave numa_local numa_other
alloc
alloc
sleep 2
check "coarse: every node's numa_hit/numa_miss/numa_foreign/local_node/other_node stay 0 under allocation and reads" \
	zero_all numa_hit numa_miss numa_foreign local_node other_node
check "coarse: /proc/vmstat numa_hit/numa_miss/numa_foreign/numa_local/numa_other stay 0" \
	vmstat_zero numa_hit numa_miss numa_foreign numa_local numa_other
check "kernel log: coarse disables and clears numa statistics" \
	[ "$(klog 'numa_stats_mode: coarse, disable numa statistics, and clear numa counters')" -eq $((logs + 1)) ]

# interleave_hit is not gated (as in v1-v3): it counts in coarse
i0=$(sum interleave_hit)
alloc $W/il
i1=$(sum interleave_hit)
h=$(sum numa_hit)
check "coarse: interleave_hit still counts (mpol=interleave tmpfs: $i0 -> $i1)" grew "$i0" "$i1"
check "coarse: numa_hit stays 0 under interleaved allocation (numa_hit $h)" [ "$h" = 0 ]

# an invalid word: the write succeeds, a warning is logged, nothing changes
logs=$(klog "numa_stats_mode: ignoring invalid value 'bogus'")
echo bogus >$SYSCTL
rc=$?
check "'echo bogus > numa_stats_mode' succeeds (exit $rc)" [ $rc -eq 0 ]
m=$(mode)
check "after 'bogus' the mode still reads 'coarse' (got '$m')" [ "$m" = coarse ]
check "kernel log: a warning names the invalid value" \
	[ "$(klog "numa_stats_mode: ignoring invalid value 'bogus'")" -eq $((logs + 1)) ]
check "the invalid-value line is logged at warning level" \
	warned "numa_stats_mode: ignoring invalid value 'bogus'"
alloc
check "after 'bogus' counting is still off (coarse)" zero_all numa_hit local_node
for w in STRICT strictly "" auto1; do
	echo "$w" >$SYSCTL || say "write '$w' failed"
done
m=$(mode)
check "'STRICT', 'strictly', '' and 'auto1' are ignored too (mode '$m')" [ "$m" = coarse ]

# coarse -> auto: counting stays off until the first read, then turns on
setmode Auto
m=$(mode)
check "'Auto' is accepted and reads back 'auto' (got '$m')" [ "$m" = auto ]
alloc
alloc
h0=$(sum numa_hit)
say "auto after coarse, first read: numa_hit $h0"
check "auto after coarse: nothing counted before the first read (numa_hit $h0 < $SMALL)" lt "$h0" $SMALL
alloc
h1=$(sum numa_hit)
check "auto: the first read turned counting on (numa_hit $h0 -> $h1)" grew "$h0" "$h1"
check "kernel log: auto enables numa statistics on read" \
	[ "$(klog 'numa_stats_mode: auto, enable numa statistics on read')" -ge 1 ]

# ... and stays on with nobody reading for a while
sleep 4
alloc
h2=$(sum numa_hit)
sleep 4
alloc
sleep 4
h3=$(sum numa_hit)
check "auto: counting stays on without reads (numa_hit $h1 -> $h2 -> $h3)" \
	sh -c "[ $((h2 - h1)) -ge $GREW ] && [ $((h3 - h2)) -ge $GREW ]"
m=$(mode)
check "auto: the mode still reads 'auto' (got '$m')" [ "$m" = auto ]

# each of the other three files is a reader that turns counting on
for f in /proc/vmstat /proc/zoneinfo $NODES/node1/vmstat; do
	[ -e "$f" ] || f=$NODES/node0/vmstat
	setmode Coarse
	setmode auto
	alloc
	cat "$f" >/dev/null
	alloc
	h=$(sum numa_hit)
	check "auto after coarse: a read of $f turns counting on (numa_hit $h)" ge "$h" $GREW
done
# coarse -> auto without a read, for the record: still off after a while
setmode coarse
setmode auto
sleep 3
alloc
h=$(sum numa_hit)
check "auto after coarse: no reader for 3 s, still nothing counted (numa_hit $h < $SMALL)" lt "$h" $SMALL

# strict -> auto: counting just continues, no reset
setmode strict
h0=$(sum numa_hit)
setmode auto
alloc
h1=$(sum numa_hit)
check "strict -> auto: counting continues without a reset (numa_hit $h0 -> $h1)" grew "$h0" "$h1"

# a write without a trailing newline works as well
printf strict >$SYSCTL
m=$(mode)
check "'strict' without a newline is accepted (got '$m')" [ "$m" = strict ]

cleanup
setmode auto
tap "1..$n"
say "$failed of $n failed"
[ "$failed" -eq 0 ]
