#!/bin/sh
# tests/dist-complete.sh SRCDIR DISTDIR: every file git tracks in SRCDIR is
# in the release tree DISTDIR (make distcheck's hook), but for what stays
# out on purpose: the Debian packaging (debian/, built from the checkout by
# scripts/build-deb.sh), the git-only helpers and placeholders. A file left
# out of EXTRA_DIST fails here by name, rather than as a test that cannot
# find it. Outside a git checkout (a tarball's own distcheck) it says so.
set -u
src=$1 dist=$2
if ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        echo "dist-complete: $src is not a git checkout: not compared"
        exit 0
fi
missing=$(git -C "$src" ls-files | grep -vE '^(debian/|autogen\.sh$|\.gitignore$|.*/\.gitkeep$)' |
        while IFS= read -r f; do [ -e "$dist/$f" ] || printf '%s\n' "$f"; done)
if [ -n "$missing" ]; then
        echo "dist-complete: tracked files missing from $dist (add them to EXTRA_DIST):" >&2
        printf '  %s\n' $missing >&2
        exit 1
fi
echo "dist-complete: every tracked file is in $dist"
