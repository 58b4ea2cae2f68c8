# Sourced by the --root benches (scale.sh, idle.sh): root or a skip, a work
# directory on tmpfs, the daemon they start (DPID) killed at exit, and TAP.
# bench_init NAME: skips unless root; sets WORK.
bench_init() {
        [ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP bench-$1 needs root (fanotify)"; exit 0; }
        WORK=$(mktemp -d "/dev/shm/numastatd-$1-XXXXXX")
        DPID=
        trap '[ -n "$DPID" ] && kill $DPID 2>/dev/null; rm -rf "$WORK"' EXIT
}
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
