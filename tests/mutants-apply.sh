#!/bin/bash
# Every break scripts/check-mutants.sh makes still applies: its text is in
# its file exactly once. The mutants run outside CI (about 48 minutes);
# this keeps a break from going stale unseen when the code it breaks moves.
SRCDIR=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
exec bash "$SRCDIR/scripts/check-mutants.sh" --applies
