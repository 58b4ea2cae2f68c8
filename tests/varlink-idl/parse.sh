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
# ---- the compiler for sd-varlink (varlink/gen-sd-interface.py) ----
# Builds on sd-varlink compile its output (and numastatctl.sh compares what
# the daemon serves with the file); here, what the script itself decides.
GEN=$SRCDIR/varlink/gen-sd-interface.py
W=$(mktemp -d)
OUT=$(python3 "$GEN" "$IDL" "$W/out.c" 2>&1)
ok $? "gen-sd-interface.py compiles the interface${OUT:+: $OUT}"
symbols=$(grep -cE '^(type|method|error) ' "$IDL")
is "$(grep -cE '^        &vl_(type|method|error)_' "$W/out.c")" "$symbols" "  every one of its $symbols symbols is in the compiled interface"
is "$(grep -c 'SD_VARLINK_FIELD_COMMENT\|SD_VARLINK_SYMBOL_COMMENT\|SD_VARLINK_INTERFACE_COMMENT' "$W/out.c")" \
        "$(grep -c '^ *#' "$IDL")" "  and every comment line"
contains "$(cat "$W/out.c")" 'SD_VARLINK_DEFINE_FIELD_BY_TYPE(last_error, Error, SD_VARLINK_NULLABLE)' \
        "  a ?Named field is a nullable field by type"
contains "$(cat "$W/out.c")" 'SD_VARLINK_DEFINE_OUTPUT(held, SD_VARLINK_BOOL, 0)' "  a method's reply field is an output"
# The same symbols, laid out and commented otherwise: the same.
sed -e '/^ *#/d' -e 's/, /,\n  /g' "$IDL" > "$W/relaid.varlink"
python3 "$GEN" --same-symbols "$IDL" "$W/relaid.varlink"
ok $? "--same-symbols: the interface laid out otherwise, without comments, declares the same"
sed 's/^  pid_verified: bool,/  pid_verified: int,/' "$IDL" > "$W/changed.varlink"
OUT=$(python3 "$GEN" --same-symbols "$IDL" "$W/changed.varlink" 2>&1)
ok $([ $? -eq 1 ]; echo $?) "  but not with one field's type changed: $OUT"
printf 'interface a.b\ntype T (x: (one, two))\n' > "$W/enum.varlink"
python3 "$GEN" "$W/enum.varlink" "$W/enum.c"
ok $? "an inline enum compiles"
contains "$(cat "$W/enum.c")" '.field_type = SD_VARLINK_ENUM' "  to a field pointing at an anonymous enum symbol"
# sd-varlink has one set of flags per field, nullable outermost.
printf 'interface a.b\n\ntype T (x: []?int)\n' > "$W/flags.varlink"
OUT=$(python3 "$GEN" "$W/flags.varlink" "$W/flags.c" 2>&1)
ok $([ $? -eq 1 ] && [ ! -e "$W/flags.c" ]; echo $?) "[]?T, which sd-varlink cannot hold, is refused by line: $OUT"
contains "$OUT" 'flags.varlink:3:' "  the line is the field's"
rm -rf "$W"

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
