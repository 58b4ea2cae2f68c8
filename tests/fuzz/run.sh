#!/bin/bash
# make fuzz: runs each libFuzzer harness for FUZZ_SECONDS (default 60) on a
# working corpus in the build tree, seeded from tests/fuzz/corpus/NAME and
# the files NAME.seeds lists. Prints one TAP line per harness with the
# executions it ran; a finding (crash, sanitizer report, leak, timeout) is a
# failure, its input left in fuzz-artifacts/ to add to the corpus.
#
#   tests/fuzz/run.sh BUILDDIR SRCDIR [NAME...]
set -uo pipefail
BUILDDIR=$1 SRCDIR=$2
shift 2
SECONDS_EACH=${FUZZ_SECONDS:-60}
NAMES=("$@")
[ ${#NAMES[@]} -gt 0 ] || NAMES=(vmstat numastat zoneinfo cpulist meminfo config known uevent taskstats restore carry varlink)
n=0 failed=0
mkdir -p "$BUILDDIR/fuzz-artifacts"
for name in "${NAMES[@]}"; do
        bin="$BUILDDIR/tests/fuzz/fuzz-$name"
        work="$BUILDDIR/fuzz-corpus/$name"
        n=$((n + 1))
        if [ ! -x "$bin" ]; then
                echo "not ok $n - fuzz-$name is not built (./configure CC=clang --enable-fuzzing)"
                failed=$((failed + 1))
                continue
        fi
        mkdir -p "$work"
        cp "$SRCDIR/tests/fuzz/corpus/$name/"* "$work/" 2>/dev/null
        if [ -f "$SRCDIR/tests/fuzz/corpus/$name.seeds" ]; then
                while read -r f; do cp "$SRCDIR/$f" "$work/" 2>/dev/null; done < "$SRCDIR/tests/fuzz/corpus/$name.seeds"
        fi
        log="$BUILDDIR/fuzz-$name.log"
        # An outer bound too: an out-of-memory report left a run waiting on
        # the leak checker for minutes once.
        timeout --kill-after=10 $((SECONDS_EACH + 120)) \
                "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
                -artifact_prefix="$BUILDDIR/fuzz-artifacts/$name-" "$work" > "$log" 2>&1
        rc=$?
        # libFuzzer may report an out-of-memory input and still exit 0.
        grep -q "ERROR: libFuzzer" "$log" && [ $rc -eq 0 ] && rc=1
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        if [ $rc -eq 0 ]; then
                echo "ok $n - fuzz-$name: ${runs:-?} executions in ${SECONDS_EACH} s, no finding"
        else
                echo "not ok $n - fuzz-$name: a finding after ${runs:-?} executions (rc $rc); see $log"
                grep -E "ERROR|SUMMARY|runtime error" "$log" | head -5 | sed 's/^/#   /'
                failed=$((failed + 1))
        fi
done
echo "1..$n"
[ $failed -eq 0 ]
