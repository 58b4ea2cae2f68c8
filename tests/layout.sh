#!/bin/bash
# docs/layout.md names every source file of the daemon, the client and lib/,
# and the README's Layout section points at it: a module added without a
# line there fails here, and so does a line for a file that is gone.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
layout_md=$SRCDIR/docs/layout.md
n=0 failed=0
if [ ! -s "$layout_md" ]; then
        echo "not ok 1 - docs/layout.md exists"
        echo "1..1"
        exit 1
fi
layout=$(cat "$layout_md")
readme_layout=$(awk '/^## Layout$/ { on = 1; next } /^## / { on = 0 } on' "$SRCDIR/README.md")
n=$((n + 1))
if grep -qF '](docs/layout.md)' <<<"$readme_layout"; then
        echo "ok $n - the README's Layout section links docs/layout.md"
else
        echo "not ok $n - the README's Layout section links docs/layout.md"
        failed=$((failed + 1))
fi
for f in "$SRCDIR"/daemon/*.c "$SRCDIR"/daemon/*/*.c "$SRCDIR"/client/*.c "$SRCDIR"/lib/*.c; do
        name=$(basename "$f")
        n=$((n + 1))
        if grep -qF "\`$name\`" <<<"$layout"; then
                echo "ok $n - docs/layout.md names ${f#"$SRCDIR"/}"
        else
                echo "not ok $n - docs/layout.md names ${f#"$SRCDIR"/}"
                failed=$((failed + 1))
        fi
done
# And names nothing that is gone.
for name in $(grep -o '`[a-z0-9-]*\.c`' <<<"$layout" | tr -d '`' | sort -u); do
        n=$((n + 1))
        if compgen -G "$SRCDIR/daemon/$name" >/dev/null || compgen -G "$SRCDIR/daemon/*/$name" >/dev/null ||
                compgen -G "$SRCDIR/client/$name" >/dev/null ||
                compgen -G "$SRCDIR/lib/$name" >/dev/null || compgen -G "$SRCDIR/tests/*/$name" >/dev/null; then
                echo "ok $n - $name, named in docs/layout.md, exists"
        else
                echo "not ok $n - $name, named in docs/layout.md, exists"
                failed=$((failed + 1))
        fi
done
# The manager's struct is private to its context (README, "How an event
# flows"): defined in one .c file, in no header, so that no other file
# reaches into it.
defined=$(grep -rlE '^(typedef )?struct Manager \{' "$SRCDIR/daemon" | sed "s|^$SRCDIR/||" | tr '\n' ' ')
n=$((n + 1))
if [ "$defined" = "daemon/manager-context.c " ]; then
        echo "ok $n - struct Manager is defined in daemon/manager-context.c alone"
else
        echo "not ok $n - struct Manager is defined in daemon/manager-context.c alone (found in: ${defined:-none})"
        failed=$((failed + 1))
fi
echo "1..$n"
[ "$failed" -eq 0 ]
