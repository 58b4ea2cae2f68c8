#!/bin/bash
# The file-level call graph of daemon/ (scripts/callgraph.py: direct calls,
# from GCC's -fcallgraph-info; a handler reached through the event loop or
# a callback is no edge). No file of daemon/ is in a cycle: the leaves
# (core/, sources/, effects/, fs/) call no one above them, service/ reaches
# the manager only through the ServiceOps it is given, and the manager's
# own files are layered (docs/layout.md): a sample feeds no one, the
# engine's effects call nothing that feeds it again, and only handlers the
# loop dispatches, and manager.c's life cycle, call down into the feeding.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILDDIR=${TEST_BUILDDIR:-$SRCDIR/build}
CC=${CC:-gcc}
n=0 failed=0
check() {  # check CONDITION_EXIT DESCRIPTION
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The probe writes its .ci beside its output: in $work, not the build tree.
if ! echo 'int main(void){return 0;}' > "$work/probe.c" ||
   ! "$CC" -fcallgraph-info -c -o "$work/probe.o" "$work/probe.c" 2>/dev/null; then
        echo "1..0 # SKIP $CC has no -fcallgraph-info (GCC 10 or later has)"
        exit 0
fi
if ! (cd "$work" && python3 "$SRCDIR/scripts/callgraph.py" --cc "$CC" --scc "$SRCDIR" "$BUILDDIR") > "$work/scc" 2> "$work/err"; then
        cat "$work/err"
        echo "not ok 1 - the call graph is computed"
        echo "1..1"
        exit 1
fi
check 0 "the call graph of daemon/ is computed"
sed 's/^/# cycle: /' "$work/scc"
in_cycle=$(tr ' ' '\n' < "$work/scc" | grep '^daemon/')
bad=$(grep -E '^daemon/(core|sources|effects|fs)/' <<< "$in_cycle")
check "$([ -z "$bad" ]; echo $?)" "no file of core/, sources/, effects/ or fs/ is in a cycle${bad:+: $(echo $bad)}"
bad=$(grep -E '^daemon/service/' <<< "$in_cycle")
check "$([ -z "$bad" ]; echo $?)" "no file of service/ (methods, holds, the outputs of a Status) is in a cycle${bad:+: $(echo $bad)}"
cycles=$(sed 's/^[0-9]* files: //' "$work/scc" | tr '\n' ';')
check "$([ -z "$cycles" ]; echo $?)" "no file of daemon/ is in a cycle${cycles:+: $cycles}"
echo "1..$n"
[ $failed -eq 0 ]
