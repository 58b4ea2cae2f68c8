# shellcheck shell=bash disable=SC2034
# Counting checks in the stages' outputs, for scripts/test.sh: sourced, not
# run (tests/test-count.sh feeds it canned outputs). Each function adds to
# passed, failed and skipped, and sets the stage's own figure (count_failed,
# tap_failed) so that the stage can tell "a check failed" from "stopped
# before its checks" and count the latter once.

# count FILE: adds automake's per-check result lines (make check's
# tap-driver.sh). Each check is counted once, however often it is printed:
# the Debian 13 stage prints make check's output and then test-suite.log,
# which repeats each failing test's result lines and heads its log with
# "ERROR: NAME" (its name without .sh), so one failing check used to count
# five times. A script's own verdicts ("- exited with status 1", "- missing
# test plan", "- Bail out!", the log's heading) are one failure only if none
# of its checks failed: a script that fails a check exits non-zero too,
# while a script that stops before its checks must still fail. A script
# skipped whole ("1..0 # SKIP", no check of its own) is one skip. Sets
# count_failed to the failures it added.
count() {
        local c
        c=$(awk '
        function bad(r) { return r == "FAIL" || r == "XPASS" || r == "ERROR" }
        /^(PASS|XFAIL|FAIL|XPASS|ERROR|SKIP): / {
                r = substr($1, 1, length($1) - 1)
                name = $2
                sub(/\.sh$/, "", name)  # test-suite.log heads a log with the name without its extension
                if ($3 ~ /^[0-9]+$/) {
                        k = name SUBSEP $3
                        if (k in seen)
                                next
                        seen[k] = r
                        checks[name] = 1
                        if (bad(r)) { failed++; check_failed[name] = 1 }
                        else if (r == "SKIP") skipped++
                        else passed++
                } else if (bad(r))
                        script_failed[name] = 1
                else if (r == "SKIP")
                        script_skipped[name] = 1
        }
        END {
                for (name in script_failed)
                        if (!(name in check_failed)) failed++
                for (name in script_skipped)
                        if (!(name in checks) && !(name in script_failed)) skipped++
                printf "%d %d %d\n", passed, failed, skipped
        }' "$1")
        set -- $c
        passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
        count_failed=$2
}

# count_tap FILE: adds a TAP stream's checks ("ok ... # SKIP" is a skip);
# sets tap_failed.
count_tap() {
        local p s
        p=$(grep -cE '^ok [0-9]+' "$1")
        s=$(grep -cE '^ok [0-9]+.*# SKIP' "$1")
        tap_failed=$(grep -cE '^not ok [0-9]+' "$1")
        passed=$((passed + p - s)) skipped=$((skipped + s)) failed=$((failed + tap_failed))
}
