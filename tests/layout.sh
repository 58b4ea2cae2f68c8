#!/bin/bash
# The README's Layout section names every source file of the daemon, the
# client and lib/: a module added without a line there fails here.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
layout=$(awk '/^## Layout$/ { on = 1; next } /^## / { on = 0 } on' "$SRCDIR/README.md")
n=0 failed=0
if [ -z "$layout" ]; then
        echo "not ok 1 - README.md has a Layout section"
        echo "1..1"
        exit 1
fi
for f in "$SRCDIR"/daemon/*.c "$SRCDIR"/daemon/*/*.c "$SRCDIR"/client/*.c "$SRCDIR"/lib/*.c; do
        name=$(basename "$f")
        n=$((n + 1))
        if grep -qF "\`$name\`" <<<"$layout"; then
                echo "ok $n - the Layout section names ${f#"$SRCDIR"/}"
        else
                echo "not ok $n - the Layout section names ${f#"$SRCDIR"/}"
                failed=$((failed + 1))
        fi
done
# And names nothing that is gone.
for name in $(grep -o '`[a-z0-9-]*\.c`' <<<"$layout" | tr -d '`' | sort -u); do
        n=$((n + 1))
        if compgen -G "$SRCDIR/daemon/$name" >/dev/null || compgen -G "$SRCDIR/daemon/*/$name" >/dev/null ||
                compgen -G "$SRCDIR/client/$name" >/dev/null ||
                compgen -G "$SRCDIR/lib/$name" >/dev/null || compgen -G "$SRCDIR/tests/*/$name" >/dev/null; then
                echo "ok $n - $name, named in the Layout section, exists"
        else
                echo "not ok $n - $name, named in the Layout section, exists"
                failed=$((failed + 1))
        fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
