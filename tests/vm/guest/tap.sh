# TAP helpers for guest scenarios (busybox sh). Results go to the second
# serial port when there is one, so kernel messages cannot split them.
OUT=/dev/ttyS1
[ -c "$OUT" ] || OUT=/dev/stdout
tap_n=0
tap_failed=0
ok() {  # ok STATUS DESCRIPTION
        tap_n=$((tap_n + 1))
        if [ "$1" -eq 0 ]; then
                echo "ok $tap_n - $2" >"$OUT"
        else
                echo "not ok $tap_n - $2" >"$OUT"
                tap_failed=$((tap_failed + 1))
        fi
        echo "[$tap_n] $2: $([ "$1" -eq 0 ] && echo ok || echo FAILED)"
}
is() {  # is GOT EXPECTED DESCRIPTION
        if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', expected '$2'" >"$OUT"; fi
}
skip() {  # skip DESCRIPTION REASON: a check not run, and why
        tap_n=$((tap_n + 1))
        echo "ok $tap_n - $1 # SKIP $2" >"$OUT"
        echo "[$tap_n] $1: skipped ($2)"
}
diag() { echo "# $*" >"$OUT"; echo "# $*"; }
done_testing() { echo "1..$tap_n" >"$OUT"; [ "$tap_failed" -eq 0 ]; }
# wait_for SECONDS COMMAND...: timed in hundredths from /proc/uptime, not
# in date's whole seconds (a second that ticks at once would halve "2").
uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
wait_for() {
        _end=$(($(uptime_cs) + $1 * 100)); shift
        until "$@"; do [ "$(uptime_cs)" -ge "$_end" ] && return 1; sleep 0.1; done
}
