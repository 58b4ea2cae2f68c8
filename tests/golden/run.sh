#!/bin/bash
# Golden files for what people read: every human output of numastatctl
# (status, readers, history, counters, metrics, known-readers, set-policy,
# hold) from a fake daemon that always gives the same replies
# (tests/golden/replies/, captured once from the real daemon on a fake tree
# and fixed: pids, times and paths), the real daemon's own metrics (their
# words, values as N), both programs' --help, and the main error messages
# of both, each compared byte for byte (stdout, stderr, exit
# status) with tests/golden/expected/NAME, as kmod's testsuite does. A
# wording change is then a diff to review, not an accident:
#   GOLDEN_UPDATE=1 make check TESTS=tests/golden/run.sh
# rewrites the expected files from what the programs print now.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
G=$SRCDIR/tests/golden
work=$(mktemp -d /tmp/numastatd-golden-XXXXXX)
FAKE_PID=
DAEMON_PID=
cleanup() {
        [ -z "$FAKE_PID" ] || kill "$FAKE_PID" 2>/dev/null
        [ -z "$DAEMON_PID" ] || { kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; }
        rm -rf "$work"
}
trap cleanup EXIT
# Times print in UTC, messages in plain C, whatever this machine's locale.
export TZ=UTC LC_ALL=C.UTF-8
SOCK=$work/io.numastatd
python3 "$G/fake-daemon.py" "$SOCK" "$G/replies" &
FAKE_PID=$!
for _ in $(seq 1 200); do [ -e "$SOCK.ready" ] && break; sleep 0.05; done

n=0 failed=0
# golden NAME DIR COMMAND...: runs COMMAND in DIR; its stdout, stderr and
# exit status must be expected/NAME's.
golden() {
        local name=$1 dir=$2 got
        shift 2
        got=$work/$name
        (cd "$dir" && "$@") >"$got.out" 2>"$got.err"
        local rc=$?
        { cat "$got.out"; echo "--- stderr"; cat "$got.err"; echo "--- exit $rc"; } >"$got"
        n=$((n + 1))
        if [ -n "${GOLDEN_UPDATE:-}" ]; then
                cp "$got" "$G/expected/$name"
                echo "ok $n - $name (rewritten)"
        elif cmp -s "$got" "$G/expected/$name"; then
                echo "ok $n - $name"
        else
                echo "not ok $n - $name: differs from tests/golden/expected/$name"
                diff -u "$G/expected/$name" "$got" 2>&1 | sed 's/^/# /'
                failed=$((failed + 1))
        fi
}
CTL="$BUILDDIR/numastatctl --socket=$SOCK"
D="$BUILDDIR/numastatd"

# ---- numastatctl's outputs ----
for verb in status readers history counters metrics known-readers; do
        golden "ctl-$verb" "$work" $CTL "$verb"
done
golden ctl-set-policy "$work" $CTL set-policy coarse
golden ctl-hold "$work" $CTL hold --timeout=1h
golden ctl-hold-json "$work" $CTL --json=short hold --timeout=1h
golden ctl-unknown-option "$work" $CTL --bogus status
golden ctl-option-needs-value "$work" $CTL status --timeout
golden ctl-help "$work" "$BUILDDIR/numastatctl" --help
golden ctl-known-readers-explain-rule "$work" $CTL known-readers --explain=quiet
golden ctl-known-readers-explain-unknown "$work" $CTL known-readers --explain=4121
golden ctl-known-readers-explain-json "$work" $CTL --json=short known-readers --explain=quiet

# ---- numastatctl's errors ----
golden ctl-unknown-command "$work" $CTL sometimes
golden ctl-unknown-policy "$work" $CTL set-policy sometimes
golden ctl-set-policy-no-arg "$work" $CTL set-policy
golden ctl-bad-json "$work" $CTL --json=xml status
golden ctl-hold-nothing "$work" $CTL hold
golden ctl-hold-timeout-too-long "$work" $CTL hold --timeout=8d
golden ctl-hold-reason-too-long "$work" $CTL hold --timeout=1s --reason="$(printf 'x%.0s' $(seq 128))"
golden ctl-reason-without-hold "$work" $CTL status --reason=x
golden ctl-no-daemon "$work" "$BUILDDIR/numastatctl" --socket=/nonexistent/io.numastatd status
golden ctl-known-readers-explain-none "$work" $CTL known-readers --explain=nobody
golden ctl-explain-without-known-readers "$work" $CTL readers --explain=4121

# ---- numastatd's help and configuration errors ----
# The default configuration file is where configure's --sysconfdir put it
# (make distcheck's is under its own prefix): shown as /etc's.
daemon_help() { "$D" --help | sed 's|(default [^ )]*/numastatd\.conf)|(default /etc/numastatd.conf)|'; }
golden daemon-help "$work" daemon_help
golden daemon-unknown-option "$work" "$D" --bogus
for f in "$G"/conf/*.conf; do
        name=$(basename "$f" .conf)
        golden "daemon-conf-$name" "$G/conf" "$D" --check-config --config="$name.conf"
done

# ---- numastatd's own metrics: every series, its labels and words ----
# The real daemon on a still tree (2 nodes, mainline, policy strict);
# sample values depend on the moment and the machine (root or not, exit
# records or not), so they print as N, and the version as V.
tree=$work/tree
mkdir -p "$tree/proc/sys/vm" "$tree/run/numastatd"
echo 1 > "$tree/proc/sys/vm/numa_stat"
for node in 0 1; do
        mkdir -p "$tree/sys/devices/system/node/node$node"
        echo "$((node * 2))-$((node * 2 + 1))" > "$tree/sys/devices/system/node/node$node/cpulist"
        echo "Node $node MemTotal:        1048576 kB" > "$tree/sys/devices/system/node/node$node/meminfo"
done
printf '[policy]\nmode = strict\n' > "$work/strict.conf"
DSOCK=$tree/run/numastatd/io.numastatd
NUMASTATD_KNOWN_READERS_PATH=$SRCDIR/conf/readers.d "$D" --root="$tree" --socket="$DSOCK" \
        --runtime-dir="$tree/run/numastatd" --config="$work/strict.conf" >"$work/daemon.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 1 600); do
        "$BUILDDIR/numastatctl" --socket="$DSOCK" status >/dev/null 2>&1 && break
        kill -0 "$DAEMON_PID" 2>/dev/null || break
        sleep 0.05
done
metrics_words() {
        "$BUILDDIR/numastatctl" --socket="$DSOCK" metrics |
                sed -E -e 's/version="[^"]*"/version="V"/' -e 's/^([a-z_]+(\{[^}]*\})?) .*/\1 N/'
}
golden daemon-metrics "$work" metrics_words
kill "$DAEMON_PID"
wait "$DAEMON_PID"
DAEMON_PID=

echo "1..$n"
[ $failed -eq 0 ]
