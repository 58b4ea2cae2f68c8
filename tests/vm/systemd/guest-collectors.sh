#!/bin/bash
# Known readers under systemd: the guest half of tests/vm/systemd/run.sh
# collectors. Debian 12's collectors run from their own units with their
# packaged defaults (intervals shortened: sadc and atop every 10 s instead of
# 10 min; node_exporter scraped every second), an allocation load runs, and
# numastatd runs with its shipped configuration and catalogue (timings
# shortened: interval 500ms, sustain 2s, linger 15s, min_dwell 2s,
# strict_below 500, and coarse_above a quarter of the rate the load reaches
# here, measured first: under TCG on a busy host that rate varies threefold,
# and a fixed threshold left counting on by pressure, not by any reader; one
# ignore rule, for the test's own probe of the counters). Checked and printed per collector:
# the files it read, how often, the verdict; with node_exporter, sadc, atop
# and collectd running, counting goes off and stays off (the share of time
# off, by the counters standing still); so it does with snmpd, zabbix-agent2,
# collectl's daemon, munin-node (polled for swap: its plugin's awk is judged
# by munin-node above it), dstat, glances, nmon recording and vmtoolsd (a
# stand-in under open-vm-tools' unit) reading too; collectl -sM and a
# Zabbix item on numa_hit turn counting on and keep it on; then numastat, node_exporter with a
# numa_* fields regex, collectd with LoadPlugin numa and PCP (pmval on
# mem.vmstat.numa_hit, after pcp is installed with apt under systemd) each
# turn counting on and keep it on while they read; netdata does too with
# Debian's netdata.conf, and no longer once netdata.conf turns its NUMA
# charts off; a containerised node_exporter (the upstream image's path, in a
# mount namespace and root of its own) is known as the host's is. TAP on /dev/ttyS1, then
# "VM-DONE rc=N" and poweroff.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${NUMASTATD_CONF:=/etc/numastatd.conf}"
: "${NUMASTATD_SBIN:=/usr/sbin}" "${NUMASTATD_BIN:=/usr/bin}" "${NUMASTATD_DEB:=}"
export PATH=$NUMASTATD_BIN:$NUMASTATD_SBIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export SYSTEMD_COLORS=0 SYSTEMD_PAGER='' PAGER=cat
UNIT=numastatd.service
STATE=/run/numastatd-vmtest
mkdir -p "$STATE"
LOAD=
FINISH_HOOK='[ -z "$LOAD" ] || kill "$LOAD" 2>/dev/null'
# shellcheck source=guest-lib.sh
. "$HERE/guest-lib.sh"

# The kernel's own count: node0's numa_hit (stands still, at 0, while off).
# Read by a probe the configuration ignores (comm vmtest-probe): the test's
# own reads must not keep counting on.
cp /usr/bin/mawk /usr/local/bin/vmtest-probe
numa_hit() { vmtest-probe '$1 == "numa_hit" { print $2 }' /sys/devices/system/node/node0/numastat; }
# share STATE SECONDS: samples every 0.5 s for SECONDS of wall clock (under
# TCG a sample itself can take as long); prints the percentage of
# samples in STATE: "off" is proven by node0's numa_hit not moving since the
# previous sample (and the sysctl reading 0), "on" by it moving (and 1).
share() {
        local n=0 hits=0 prev cur moved end=$((SECONDS + $2))
        prev=$(numa_hit)
        while [ $SECONDS -lt $end ] || [ $n -eq 0 ]; do
                sleep 0.5
                cur=$(numa_hit)
                n=$((n + 1))
                moved=$([ "$cur" != "$prev" ] && echo 1 || echo 0)
                case $1 in
                off) numa_stat_is 0 && [ "$moved" = 0 ] && hits=$((hits + 1)) ;;
                on) numa_stat_is 1 && [ "$moved" = 1 ] && hits=$((hits + 1)) ;;
                esac
                prev=$cur
        done
        echo $((100 * hits / n))
}
# reader COMM PATH FIELD: FIELD of COMM's entry for PATH in numastatctl
# readers (the latest process's, after a restart).
reader() {
        ctl --json=short readers | jq -r --arg c "$1" --arg p "$2" --arg f "$3" \
                '[.[] | select(.comm == $c and .path == $p)] | max_by(.last_seen) // {} | .[$f] // "none"'
}
seen() { [ "$(reader "$1" "$2" verdict)" != none ]; }
# judged_known COMM PATH: COMM's latest reads of PATH are known. A new
# process's first read counts while the look into it (its root, its
# script) is under way, if that outlasts the read's patience (100 ms),
# which under TCG on a busy host it may: the look's verdict comes next.
judged_known() { [ "$(reader "$1" "$2" verdict)" = known ]; }
# read_by_other COMM PATH PID: COMM's latest entry for PATH is another
# process's than PID ("none": any process's): a (re)started collector's new
# process has read (an old one may read while it stops, after any timestamp).
read_by_other() {
        local p
        p=$(reader "$1" "$2" pid)
        [ "$p" != none ] && [ "$p" != "$3" ]
}
# kept_on_by COMM NAME: numastatctl status names COMM in its "Kept on by:" lines.
kept_on_by() {
        local r
        ctl > "$STATE/status.txt"
        sed -n '/Kept on by:/,/see numastatd.conf/p' "$STATE/status.txt" | grep -qE " $1 \((every |[0-9]+ read)"
        r=$?
        ok $r "  numastatctl status says $2 keeps counting on"
        [ $r -eq 0 ] || sed 's/^/#   /' "$STATE/status.txt" >"$OUT"
}
# report COMM PATH: one line per collector: how many reads in how long
# (first to last), the learned period (counted readers only), the verdict.
report() {
        diag "$(ctl --json=short readers | jq -r --arg c "$1" --arg p "$2" '
                [.[] | select(.comm == $c and .path == $p)] | max_by(.last_seen) // {} |
                "\($c) read \($p) \(.count // 0)x in \(((.last_seen // 0) - (.first_seen // 0)) / 1000000 | floor) s" +
                (if .period then ", every \(.period / 1000 | floor) ms" else "" end) + ": \(.why // .verdict // "unseen")"')"
}

# ---- 0. up; numastatd installed with the shorter timings -----------------------------
for _ in $(seq 1 900); do
        case $(systemctl is-system-running 2>/dev/null) in running|degraded) break ;; esac
        sleep 0.2
done
is "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" 2 "the VM has 2 NUMA nodes"
if [ -n "$NUMASTATD_DEB" ]; then
        dpkg -i "$NUMASTATD_DEB" >"$STATE/dpkg.log" 2>&1
        ok $? "dpkg -i $(basename "$NUMASTATD_DEB")"
fi
# The load runs from here to the end; its rate, over 10 s, sets coarse_above.
/usr/lib/numastatd-vmtest/alloc-load load 3600 0 > /dev/null 2>&1 &
LOAD=$!
pgalloc() { vmtest-probe '$1 ~ /^pgalloc_/ { n += $2 } END { print n }' /proc/vmstat; }
sleep 2
a=$(pgalloc) t0=$(date +%s%N)
sleep 10
b=$(pgalloc) t1=$(date +%s%N)
RATE=$(((b - a) * 1000000000 / (t1 - t0)))
COARSE_ABOVE=$((RATE / 4))
diag "figure: load_pages_per_s=$RATE, so coarse_above=$COARSE_ABOVE (a quarter)"
ok $([ "$COARSE_ABOVE" -gt 2000 ]; echo $?) "the load allocates $RATE pages/s: a quarter, coarse_above=$COARSE_ABOVE, is well above strict_below=500"
cat >"$NUMASTATD_CONF" <<CONF
# The shipped defaults, with shorter timings for a VM test.
[policy]
min_dwell = 2s
[pressure]
interval = 500ms
coarse_above = $COARSE_ABOVE
strict_below = 500
sustain = 2s
[readers]
linger = 15s
# The test's probe of the counters (numa_hit, every 0.5 s).
ignore = comm=vmtest-probe
CONF
# vmtoolsd runs only on VMware (its unit: ConditionVirtualization=vmware).
# A stand-in at its path (a copy of dash: the catalogue knows vmtoolsd by
# the binary there, told when the daemon starts), run by the package's own
# unit beside its shipped tools.conf, reads what guestInfo's performance
# monitor reads, every 2 s instead of 20.
cp /usr/bin/dash /usr/bin/vmtoolsd
mkdir -p /usr/local/lib/vmtest /run/systemd/system/open-vm-tools.service.d
printf 'while :; do read x < /proc/vmstat; read x < /proc/zoneinfo; sleep 2; done\n' \
        > /usr/local/lib/vmtest/vmtoolsd-perfmon
printf '[Unit]\nConditionVirtualization=\n[Service]\nExecStart=\nExecStart=/usr/bin/vmtoolsd %s\n' \
        /usr/local/lib/vmtest/vmtoolsd-perfmon > /run/systemd/system/open-vm-tools.service.d/vmtest.conf
# Debug messages: which looks were asked and what they found.
mkdir -p /run/systemd/system/numastatd.service.d
printf '[Service]\nExecStart=\nExecStart=%s --log-level=debug\n' "$(command -v numastatd)" \
        > /run/systemd/system/numastatd.service.d/vmtest-debug.conf
systemctl daemon-reload
systemctl enable numastatd.service >/dev/null 2>&1
systemctl restart numastatd.service
wait_for 30 is_active numastatd.service
ok $? "numastatd runs with the shipped catalogue"
K=$(ctl known-readers)
for e in atop collectd collectl dstat glances munin-node net-snmp netdata newrelic-infra nmon numastat open-vm-tools pcp \
        procps-vmstat prometheus-node-exporter sysstat zabbix-agent; do
        echo "$K" | grep -q "^$e (/usr.*/lib/numastatd/readers.d/$e.conf)$"
        ok $? "  known-readers lists $e from the installed catalogue"
done
# netdata starts at boot with Debian's configuration, and its NUMA charts
# keep counting on: it is judged on its own in part 3.
systemctl stop netdata.service

# Debian 12's Zabbix agent 2, or Debian 11's agent 5.0 (agent 2 is only
# in its backports); Glances, which Debian 11 does not have, where it is.
if command -v zabbix_agent2 >/dev/null; then
        ZBX=zabbix_agent2 ZBX_UNIT=zabbix-agent2.service ZBX_CONF=/etc/zabbix/zabbix_agent2.conf
else
        ZBX=zabbix_agentd ZBX_UNIT=zabbix-agent.service ZBX_CONF=/etc/zabbix/zabbix_agentd.conf
fi
GLANCES=
command -v glances >/dev/null && GLANCES=glances
diag "collectors: $(. /etc/os-release && echo "$PRETTY_NAME"), $ZBX${GLANCES:+, glances}"
# The next collectors start at boot from their packages' units: they are
# started again, on their own, in part 1b.
NEXT_UNITS="snmpd.service $ZBX_UNIT collectl.service munin-node.service${GLANCES:+ glances.service} open-vm-tools.service"
# shellcheck disable=SC2086 # unit names
systemctl stop $NEXT_UNITS 2>/dev/null

# ---- 1. the collectors, by their own units ----------------------------------------------
sed -i 's/^ENABLED=.*/ENABLED="true"/' /etc/default/sysstat
mkdir -p /run/systemd/system/sysstat-collect.timer.d
printf '[Timer]\nOnCalendar=\nOnCalendar=*:*:0/10\nAccuracySec=1s\n' > /run/systemd/system/sysstat-collect.timer.d/vmtest.conf
sed -i 's/^LOGINTERVAL=.*/LOGINTERVAL=10/' /etc/default/atop
# The root file system is packed without /var/log's contents.
mkdir -p /var/log/atop
systemctl daemon-reload
systemctl restart sysstat.service sysstat-collect.timer atop.service collectd.service prometheus-node-exporter.service
for u in prometheus-node-exporter.service collectd.service atop.service sysstat-collect.timer; do
        wait_for 60 is_active "$u"
        r=$?
        ok $r "$u is active"
        [ $r -eq 0 ] || journalctl -u "$u" -n 15 --no-pager -o cat 2>&1 | sed 's/^/#   /' >"$OUT"
done
systemd-run --quiet --unit=scraper sh -c 'while :; do curl -s -o /dev/null http://127.0.0.1:9100/metrics; sleep 1; done'

wait_for 120 numa_stat_is 0
ok $? "with node_exporter, sadc, atop and collectd reading, counting goes off under the load"
for c in "prometheus-node" sadc atop collectd; do
        wait_for 60 seen "$c" /proc/vmstat
        wait_for 60 judged_known "$c" /proc/vmstat
        ok $? "  $c's reads of /proc/vmstat: known, no counting ($(reader "$c" /proc/vmstat verdict))"
done
off=$(share off 60)
diag "figure: share_off_monitored=${off}% over 60 s after counting went off (target >= 95%)"
ok $([ "$off" -ge 95 ]; echo $?) "counting stayed off ${off}% of 60 s with the four collectors reading"
for c in "prometheus-node" sadc atop collectd; do report "$c" /proc/vmstat; done
if [ "$off" -lt 95 ]; then
        diag "numastatctl readers, history and status:"
        { ctl readers; ctl history | tail -8; ctl; } 2>&1 | sed 's/^/#   /' >"$OUT"
fi

# ---- 1b. the next collectors: Debian's defaults, beside the four ---------------------------
# snmpd and zabbix-agent2 by their units with Debian's configuration;
# collectl's daemon (collectl -D, /etc/collectl.conf); munin-node, polled for
# swap every 10 s (the master polls every 5 min); dstat and glances as a
# person runs them (glances --stdout, the memswap plugin, every 2 s); nmon
# recording (nmon -f, as from cron, a snapshot every 2 s instead of 300);
# vmtoolsd's stand-in by open-vm-tools' unit (part 0).
# The root file system is packed without /var/log's contents.
mkdir -p /var/log/zabbix /var/log/zabbix-agent /var/log/munin
chown zabbix:zabbix /var/log/zabbix /var/log/zabbix-agent
chown munin:adm /var/log/munin 2>/dev/null
# munin-node's postinst links the plugins whose autoconf says yes; in the
# image's chroot (no /proc) swap's said no.
[ -e /etc/munin/plugins/swap ] || ln -s /usr/share/munin/plugins/swap /etc/munin/plugins/swap
systemctl start snmpd.service "$ZBX_UNIT" collectl.service munin-node.service open-vm-tools.service
for u in snmpd.service "$ZBX_UNIT" collectl.service munin-node.service open-vm-tools.service; do
        wait_for 60 is_active "$u"
        r=$?
        ok $r "$u is active"
        [ $r -eq 0 ] || journalctl -u "$u" -n 15 --no-pager -o cat 2>&1 | sed 's/^/#   /' >"$OUT"
done
# Each poll in a subshell: one made before munin-node listens fails alone.
systemd-run --quiet --unit=munin-poller bash -c 'while :; do
        (exec 3<>/dev/tcp/127.0.0.1/4949 && printf "fetch swap\nquit\n" >&3 && cat <&3 >/dev/null) 2>/dev/null
        sleep 10; done'
systemd-run --quiet --unit=dstat dstat --vm 1
# nmon -f forks into the background: the unit follows the fork.
mkdir -p /var/lib/vmtest-nmon
systemd-run --quiet --unit=nmon-recording -p Type=forking nmon -f -s 2 -c 100000 -m /var/lib/vmtest-nmon
# (glances.service is Debian's server mode, which reads only for a client.)
[ -z "$GLANCES" ] || systemd-run --quiet --unit=glances-stdout glances --stdout memswap.sin -t 2
[ -n "$GLANCES" ] || skip "glances's reads of /proc/vmstat" "no Glances in $(. /etc/os-release && echo "$PRETTY_NAME")"
NEXT_READERS="snmpd awk dstat${GLANCES:+ glances} collectl nmon vmtoolsd"
# Under TCG, Glances (Python, psutil) takes minutes to start.
for c in $NEXT_READERS; do
        wait_for 300 seen "$c" /proc/vmstat ||
                { diag "$c has not read /proc/vmstat:"; journalctl -u glances-stdout -u munin-poller -u munin-node -n 20 \
                        --no-pager -o cat 2>&1 | sed 's/^/#   /' >"$OUT"; }
done
for c in ${NEXT_READERS/awk /}; do
        wait_for 60 judged_known "$c" /proc/vmstat
        ok $? "  $c's reads of /proc/vmstat: known, no counting ($(reader "$c" /proc/vmstat verdict))"
done
# Its first poll's read counts while munin-node is looked into (under TCG
# the read's patience runs out first); the next ones are munin-node's.
awk_known() { case $(reader awk /proc/vmstat why) in known*) true ;; *) false ;; esac; }
wait_for 90 awk_known
why=$(reader awk /proc/vmstat why)
is "$why" "known munin-node (run by it): its core plugins keep pswpin and pswpout only" \
        "  the awk munin-node's swap plugin runs: known as munin-node's"
case $why in known*) ;; *) { stat -c '%n %D %i' /usr/bin/dash /usr/bin/gawk /usr/bin/mawk /usr/bin/perl
        ps -eo pid,ppid,user,comm,args | grep -E "munin|awk|swap" | grep -v grep
        journalctl -u numastatd --no-pager -o cat | grep -iE "look|ancestor|awk|program of" | tail -40; } 2>&1 |
        sed 's/^/#   /' >"$OUT" ;; esac
is "$(reader "$ZBX" /proc/vmstat verdict)" none "  $ZBX with Debian's configuration reads nothing (no item)"
wait_for 60 numa_stat_is 0
ok $? "with the next collectors reading too, counting is off"
off=$(share off 60)
wait_for 60 judged_known vmtoolsd /proc/zoneinfo
ok $? "  vmtoolsd's reads of /proc/zoneinfo: known, no counting ($(reader vmtoolsd /proc/zoneinfo verdict))"
# The four, the Zabbix agent and the next readers (munin-node's awk among them).
n_collectors=$((5 + $(wc -w <<<"$NEXT_READERS")))
diag "figure: share_off_monitored_next=${off}% over 60 s, $n_collectors collectors reading (target >= 95%)"
ok $([ "$off" -ge 95 ]; echo $?) "counting stayed off ${off}% of 60 s with the $n_collectors collectors reading"
for c in $NEXT_READERS; do report "$c" /proc/vmstat; done
if [ "$off" -lt 95 ]; then
        { ctl readers; ctl history | tail -8; ctl; } 2>&1 | sed 's/^/#   /' >"$OUT"
fi
report vmtoolsd /proc/zoneinfo
systemctl stop dstat.service glances-stdout.service munin-poller.service snmpd.service munin-node.service \
        nmon-recording.service open-vm-tools.service

# Configurations that use the NUMA counters: collectl -sM; a Zabbix item on
# numa_hit (the agent's test mode, every 5 s, as the server's item would).
sed -i 's/^\(DaemonCommands = .*-s+YZ\)/\1M/' /etc/collectl.conf
grep -q '^DaemonCommands = .*-s+YZM' /etc/collectl.conf
ok $? "collectl's DaemonCommands with M (NUMA)"
systemctl restart collectl.service
wait_for 60 numa_stat_is 1
ok $? "collectl -sM turns counting on"
on=$(share on 30)
ok $([ "$on" -ge 95 ]; echo $?) "  and keeps it on while it reads every 10 s (${on}% of 30 s)"
is "$(reader collectl /sys/devices/system/node/node0/numastat verdict)" known-counts "  its numastat reads: known-counts"
report collectl /sys/devices/system/node/node0/numastat
sed -i 's/^\(DaemonCommands = .*-s+YZ\)M/\1/' /etc/collectl.conf
systemctl restart collectl.service
wait_for 60 numa_stat_is 0
ok $? "collectl back to Debian's configuration: counting off again"
systemd-run --quiet --unit=zabbix-item sh -c 'while :; do
        "$1" -c "$2" -t "vfs.file.regexp[/proc/vmstat,^numa_hit]" >/dev/null 2>&1
        sleep 5; done' sh "$ZBX" "$ZBX_CONF"
wait_for 60 numa_stat_is 1
ok $? "a Zabbix item on numa_hit turns counting on"
on=$(share on 20)
ok $([ "$on" -ge 95 ]; echo $?) "  and keeps it on while it is fetched every 5 s (${on}% of 20 s)"
is "$(reader "$ZBX" /proc/vmstat verdict)" known-counts "  the agent's reads: known-counts"
report "$ZBX" /proc/vmstat
systemctl stop zabbix-item.service collectl.service "$ZBX_UNIT"
wait_for 60 numa_stat_is 0
ok $? "the item stopped: counting off again"

# ---- 2. readers that need the counters turn counting on and keep it on ------------------
numastat > /dev/null
wait_for 10 numa_stat_is 1
ok $? "numastat turns counting on"
is "$(reader numastat /sys/devices/system/node/node0/numastat verdict)" known-counts "  judged known-counts"
report numastat /sys/devices/system/node/node0/numastat
wait_for 60 numa_stat_is 0
ok $? "counting off again after linger"

echo 'ARGS="--collector.vmstat.fields=^(numa_|pg).*"' > /etc/default/prometheus-node-exporter
systemctl restart prometheus-node-exporter.service
wait_for 30 numa_stat_is 1
ok $? "node_exporter with --collector.vmstat.fields=^(numa_|pg).*: its scrapes turn counting on"
on=$(share on 20)
ok $([ "$on" -ge 95 ]; echo $?) "  and keep it on while scraped (${on}% of 20 s)"
is "$(reader prometheus-node /proc/vmstat why)" "counts: --collector.vmstat.fields matches numa_hit" "  because the regex matches numa_hit"
kept_on_by prometheus-node node_exporter
echo 'ARGS=""' > /etc/default/prometheus-node-exporter
systemctl restart prometheus-node-exporter.service
wait_for 60 numa_stat_is 0
ok $? "node_exporter back to its defaults: counting off again"

mkdir -p /etc/collectd/collectd.conf.d
echo 'LoadPlugin numa' > /etc/collectd/collectd.conf.d/numa.conf
systemctl restart collectd.service
wait_for 30 numa_stat_is 1
ok $? "collectd with LoadPlugin numa turns counting on"
on=$(share on 30)
ok $([ "$on" -ge 95 ]; echo $?) "  and keeps it on while it reads every 10 s (${on}% of 30 s)"
is "$(reader collectd /sys/devices/system/node/node0/numastat verdict)" known-counts "  its numastat reads: known-counts"
report collectd /sys/devices/system/node/node0/numastat
rm /etc/collectd/collectd.conf.d/numa.conf
systemctl restart collectd.service
wait_for 60 numa_stat_is 0
ok $? "collectd without the numa plugin: counting off again"

t=$SECONDS
# apt orders the packages (pre-dependencies); the image has no lists or caches.
# The load pauses meanwhile: under TCG it would double the install's time.
mkdir -p /var/cache/apt/archives/partial /var/lib/apt/lists/partial
kill -STOP "$LOAD"
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /var/lib/numastatd-vmtest/debs/*.deb \
        > "$STATE/pcp.log" 2>&1
r=$?
kill -CONT "$LOAD"
ok $r "pcp installed with apt under systemd ($((SECONDS - t)) s)"
[ $r -eq 0 ] || grep -iE -B3 -A3 "error|fail" "$STATE/pcp.log" | tail -30 | sed 's/^/#   /' >"$OUT"
# pmlogger and pmie fetch on their own; pmval is the reader here.
systemctl stop pmlogger.service pmie.service 2>/dev/null
systemctl start pmcd.service
wait_for 60 is_active pmcd.service
ok $? "pmcd is active"
wait_for 60 numa_stat_is 0
ok $? "with the load back, counting is off before pmval starts"
# Fetches for up to 2 minutes: stopped once checked (under TCG the checks
# take longer than their nominal seconds).
pmval -t 2 -s 60 mem.vmstat.numa_hit > "$STATE/pmval.out" 2>&1 &
PMVAL=$!
wait_for 30 numa_stat_is 1
ok $? "PCP: pmval mem.vmstat.numa_hit every 2 s turns counting on"
on=$(share on 20)
ok $([ "$on" -ge 95 ]; echo $?) "  and keeps it on while it fetches (${on}% of 20 s)"
is "$(reader pmdalinux /proc/vmstat verdict)" known-counts "  pmdalinux's reads of /proc/vmstat: known-counts"
report pmdalinux /proc/vmstat
kill "$PMVAL" 2>/dev/null
wait "$PMVAL"
wait_for 60 numa_stat_is 0
ok $? "pmval done: counting off again"
# pmcd's own stop takes 90 s under TCG at poweroff: it is done here.
systemctl kill --signal=KILL pmcd.service 2>/dev/null

# ---- 3. netdata, judged by its netdata.conf (read inside its root) -------------------
# The image is packed with owner 0:0: netdata's own directories go back to it.
mkdir -p /var/log/netdata /var/lib/netdata /var/cache/netdata
chown -R netdata:netdata /var/log/netdata /var/lib/netdata /var/cache/netdata
NDCONF=/etc/netdata/netdata.conf
cp "$NDCONF" "$STATE/netdata.conf.orig"
# Debian's netdata.conf, with what this test does not need turned off: under
# TCG, apps.plugin, machine learning and health checks take the VM's CPUs
# for minutes, and netdata's proc plugin read /proc/vmstat once in 4 min.
# Nothing here is what numastatd judges netdata by.
printf '%s\n' '[plugins]' 'apps = no' 'charts.d = no' 'python.d = no' 'go.d = no' 'cgroups = no' \
        'tc = no' 'perf = no' 'slabinfo = no' 'ioping = no' 'fping = no' 'nfacct = no' 'cups = no' \
        'idlejitter = no' 'statsd = no' 'ebpf = no' 'diskspace = no' 'enable running new plugins = no' \
        '[health]' 'enabled = no' '[ml]' 'enabled = no' >> "$NDCONF"
old_pid=$(reader netdata /proc/vmstat pid)
systemctl start netdata.service
wait_for 60 is_active netdata.service
ok $? "netdata.service is active (Debian's netdata.conf)"
wait_for 240 read_by_other netdata /proc/vmstat "$old_pid"
ok $? "netdata reads /proc/vmstat"
wait_for 30 numa_stat_is 1
ok $? "netdata with Debian's netdata.conf turns counting on (2 nodes: its numa charts are auto)"
on=$(share on 20)
ok $([ "$on" -ge 95 ]; echo $?) "  and keeps it on while it reads every second (${on}% of 20 s)"
is "$(reader netdata /proc/vmstat verdict)" known-counts "  its /proc/vmstat reads: known-counts"
report netdata /proc/vmstat
report netdata /sys/devices/system/node/node0/numastat
kept_on_by netdata netdata

printf '\n[plugin:proc:/proc/vmstat]\n\tsystem-wide numa metric summary = no\n[plugin:proc:/sys/devices/system/node]\n\tenable per-node numa metrics = no\n' >>"$NDCONF"
old_pid=$(reader netdata /proc/vmstat pid)
systemctl restart netdata.service
wait_for 60 is_active netdata.service
wait_for 240 read_by_other netdata /proc/vmstat "$old_pid"
ok $? "the restarted netdata reads /proc/vmstat again (pid $(reader netdata /proc/vmstat pid), was $old_pid)"
wait_for 60 numa_stat_is 0
ok $? "netdata with its numa charts off in netdata.conf: counting goes off"
n0=$(reader netdata /proc/vmstat count)
off=$(share off 20)
n1=$(reader netdata /proc/vmstat count)
ok $([ "$off" -ge 95 ] && [ "$n1" -ge $((n0 + 5)) ]; echo $?) \
        "  and stays off while netdata reads (${off}% of 20 s; its reads went from $n0 to $n1)"
is "$(reader netdata /proc/vmstat why)" "known netdata: netdata.conf turns the system-wide numa metric summary off" \
        "  why: netdata.conf, read by numastatd under its unit"
report netdata /proc/vmstat
systemctl stop netdata.service
cp "$STATE/netdata.conf.orig" "$NDCONF"

# ---- 4. node_exporter from its upstream image: a root and mount namespace of its own ---
# The image's layout: /bin/node_exporter, the host's /proc bind-mounted at
# /host/proc. A copy of the packaged binary (another inode: only its path in
# its root makes it known).
C=/srv/node-exporter-image
mkdir -p "$C/bin" "$C/host/proc" "$C/proc" "$C/sys" "$C/lib" "$C/lib64"
cp /usr/bin/prometheus-node-exporter "$C/bin/node_exporter"
for l in $(ldd "$C/bin/node_exporter" | grep -o '/[^ ]*'); do mkdir -p "$C${l%/*}"; cp "$l" "$C$l"; done
systemd-run --quiet --unit=container-ne unshare -m sh -c '
        mount --bind /proc "$1/host/proc" && mount --bind /sys "$1/sys" &&
        exec chroot "$1" /bin/node_exporter --path.procfs=/host/proc --path.sysfs=/sys \
                --web.listen-address=127.0.0.1:9101' sh "$C"
wait_for 30 is_active container-ne.service
ok $? "a containerised node_exporter runs (unshare -m, chroot, /host/proc)"
systemd-run --quiet --unit=scraper-ne sh -c 'while :; do curl -s -o /dev/null http://127.0.0.1:9101/metrics; sleep 1; done'
# Its first read may count while the look into its root is under way
# (judged_known; under TCG on Debian 11's kernel a look took 163 ms).
# Then from counting off, past that linger.
wait_for 30 seen node_exporter /proc/vmstat
wait_for 30 judged_known node_exporter /proc/vmstat
ok $? "  its reads of /host/proc/vmstat: known, found as /bin/node_exporter in its root ($(reader node_exporter /proc/vmstat why))"
wait_for 60 numa_stat_is 0
n0=$(reader node_exporter /proc/vmstat count)
off=$(share off 15)
n1=$(reader node_exporter /proc/vmstat count)
ok $([ "$off" -ge 95 ] && [ "$n1" -ge $((n0 + 5)) ]; echo $?) \
        "  counting stays off while it is scraped (${off}% of 15 s; its reads went from $n0 to $n1)"
report node_exporter /proc/vmstat
systemctl stop scraper-ne.service container-ne.service

finish
