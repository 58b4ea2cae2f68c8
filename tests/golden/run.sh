#!/bin/bash
# Golden files for what people read: every human output of numastatctl
# (status, readers, history, counters, metrics, known-readers, set-policy,
# hold) from a fake daemon that always gives the same replies
# (tests/golden/replies/, captured once from the real daemon on a fake tree
# and fixed: pids, times and paths), both programs' --help, and the main
# error messages of both, each compared byte for byte (stdout, stderr, exit
# status) with tests/golden/expected/NAME, as kmod's testsuite does. A
# wording change is then a diff to review, not an accident:
#   GOLDEN_UPDATE=1 make check TESTS=tests/golden/run.sh
# rewrites the expected files from what the programs print now.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
G=$SRCDIR/tests/golden
work=$(mktemp -d /tmp/numastatd-golden-XXXXXX)
FAKE_PID=
cleanup() {
        [ -z "$FAKE_PID" ] || kill "$FAKE_PID" 2>/dev/null
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

# ---- numastatd's help and configuration errors ----
golden daemon-help "$work" "$D" --help
golden daemon-unknown-option "$work" "$D" --bogus
for f in "$G"/conf/*.conf; do
        name=$(basename "$f" .conf)
        golden "daemon-conf-$name" "$G/conf" "$D" --check-config --config="$name.conf"
done

echo "1..$n"
[ $failed -eq 0 ]
