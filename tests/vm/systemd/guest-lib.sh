# What the systemd VM's guest scripts share (sourced, bash): the results
# port, the TAP helpers, the one way out (plan, "VM-DONE rc=N", poweroff)
# and a few probes. Set UNIT before sourcing (its journal is shown when a
# check failed); set FINISH_HOOK to a command that stops what the script
# started.

# Results port: hold it open in raw mode (no \n -> \r\n) for every writer.
if [ -c /dev/ttyS1 ]; then
        exec 3>/dev/ttyS1
        stty -F /dev/ttyS1 raw -echo 2>/dev/null || true
fi
# ok / is / diag / done_testing / wait_for, writing TAP to /dev/ttyS1
# shellcheck source=../guest/tap.sh
. "$HERE/tap.sh"

finished=
FINISH_HOOK=${FINISH_HOOK:-}
finish() {  # the plan, the marker, and off
        [ -n "$finished" ] && return
        finished=1
        [ -z "$FINISH_HOOK" ] || eval "$FINISH_HOOK"
        if [ "${tap_failed:-0}" -gt 0 ]; then
                diag "journalctl -u $UNIT (last 25 lines):"
                journalctl -u "$UNIT" -n 25 --no-pager -o short-monotonic 2>&1 | sed 's/^/#   /' >"$OUT"
        fi
        done_testing
        echo "VM-DONE rc=$tap_failed" >"$OUT"
        exec 3>&-
        sync
        systemctl poweroff --no-block
}
trap '[ -n "$finished" ] || { diag "$(basename "$0") stopped early"; tap_failed=$((tap_failed + 1)); finish; }' EXIT

numa_stat() { local v; read -r v </proc/sys/vm/numa_stat && echo "$v"; }
numa_stat_is() { [ "$(numa_stat)" = "$1" ]; }
ctl() { timeout 30 numastatctl "$@"; }
is_active() { [ "$(systemctl is-active "$1")" = active ]; }
