#!/bin/bash
# The interface file parses with a parser that is not ours: the varlink
# project's Go IDL parser (Debian's golang-github-varlink-go-dev), so a name
# used twice (a type and a method), or a grammar slip, fails make check.
# The parser is shown to catch a collision on a copy that has one.
. "$(dirname "$0")/../integration/lib.sh"

IDL=$SRCDIR/varlink/io.numastatd.varlink
GOSRC=/usr/share/gocode/src/github.com/varlink/go/varlink/idl
if ! command -v go > /dev/null || [ ! -d "$GOSRC" ]; then
        skip "go or the varlink Go IDL parser is missing (golang-go, golang-github-varlink-go-dev; scripts/install-deps.sh --test installs them)"
        done_testing
        exit 0
fi
PARSE=$BUILDDIR/tests/varlink-idl/parse
mkdir -p "$(dirname "$PARSE")"
# Debian's Go packages live in GOPATH form: no modules, nothing fetched.
OUT=$(cd "$BUILDDIR" && GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE="$BUILDDIR/tests/varlink-idl/cache" \
        go build -o "$PARSE" "$SRCDIR/tests/varlink-idl/parse.go" 2>&1)
ok $? "the Go IDL parser builds${OUT:+: $OUT}"
OUT=$("$PARSE" "$IDL" 2>&1)
ok $? "varlink/io.numastatd.varlink parses: $OUT"
# A copy with a type named like a method: the collision varlinkctl
# validate-idl refuses too ("Symbol 'Hold' defined twice").
T=$(mktemp -d)
sed 's/^type HoldInfo (/type Hold (/' "$IDL" > "$T/collide.varlink"
OUT=$("$PARSE" "$T/collide.varlink" 2>&1)
rc=$?
rm -rf "$T"
ok $([ $rc -eq 1 ]; echo $?) "  and it refuses a copy whose type Hold collides with method Hold: $OUT"
done_testing
