#!/bin/bash
# scripts/test-count.sh, which scripts/test.sh's closing "N passed, N
# failed, N skipped" comes from, fed canned stage outputs: every check
# counted once, whichever stage prints it and however often. The outputs are
# as automake 1.16's make check and its tap-driver.sh print them (taken from
# a run with a failing test): a failing check's line, then its script's
# "exited with status 1"; the Debian 13 stage adds test-suite.log, which
# repeats both under a heading "ERROR: NAME" (NAME without .sh). Before,
# that one failing check counted five times.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRCDIR/scripts/test-count.sh"
W=$(mktemp -d /tmp/numastatd-count-XXXXXX)
trap 'rm -rf "$W"' EXIT
n=0 bad=0

# counts NAME EXPECTED DESCRIPTION: count's figures for $W/NAME, as
# "PASSED FAILED SKIPPED count_failed".
counts() {
        local got
        got=$(passed=0 failed=0 skipped=0 count_failed=x; count "$W/$1"; echo "$passed $failed $skipped $count_failed")
        n=$((n + 1))
        if [ "$got" = "$2" ]; then
                echo "ok $n - $3"
        else
                echo "not ok $n - $3"
                echo "#   got '$got', expected '$2' (passed failed skipped count_failed)"
                bad=$((bad + 1))
        fi
}

# A script with a failing check, a skipped one and a passing one, and a
# script whose checks all pass: make check's output, as in check.out
# (make check, the ASan stage) and distcheck.out.
cat > "$W/check.out" <<'EOF'
make  check-TESTS
PASS: tests/demo.sh 1 - first
FAIL: tests/demo.sh 2 - the simulated failure
SKIP: tests/demo.sh 3 # SKIP not here
ERROR: tests/demo.sh - exited with status 1
PASS: tests/unit/test-strutil 1 - one
PASS: tests/unit/test-strutil 2 - two
============================================================================
Testsuite summary for numastatd 0.1.0
============================================================================
# TOTAL: 6
# PASS:  3
# SKIP:  1
# XFAIL: 0
# FAIL:  1
# XPASS: 0
# ERROR: 1
============================================================================
See ./test-suite.log
============================================================================
EOF
# test-suite.log: the failing script's log, result lines and all.
cat > "$W/test-suite.log" <<'EOF'
=======================================
   numastatd 0.1.0: ./test-suite.log
=======================================

# TOTAL: 6
# PASS:  3
# SKIP:  1
# XFAIL: 0
# FAIL:  1
# XPASS: 0
# ERROR: 1

.. contents:: :depth: 2

ERROR: tests/demo
=================

ok 1 - first
PASS: tests/demo.sh 1 - first
not ok 2 - the simulated failure
FAIL: tests/demo.sh 2 - the simulated failure
ok 3 # SKIP not here
SKIP: tests/demo.sh 3 # SKIP not here
1..3
ERROR: tests/demo.sh - exited with status 1

EOF
counts check.out "3 1 1 1" "make check's output: a failing check is one failure, not two (its script's exit status)"
# scripts/test-trixie.sh prints make check's output, then test-suite.log.
cat "$W/check.out" "$W/test-suite.log" > "$W/trixie.out"
counts trixie.out "3 1 1 1" "make check's output and test-suite.log (the Debian 13 stage): still one, not five"
# What the old count made of it: grep -c of every result line.
n=$((n + 1))
old=$(grep -cE '^(FAIL|XPASS|ERROR): ' "$W/trixie.out")
if [ "$old" -eq 5 ]; then echo "ok $n - (the old grep -c counted it $old times)"; else echo "not ok $n - the old grep -c counted $old, not 5"; bad=$((bad + 1)); fi

# Two failing checks in one script are two.
sed 's/^PASS: tests\/demo.sh 1 - first$/FAIL: tests\/demo.sh 1 - first/' "$W/trixie.out" > "$W/two.out"
counts two.out "2 2 1 2" "two failing checks of one script are two failures"

# A unit test (no .sh: test-suite.log heads it with its name as is).
cat > "$W/unit.out" <<'EOF'
PASS: tests/unit/test-engine 1 - a scenario
FAIL: tests/unit/test-engine 2 - another
ERROR: tests/unit/test-engine - exited with status 1
ERROR: tests/unit/test-engine
=============================

ok 1 - a scenario
PASS: tests/unit/test-engine 1 - a scenario
not ok 2 - another
FAIL: tests/unit/test-engine 2 - another
1..2
ERROR: tests/unit/test-engine - exited with status 1
EOF
counts unit.out "1 1 0 1" "a unit test's failing check, printed and logged, is one failure"

# Scripts that stop before their checks: each is one failure, however
# many things its driver and the log say about it.
cat > "$W/stops.out" <<'EOF'
PASS: tests/integration/crash.sh 1 - before the crash
ERROR: tests/integration/crash.sh - missing test plan
ERROR: tests/integration/crash.sh - exited with status 2
ERROR: tests/integration/bail.sh - Bail out! no daemon
ERROR: tests/unit/test-gone - missing test plan
ERROR: tests/unit/test-gone - exited with status 127 (command not found?)
ERROR: tests/integration/crash
==============================

ok 1 - before the crash
PASS: tests/integration/crash.sh 1 - before the crash
ERROR: tests/integration/crash.sh - missing test plan
ERROR: tests/integration/crash.sh - exited with status 2

ERROR: tests/integration/bail
=============================

Bail out! no daemon
ERROR: tests/integration/bail.sh - Bail out! no daemon

ERROR: tests/unit/test-gone
===========================

ERROR: tests/unit/test-gone - missing test plan
ERROR: tests/unit/test-gone - exited with status 127 (command not found?)
EOF
counts stops.out "1 3 0 3" "three scripts that stop before their checks (no plan, Bail out!, no program): three failures"

# A script skipped whole ("1..0 # SKIP reason", or without a reason) is
# one skip; the log's heading is not another.
cat > "$W/skips.out" <<'EOF'
SKIP: tests/integration/fuse.sh - no FUSE here
SKIP: tests/integration/bare.sh
SKIP: tests/integration/fuse
============================

1..0 # SKIP no FUSE here
SKIP: tests/integration/fuse.sh - no FUSE here

SKIP: tests/integration/bare
============================

1..0
SKIP: tests/integration/bare.sh
EOF
counts skips.out "0 0 2 0" "two scripts skipped whole, printed and logged: two skips"

# Nothing counted (a build that failed before make check ran any test):
# count_failed 0, so that the stage counts itself as one failure.
cat > "$W/build-error.out" <<'EOF'
../daemon/main.c:12:1: error: expected ';' before '}' token
make[1]: *** [Makefile:1234: daemon/main.o] Error 1
EOF
counts build-error.out "0 0 0 0" "a build error: no check counted, count_failed 0 (the stage adds its one failure)"

echo "1..$n"
[ "$bad" -eq 0 ]
