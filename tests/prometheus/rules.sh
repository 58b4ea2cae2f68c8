#!/bin/bash
# The shipped Prometheus rules (conf/prometheus/numastatd.rules.yml):
# promtool checks them and runs their unit tests (numastatd.test.yml); every
# series they use is one the daemon exports (metrics.c's families).
. "$(dirname "$0")/../integration/lib.sh"

RULES=$SRCDIR/conf/prometheus/numastatd.rules.yml
if ! command -v promtool > /dev/null; then
        skip "promtool is missing (Debian package prometheus; scripts/install-deps.sh --test installs it)"
        done_testing
        exit 0
fi
OUT=$(promtool check rules "$RULES" 2>&1)
ok $? "promtool check rules accepts them"
contains "$OUT" "SUCCESS" "  $(echo "$OUT" | grep -o 'SUCCESS.*')"
OUT=$(cd "$SRCDIR/tests/prometheus" && promtool test rules numastatd.test.yml 2>&1)
rc=$?
[ $rc -eq 0 ] || echo "$OUT" | sed 's/^/# /'
ok $rc "promtool test rules: the alerts fire and the recording rules compute as worked out by hand"
# The daemon's series, from its own families (metrics.c names each in a string).
missing=
for name in $(perl -ne 'next if /^\s*#/; print "$1\n" while /(?<![:\w])(numastatd_[a-z_]+)(?![:\w])/g' "$RULES" | sort -u); do
        grep -q "\"$name\"\\|\"$name{" "$SRCDIR/daemon/service/metrics.c" || missing="$missing $name"
done
is "${missing:-none}" none "every series the rules use is one the daemon exports"
done_testing
