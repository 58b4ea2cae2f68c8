#!/bin/bash
# The known-readers catalogue against the real programs on this machine's
# real /proc (the daemon on / in --dry-run: it writes nothing): sysstat's
# sadc, atop, procps vmstat and collectd's swap and vmem plugins read
# /proc/vmstat and are judged to need no counting, by their binaries, even
# when they exit before the daemon looks (exit records); collectd's numa
# plugin's reads of the node numastat files and numastat's count.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN"
if [ ! -r /proc/vmstat ] || ! ls /sys/devices/system/node/node0/numastat >/dev/null 2>&1; then
        echo "1..0 # SKIP this kernel has no NUMA statistics files (no CONFIG_NUMA)"
        exit 0
fi

DIR=$(mktemp -d /tmp/numastatd-known-real-XXXXXX); cleanup_trees+=("$DIR")
chmod 755 "$DIR"
printf '[policy]\nmode = auto\n[readers]\nlinger = 1s\n' > "$DIR/conf"
SOCK="$DIR/sock"
"$NUMASTATD" --dry-run --socket="$SOCK" --runtime-dir="$DIR" --config="$DIR/conf" >"$DIR/log" 2>&1 &
DAEMON_PID=$!
up() { ctl status > /dev/null 2>&1; }
wait_for 10 up
ok $? "numastatd on this machine's /proc, dry run, with the shipped catalogue"
if [ "$(ctl --json=short | json_get sources.readers)" != true ]; then
        echo "# fanotify unavailable: $(ctl --json=short | json_get sources.readers_error)"
        done_testing
        exit
fi

# verdict_of COMM PATH: "VERDICT KNOWN" of COMM's reads of PATH, or "none".
verdict_of() {
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["comm"] == sys.argv[1] and r["path"] == sys.argv[2]]
print("%s %s" % (r[0]["verdict"], r[0]["known"]) if r else "none")' "$1" "$2"
}
seen() { [ "$(verdict_of "$1" "$2")" != none ]; }
# judged DESCRIPTION COMM PATH EXPECTED: waits until COMM's read of PATH is in the table, then checks its verdict.
judged() {
        wait_for 10 seen "$2" "$3"
        is "$(verdict_of "$2" "$3")" "$4" "$1"
}

if [ -x /usr/lib/sysstat/sadc ]; then
        /usr/lib/sysstat/sadc -S ALL 1 2 "$DIR/sa" > /dev/null 2>&1
        judged "sysstat's sadc (one-off): /proc/vmstat needs no counting" sadc /proc/vmstat "known sysstat"
else
        skip "sysstat is not installed (scripts/install-deps.sh --test installs it)"
fi
# At the paths of RHEL, Fedora, SUSE and the upstream tarball, inside a root
# of its own (a RHEL container, say): a copy of sadc there is sysstat too.
# verdict_of_exe EXE PATH: "VERDICT KNOWN" of the reads of PATH by the binary EXE.
verdict_of_exe() {
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["exe"] == sys.argv[1] and r["path"] == sys.argv[2]]
print("%s %s" % (r[-1]["verdict"], r[-1]["known"]) if r else "none")' "$1" "$2"
}
judged_as() { [ "$(verdict_of_exe "$1" "$2")" = "$3" ]; }
if [ -x /usr/lib/sysstat/sadc ]; then
        for p in /usr/lib64/sa/sadc /usr/local/lib64/sa/sadc /usr/local/lib/sa/sadc; do
                R=$(mktemp -d "$DIR/root-XXXXXX")
                mkdir -p "$R${p%/*}" "$R/proc" "$R/tmp" "$R/lib64" "$R/lib/x86_64-linux-gnu"
                cp /usr/lib/sysstat/sadc "$R$p"
                for l in $(ldd /usr/lib/sysstat/sadc | grep -o '/[^ ]*'); do cp "$l" "$R$l"; done
                # Five samples a second apart: alive while the daemon looks into its root.
                unshare -m sh -c 'mount --bind /proc "$1/proc" && exec chroot "$1" "$2" 1 5 /tmp/sa' sh "$R" "$p" \
                        > "$R.log" 2>&1 &
                SADC=$!
                wait_for 10 judged_as "$R$p" /proc/vmstat "known sysstat"
                ok $? "sadc as $p in a root of its own: /proc/vmstat needs no counting ($(verdict_of_exe "$R$p" /proc/vmstat))"
                wait "$SADC"
        done
else
        skip "sysstat is not installed (scripts/install-deps.sh --test installs it)"
fi
# vmtoolsd runs only on VMware: a stand-in at its path in a root of its own
# (dash reading what the guestInfo plugin reads, a second apart).
R=$(mktemp -d "$DIR/root-XXXXXX")
mkdir -p "$R/usr/bin" "$R/bin" "$R/proc" "$R/lib64" "$R/lib/x86_64-linux-gnu"
cp /bin/dash "$R/usr/bin/vmtoolsd"
cp /bin/sleep "$R/bin/sleep"
for l in $(ldd /bin/dash /bin/sleep | grep -o '/[^ ]*' | sort -u); do cp "$l" "$R$l"; done
unshare -m sh -c 'mount --bind /proc "$1/proc" && exec chroot "$1" /usr/bin/vmtoolsd -c "
        for i in 1 2 3 4 5; do read x < /proc/vmstat; read x < /proc/zoneinfo; /bin/sleep 1; done"' sh "$R" \
        > "$R.log" 2>&1 &
VMTOOLSD=$!
wait_for 10 judged_as "$R/usr/bin/vmtoolsd" /proc/vmstat "known open-vm-tools"
ok $? "vmtoolsd (a stand-in at /usr/bin/vmtoolsd): /proc/vmstat needs no counting ($(verdict_of_exe "$R/usr/bin/vmtoolsd" /proc/vmstat))"
wait_for 10 judged_as "$R/usr/bin/vmtoolsd" /proc/zoneinfo "known open-vm-tools"
ok $? "  nor /proc/zoneinfo ($(verdict_of_exe "$R/usr/bin/vmtoolsd" /proc/zoneinfo))"
wait "$VMTOOLSD"
# netdata's static build, installed in /opt/netdata, keeps its own
# netdata.conf there: a stand-in (dash running a script, no -c) at its path
# in a root of its own reads what proc.plugin reads. Its NUMA charts turned
# off there: known; left on: its reads count.
node_file=$(ls /sys/devices/system/node/node*/numastat | head -n 1)
R=$(mktemp -d "$DIR/root-XXXXXX")
mkdir -p "$R/opt/netdata/bin" "$R/opt/netdata/etc/netdata" "$R/bin" "$R/proc" "$R/sys" "$R/lib64" \
         "$R/lib/x86_64-linux-gnu"
cp /bin/dash "$R/opt/netdata/bin/netdata"
cp /bin/sleep "$R/bin/sleep"
for l in $(ldd /bin/dash /bin/sleep | grep -o '/[^ ]*' | sort -u); do cp "$l" "$R$l"; done
printf 'for i in 1 2 3 4 5 6 7 8 9 10; do read x < /proc/vmstat; read x < %s; /bin/sleep 1; done\n' "$node_file" \
        > "$R/charts.sh"
# netdata_static: the stand-in, alive about 10 s, as a background job.
netdata_static() {
        unshare -m sh -c 'mount --bind /proc "$1/proc" && mount --rbind /sys "$1/sys" &&
                exec chroot "$1" /opt/netdata/bin/netdata /charts.sh' sh "$R" > "$R.log" 2>&1 &
        NETDATA=$!
}
printf '[plugin:proc:/proc/vmstat]\n\tsystem-wide numa metric summary = no\n' > "$R/opt/netdata/etc/netdata/netdata.conf"
printf '[plugin:proc:/sys/devices/system/node]\n\tenable per-node numa metrics = no\n' \
        >> "$R/opt/netdata/etc/netdata/netdata.conf"
netdata_static
wait_for 10 judged_as "$R/opt/netdata/bin/netdata" /proc/vmstat "known netdata-static"
ok $? "netdata's static build (a stand-in in /opt/netdata), its netdata.conf there turning NUMA off: known ($(verdict_of_exe "$R/opt/netdata/bin/netdata" /proc/vmstat))"
wait_for 10 judged_as "$R/opt/netdata/bin/netdata" "$node_file" "known netdata-static"
ok $? "  and its reads of $node_file ($(verdict_of_exe "$R/opt/netdata/bin/netdata" "$node_file"))"
kill "$NETDATA"; wait "$NETDATA" 2>/dev/null
# The per-node charts back on (auto, the default): those reads count, the vmstat ones still not.
sed -i 's/enable per-node numa metrics = no/enable per-node numa metrics = auto/' "$R/opt/netdata/etc/netdata/netdata.conf"
netdata_static
wait_for 10 judged_as "$R/opt/netdata/bin/netdata" "$node_file" "known-counts netdata-static"
ok $? "  per-node NUMA charts on (auto) in its netdata.conf: its reads of the node file count ($(verdict_of_exe "$R/opt/netdata/bin/netdata" "$node_file"))"
kill "$NETDATA"; wait "$NETDATA" 2>/dev/null
if command -v atop > /dev/null; then
        atop -w "$DIR/atop.raw" 1 2 > /dev/null 2>&1
        judged "atop -w: /proc/vmstat needs no counting" atop /proc/vmstat "known atop"
else
        skip "atop is not installed (scripts/install-deps.sh --test installs it)"
fi
vmstat 1 2 > /dev/null
judged "procps vmstat: /proc/vmstat needs no counting" vmstat /proc/vmstat "known procps-vmstat"
if command -v nmon > /dev/null; then
        # Recording as from cron: two snapshots a second apart (it forks
        # into the background and ends after them).
        nmon -f -s 1 -c 2 -m "$DIR" > /dev/null 2>&1
        judged "nmon -f: /proc/vmstat needs no counting" nmon /proc/vmstat "known nmon"
else
        skip "nmon is not installed (scripts/install-deps.sh --test installs it)"
fi
# kept_on_by COMM: status names COMM among the readers keeping counting on, as counted by its entry.
# Asked while COMM still reads: a finished reader's reads linger only 1 s,
# which a loaded machine can spend before the question is asked.
kept_on_by() { ctl | sed -n '/^  Kept on by: /,/^ *cost: /p' | grep -Eq "^ +(Kept on by: )?$1 \\(.*; counts: "; }
if command -v numastat > /dev/null; then
        numastat > /dev/null
        judged "numastat: its reads count" numastat /sys/devices/system/node/node0/numastat "known-counts numastat"
        contains "$(ctl readers | grep '^numastat ')" "counts: numastat prints the NUMA counters" "  and readers says why"
else
        skip "numastat is not installed (Debian package numactl; scripts/install-deps.sh --test installs it)"
        skip "numastat is not installed"
fi

if command -v collectd > /dev/null; then
        # Debian's example configuration loads swap (which reads /proc/vmstat);
        # vmem and numa are what a NUMA-minded admin adds.
        printf 'Interval 1\nLoadPlugin swap\nLoadPlugin vmem\nLoadPlugin numa\nLoadPlugin csv\n<Plugin csv>\n  DataDir "%s/csv"\n</Plugin>\n' \
                "$DIR" > "$DIR/collectd.conf"
        collectd -f -C "$DIR/collectd.conf" -P "$DIR/collectd.pid" > "$DIR/collectd.log" 2>&1 &
        CD=$!
        judged "collectd (swap, vmem): /proc/vmstat needs no counting" collectd /proc/vmstat "known collectd"
        judged "collectd's numa plugin: the node numastat reads count" collectd /sys/devices/system/node/node0/numastat \
                "known-counts collectd"
        # Its numa plugin reads every second, so it keeps counting on while it runs.
        wait_for 10 kept_on_by collectd
        ok $? "status says what keeps counting on: Kept on by: collectd (while it reads)"
        kill "$CD"
        wait "$CD" 2>/dev/null
else
        skip "collectd is not installed (scripts/install-deps.sh --test installs collectd-core)"
        skip "collectd is not installed"
        skip "collectd is not installed: no collector keeps counting on"
fi

# ---- the next collectors, from Debian: their own binaries and scripts ----
if [ -x /usr/sbin/snmpd ]; then
        # Debian's snmpd.conf, on a port of its own; it reads /proc/vmstat every 5 s, polled or not.
        /usr/sbin/snmpd -f -Lo -C -c /etc/snmp/snmpd.conf -p "$DIR/snmpd.pid" -I -smux,mteTrigger,mteTriggerConf \
                udp:127.0.0.1:16161 > "$DIR/snmpd.log" 2>&1 &
        SN=$!
        judged "net-snmp's snmpd, Debian's configuration: /proc/vmstat needs no counting" snmpd /proc/vmstat \
                "known net-snmp"
        kill "$SN"
        wait "$SN" 2>/dev/null
else
        skip "snmpd is not installed (scripts/install-deps.sh --test installs it)"
fi
# The Zabbix agents read what the server's items ask for: a swap item and
# an item on numa_hit read the same file, and both count.
for agent in zabbix_agent2 zabbix_agentd; do
        if [ -x "/usr/sbin/$agent" ]; then
                "/usr/sbin/$agent" -c "/etc/zabbix/$agent.conf" -t 'vfs.file.regexp[/proc/vmstat,^numa_hit]' \
                        > "$DIR/$agent.out" 2>&1
                contains "$(cat "$DIR/$agent.out")" "numa_hit" "$agent: an item on numa_hit reads it"
                judged "$agent: its reads count (what the server's items use cannot be told)" "$agent" /proc/vmstat \
                        "known-counts zabbix-agent"
        else
                skip "$agent is not installed (scripts/install-deps.sh --test installs it)"
                skip "$agent is not installed"
        fi
done
# Interpreted: recognised by the script their interpreter runs.
if command -v dstat > /dev/null; then
        dstat --vm --zones 1 2 > /dev/null 2>&1
        judged "dstat (python3 /usr/bin/dstat): /proc/vmstat needs no counting" dstat /proc/vmstat "known dstat"
        judged "dstat --zones: /proc/zoneinfo needs no counting" dstat /proc/zoneinfo "known dstat"
else
        skip "dstat is not installed (scripts/install-deps.sh --test installs it)"
        skip "dstat is not installed"
fi
if command -v glances > /dev/null; then
        timeout 20 glances --stdout memswap.sin --stop-after 2 > /dev/null 2>&1
        judged "glances: /proc/vmstat needs no counting" glances /proc/vmstat "known glances"
else
        skip "glances is not installed (scripts/install-deps.sh --test installs it)"
fi
if command -v collectl > /dev/null; then
        collectl -sm -i1 -c2 > /dev/null 2>&1
        judged "collectl -sm (perl -w /usr/bin/collectl): /proc/vmstat needs no counting" collectl /proc/vmstat \
                "known collectl"
        collectl -sM -i1 -c2 > /dev/null 2>&1
        judged "collectl -sM: the node numastat reads count" collectl /sys/devices/system/node/node0/numastat \
                "known-counts collectl"
else
        skip "collectl is not installed (scripts/install-deps.sh --test installs it)"
        skip "collectl is not installed"
fi
# Run by a known program: munin-node's swap plugin reads /proc/vmstat
# through awk, under sh, under the connection's munin-node, under
# munin-node: awk is judged by the first program above it that is not a
# generic one. The same awk under a plain shell counts.
if [ -x /usr/sbin/munin-node ] && [ -x /etc/munin/plugins/swap ]; then
        mkdir -p "$DIR/munin"
        sed -e "s|^log_file .*|log_file $DIR/munin/munin-node.log|" -e "s|^pid_file .*|pid_file $DIR/munin/munin-node.pid|" \
            -e 's|^background 1|background 0|' -e 's|^setsid 1|setsid 0|' -e 's|^host \*|host 127.0.0.1|' \
            -e 's|^port 4949|port 14949|' /etc/munin/munin-node.conf > "$DIR/munin/munin-node.conf"
        # As Debian's unit runs it (ProtectSystem=full): /usr and /etc bound
        # read-only over themselves, in a mount namespace of its own. Its
        # script is found across those binds, which are of the root's own
        # file system.
        unshare -m --propagation private sh -c 'mount --bind /usr /usr && mount -o remount,bind,ro /usr &&
                mount --bind /etc /etc && mount -o remount,bind,ro /etc && exec munin-node --config "$1"' \
                sh "$DIR/munin/munin-node.conf" > "$DIR/munin/out" 2>&1 &
        MN=$!
        poll() { printf 'fetch swap\nquit\n' | timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/14949 && cat >&3 && cat <&3'; }
        polled() { poll | grep -q '^swap_in.value'; }
        wait_for 20 polled
        ok $? "munin-node (Debian's configuration, a port of its own, /usr and /etc read-only) answers a fetch of swap"
        awk_known() { poll > /dev/null; [ "$(verdict_of awk /proc/vmstat)" = "known munin-node" ]; }
        wait_for 20 awk_known
        ok $? "awk under munin-node's swap plugin: known munin-node (run by it)"
        contains "$(ctl readers | grep '^awk ')" "known munin-node (run by it): its core plugins keep pswpin and pswpout only" \
                 "  and readers says why"
        kill "$MN"
        wait "$MN" 2>/dev/null
        N=$(ctl --json=short readers | python3 -c 'import json, sys
print(sum(r["count"] for r in json.load(sys.stdin) if r["comm"] == "awk"))')
        sh -c 'awk "/pswpin/" < /proc/vmstat > /dev/null; sleep 1'
        more_awk() { [ "$(ctl --json=short readers | python3 -c 'import json, sys
print(sum(r["count"] for r in json.load(sys.stdin) if r["comm"] == "awk"))')" -gt "$N" ]; }
        wait_for 10 more_awk
        # Root's awk (the plugin's ran as nobody).
        is "$(ctl --json=short readers | python3 -c 'import json, sys
print(" ".join(r["verdict"] for r in json.load(sys.stdin) if r["comm"] == "awk" and r["uid"] == 0))')" unknown \
           "the same awk under a plain shell counts"
else
        skip "munin-node is not installed (scripts/install-deps.sh --test installs munin-node and munin-plugins-core)"
        skip "munin-node is not installed"
        skip "munin-node is not installed"
        skip "munin-node is not installed"
fi

# A script the catalogue does not name counts, whatever it is called; so
# does a copy of a catalogued script (another inode), run as dstat is run
# (its comm is dstat too).
if command -v dstat > /dev/null; then
        python3 -c 'import time; open("/proc/vmstat").read(); time.sleep(1)' &
        judged "python3 -c CODE: no script, counts" python3 /proc/vmstat "unknown None"
        cp /usr/bin/dstat "$DIR/dstat"
        count_of() {
                ctl --json=short readers | python3 -c 'import json, sys
print(sum(r["count"] for r in json.load(sys.stdin) if r["comm"] == sys.argv[1] and r["path"] == "/proc/vmstat"))' "$1"
        }
        N=$(count_of dstat)
        "$DIR/dstat" --vm 1 2 > /dev/null 2>&1
        more_reads() { [ "$(count_of dstat)" -gt "$N" ]; }
        wait_for 10 more_reads
        is "$(verdict_of dstat /proc/vmstat)" "unknown None" "a copy of dstat elsewhere, comm dstat: another inode, counts"
else
        skip "dstat is not installed"
        skip "dstat is not installed"
fi

stop_daemon
is "$DAEMON_STATUS" 0 "the daemon stops cleanly"
done_testing
