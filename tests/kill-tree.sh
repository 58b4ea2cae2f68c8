# Sourced by tests/integration/lib.sh and tests/bench/flood.sh: ending a
# process tree this script started, by pid.

# kill_tree PID: kills PID, which this script started, and every process
# under it, found by parent pid from PID (a program started through a
# function, setpriv and unshare, and what it forked): never another's
# process by its name. Each is stopped first, from the top, so that none
# forks one the walk misses (a pid is kept only while its parent is still
# the one walked from), then all are killed, the deepest first.
kill_tree() {
        local pids=("$1") i=0 c st ppid
        kill -STOP "$1" 2>/dev/null || return 0
        while [ "$i" -lt "${#pids[@]}" ]; do
                for c in $(pgrep -P "${pids[$i]}"); do
                        kill -STOP "$c" 2>/dev/null || continue
                        st=$(cat "/proc/$c/stat" 2>/dev/null) ppid=
                        read -r _ ppid _ <<<"${st##*) }"        # after "(comm) ": state, ppid
                        if [ "$ppid" = "${pids[$i]}" ]; then
                                pids+=("$c")
                        else
                                kill -CONT "$c" 2>/dev/null     # no longer the child listed: not ours
                        fi
                done
                i=$((i + 1))
        done
        for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -KILL "${pids[$i]}" 2>/dev/null; done
}
