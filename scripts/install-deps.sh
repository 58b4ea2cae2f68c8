#!/bin/sh
# Installs what numastatd needs to build and run on Debian 12 (as root);
# with --test, also what scripts/test.sh needs beyond that: clang and its
# libFuzzer runtime for the fuzz harnesses, numactl's numastat to compare
# numastatctl counters with, node_exporter and promtool (prometheus) for the
# metrics test and the rules' tests; sysstat, atop, collectd-core and nmon, whose
# real programs the known-readers test judges (their services are not
# started); Go and the varlink project's Go IDL parser, an independent
# check of the interface file; strace, to see the order of the daemon's
# writes and its READY; stress-ng, to run the suite with both cores busy
# (docs/testing.md); uidmap's newuidmap, for a user's subordinate uids in
# the attacks of tests/integration/looks.sh; libc6-dev's static libc for
# that test's helper. (The VM tests' own needs are
# scripts/install-vm-deps.sh.)
set -eu

PACKAGES="
build-essential autoconf automake libtool pkg-config
libsystemd-dev libnl-3-dev libnl-genl-3-dev libinih-dev libnuma-dev libjson-c-dev
python3 util-linux procps
"
TEST_PACKAGES="clang libclang-rt-14-dev numactl prometheus-node-exporter prometheus sysstat atop collectd-core
snmpd zabbix-agent zabbix-agent2 collectl munin-node munin-plugins-core dstat glances
golang-go golang-github-varlink-go-dev strace stress-ng uidmap nmon"
case "${1:-}" in
--test) PACKAGES="$PACKAGES $TEST_PACKAGES" ;;
"") ;;
*) echo "usage: install-deps.sh [--test]" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
        echo "install-deps.sh: run as root (apt-get install)" >&2
        exit 1
fi

missing=
for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
        echo "install-deps.sh: all dependencies are installed."
        exit 0
fi
echo "install-deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Collectors' services must not start on this machine (they would read
# /proc/vmstat behind the tests' backs): a policy-rc.d says no while we install.
guard=
if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && guard=1
fi
status=0
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null || status=$?
[ -z "$guard" ] || rm -f /usr/sbin/policy-rc.d
[ "$status" -eq 0 ] || exit "$status"
