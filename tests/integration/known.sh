#!/bin/bash
# Known readers, judged by what they export: the real prometheus-node-exporter
# scraped every 300 ms on a --root tree under allocation pressure, with the
# shipped catalogue (conf/readers.d). With its default collectors its reads of
# /proc/vmstat need no counting and counting stays off; with a
# --collector.vmstat.fields that matches numa_* they count. Operator rules win
# (count =, known = no); an override masks an entry; a broken one is reported
# with FILE:LINE. A copy at /bin/node_exporter inside a process's own root
# (the upstream image) is recognised, and such a verdict only affects the
# process that earned it: an unknown reader still turns counting on.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN"
NE=$(command -v prometheus-node-exporter || true)
if [ -z "$NE" ]; then
        echo "1..0 # SKIP prometheus-node-exporter is missing (scripts/install-deps.sh --test installs it)"
        exit 0
fi
fake_kernel_tree known
auto_conf > "$T/conf"
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with the shipped catalogue"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure, no reader: counting off"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
NEPID=
# exporter ARGS...: (re)starts node_exporter on the tree, as a collector on a
# monitored host runs it, and waits until it serves.
exporter() {
        [ -z "$NEPID" ] || { kill "$NEPID"; wait "$NEPID" 2>/dev/null; }
        "$@" --web.listen-address="127.0.0.1:$PORT" --path.procfs="$T/proc" --path.sysfs="$T/sys" \
                > "$T/node_exporter.log" 2>&1 &
        NEPID=$!
        wait_for 10 scrape_once
}
exporter_in() {  # exporter_in ROOT ARGS...: the same, chrooted in a mount namespace of its own
        local root=$1
        shift
        [ -z "$NEPID" ] || { kill "$NEPID"; wait "$NEPID" 2>/dev/null; }
        unshare -m sh -c 'tree=$1 root=$2 port=$3; shift 3
                mount --bind "$tree/proc" "$root/host/proc" && mount --bind "$tree/sys" "$root/host/sys" &&
                exec chroot "$root" "$@" --web.listen-address="127.0.0.1:$port" --path.procfs=/host/proc --path.sysfs=/host/sys' \
                sh "$T" "$root" "$PORT" "$@" > "$T/node_exporter.log" 2>&1 &
        NEPID=$!
        wait_for 10 scrape_once
}
scrape_once() { python3 -c 'import sys, urllib.request
urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read()' "$PORT" 2>/dev/null; }
# scrapes N: N scrapes 300 ms apart; prints how many of them found counting on
# right after (the daemon reacts to a counted read within milliseconds).
scrapes() {
        python3 - "$PORT" "$SYSCTL" "$1" <<'PY'
import sys, time, urllib.request
port, sysctl, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
on = 0
for _ in range(n):
    urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=5).read()
    time.sleep(0.3)
    on += open(sysctl).read().strip() == "1"
print(on)
PY
}
reader_json() {  # reader_json FIELD: FIELD of the prometheus-node (or node_exporter) reader of /proc/vmstat
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["comm"] in ("prometheus-node", "node_exporter") and r["path"] == "/proc/vmstat"]
v = r[-1][sys.argv[1]] if r else "none"
print(json.dumps(v) if not isinstance(v, str) else v)' "$1"
}

# ---- default collectors: known, counting stays off ----
exporter "$NE"
ok $? "node_exporter serves on 127.0.0.1:$PORT, reading the tree"
is "$(scrapes 15)" 0 "15 scrapes with default collectors: counting stayed off after every one"
is "$(reader_json verdict)" known "  its reads were judged known"
is "$(reader_json known)" prometheus-node-exporter "  by the prometheus-node-exporter entry"
contains "$(reader_json source)" "conf/readers.d/prometheus-node-exporter.conf:" "  whose file and line are the source"
is "$(reader_json ignored)" true "  so they do not count"
contains "$(ctl readers)" "prometheus-node (pid $NEPID, uid 0) read /proc/vmstat" "numastatctl readers names it"
contains "$(ctl readers | grep prometheus-node)" \
         "known prometheus-node-exporter: default collectors export no numa_* of /proc/vmstat" "  and says why its reads need no counting"
ok $(ctl metrics | grep -q '^numastatd_reads_total{comm="prometheus-node",file="/proc/vmstat",ignored="true",verdict="known",source=".*prometheus-node-exporter.conf:[0-9]*"} [0-9]'; echo $?) \
   "the metrics carry the verdict and its source"
conforms Status "a status with a known reader conforms to the interface file" <<< "$(ctl --json=short)"

# ---- a fields regex that matches numa_*: its reads count ----
exporter "$NE" '--collector.vmstat.fields=^(numa_|pg).*'
ok $? "node_exporter restarted with --collector.vmstat.fields=^(numa_|pg).*"
wait_for 10 sysctl_is 1
ok $? "  its first scrape turns counting on"
is "$(scrapes 10)" 10 "  and every scrape after finds it on"
is "$(reader_json verdict)" known-counts "  judged known-counts"
is "$(reader_json why)" "counts: --collector.vmstat.fields matches numa_hit" "  because the regex matches numa_hit"
# Within linger (1s) of a scrape: a loaded machine may take longer than
# that between the last scrape above and a status.
kept_on() { scrapes 1 > /dev/null; KEPT=$(ctl); [[ $KEPT == *"Kept on by: prometheus-node ("* ]]; }
wait_for 10 kept_on
ok $? "numastatctl status says what keeps counting on"
contains "$(grep -A1 'Kept on by' <<< "$KEPT")" "counts: --collector.vmstat.fields matches numa_hit" "  and why"
# The same option spelled as two words, and a regex matching no numa_* name.
exporter "$NE" --collector.vmstat.fields '^(pgpg|pswp).*'
ok $? "node_exporter restarted with --collector.vmstat.fields '^(pgpg|pswp).*'"
wait_for 10 sysctl_is 0
ok $? "  counting goes off again under pressure"
is "$(scrapes 10)" 0 "  its scrapes leave it off"

# ---- what node_exporter reads that glibc's regex or a plain argv would miss ----
# kingpin reads an argument @FILE as more arguments (one a line), as the
# process: here a file only root may read, naming a numa_* regex.
A=$(mktemp /var/tmp/numastatd-known-args-XXXXXX)
cleanup_trees+=("$A")
printf '# fields\n--collector.vmstat.fields=^(numa_|pg).*\n' > "$A"
chmod 600 "$A"
exporter "$NE" "@$A"
ok $? "node_exporter @FILE, the file naming --collector.vmstat.fields=^(numa_|pg).*"
if [ "$(stat -c %d "$A")" = "$(stat -c %d /)" ]; then
        wait_for 10 sysctl_is 1
        ok $? "  its reads count"
        is "$(reader_json why)" "counts: --collector.vmstat.fields matches numa_hit" "  judged by the file's arguments"
else
        skip "/var/tmp is not on the root file system: the file is never read (another mount), and counts"
        skip "/var/tmp is not on the root file system"
fi
# Go's RE2 reads \x6e as 'n'; glibc's ERE does not.
exporter "$NE" '--collector.vmstat.fields=^\x6euma_.*'
ok $? "node_exporter --collector.vmstat.fields='^\\x6euma_.*' (numa_* to Go)"
wait_for 10 sysctl_is 1
ok $? "  its reads count"
contains "$(reader_json why)" "uses what Go's RE2 and POSIX may read differently" "  and say why"
curl_numa() { python3 -c 'import sys, urllib.request
t = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
print(sum(1 for l in t.splitlines() if l.startswith("node_vmstat_numa_")))' "$PORT"; }
ok "$([ "$(curl_numa)" -gt 0 ]; echo $?)" "  (it does export node_vmstat_numa_*)"
exporter "$NE" --collector.vmstat.fields '^(pgpg|pswp).*'
wait_for 10 sysctl_is 0
ok $? "node_exporter back to a regex both read alike, matching no numa_*: counting off"

# ---- the operator's rules win ----
auto_conf "count = comm=prometheus-node path=/proc/vmstat" > "$T/conf"
ctl reload > /dev/null
is "$(scrapes 3)" 3 "count = comm=prometheus-node: every scrape counts"
is "$(reader_json verdict)" count-rule "  judged by the count rule"
contains "$(reader_json why)" "counts: by rule conf:11 (comm=prometheus-node path=/proc/vmstat)" "  which it names by file and line"
auto_conf "known = no" > "$T/conf"
ctl reload > /dev/null
# Before any read: the reader is judged again by the reload itself.
is "$(reader_json verdict)" unknown "the count rule removed by a reload: at once no longer shown as its verdict"
ok $(! ctl readers | grep prometheus-node | grep -q "by rule conf:11"; echo $?) "  nor named in numastatctl readers"
is "$(scrapes 3)" 3 "known = no: every scrape counts"
is "$(reader_json verdict)" unknown "  judged as an unknown reader"
is "$(ctl --json=short known-readers | json_get enabled)" false "  and known-readers says the catalogue is off"
auto_conf > "$T/conf"
ctl reload > /dev/null
wait_for 10 sysctl_is 0
ok $? "the catalogue back: counting off again"

# ---- the catalogue: listed, overridden, masked, checked ----
K=$(ctl known-readers)
for e in atop collectd netdata numastat pcp procps-vmstat prometheus-node-exporter sysstat; do
        ok $(echo "$K" | grep -q "^$e ($SRCDIR/conf/readers.d/$e.conf)$"; echo $?) "known-readers lists $e with its file"
done
contains "$K" "evidence: collector/vmstat_linux.go (1.5.0)" "  with the evidence"
contains "$K" "unless --collector.vmstat.fields matches a numa_* name (default ^(oom_kill|pgpg|pswp|pg.*fault).*)" \
         "  and the condition that makes node_exporter's reads count"
conforms KnownReader "the catalogue's entries conform to the interface file" \
         <<< "$(ctl --json=short known-readers | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["known_readers"][0]))')"

mkdir -p "$T/etc-readers"
: > "$T/etc-readers/prometheus-node-exporter.conf"
stop_daemon
NUMASTATD_KNOWN_READERS_PATH="$T/etc-readers:$SRCDIR/conf/readers.d" start_daemon "$T" --config="$T/conf"
ok $? "daemon restarted with an empty prometheus-node-exporter.conf of higher precedence"
contains "$(ctl known-readers)" "masked: prometheus-node-exporter" "  known-readers says it is masked"
wait_for 10 sysctl_is 1
ok $? "  node_exporter's next scrape counts"
printf '[reader]\nexe = /usr/bin/prometheus-node-exporter\n[file /proc/vmstat]\nwhy = local override\n' \
        > "$T/etc-readers/prometheus-node-exporter.conf"
ctl reload > /dev/null
scrapes 1 > /dev/null
wait_for 15 sysctl_is 0
ok $? "an override of the same name replaces the shipped entry on reload: counting off"
contains "$(ctl readers | grep prometheus-node)" "known prometheus-node-exporter: local override" "  judged by the override"
printf '[reader]\nexe = /usr/bin/prometheus-node-exporter\n[file /proc/vmstat]\nwhy = x\nbogus = 1\n' \
        > "$T/etc-readers/prometheus-node-exporter.conf"
out=$(NUMASTATD_KNOWN_READERS_PATH="$T/etc-readers" "$NUMASTATD" --config="$T/conf" --check-config 2>&1)
ok $([ $? -ne 0 ]; echo $?) "--check-config rejects a broken entry"
contains "$out" "$T/etc-readers/prometheus-node-exporter.conf:5: [file /proc/vmstat] bogus: unknown key" "  naming FILE:LINE"
out=$(ctl reload 2>&1)
ok $([ $? -ne 0 ]; echo $?) "a reload with a broken entry is rejected"
contains "$(ctl)" "prometheus-node-exporter.conf:5" "  and status shows the error"
wait_for 5 sysctl_is 0
ok $? "  the running catalogue stays: counting still off"
stop_daemon
start_daemon "$T" --config="$T/conf"
ok $? "daemon restarted with the shipped catalogue"
wait_for 15 sysctl_is 0
ok $? "  counting off"

# ---- a reader judged by its own configuration file (netdata's kind) ----
# A stand-in program (a copy of python3) with an entry of its own: its reads
# of /proc/vmstat need no counting only if the file --config names has
# [s] numa = no. Only a regular file is read (found through an O_PATH
# descriptor, so a FIFO or a device is never opened); the lookup crosses no
# mount (a user's FUSE mount could block the daemon), so the files go on the
# root file system.
X=$(mktemp -d "$T/extra-XXXXXX")
C=$(mktemp -d /var/tmp/numastatd-known-XXXXXX)
cleanup_trees+=("$C")
cp "$(readlink -f /usr/bin/python3)" "$X/standin"      # Debian's, not a wrapper on PATH
cat > "$X/standin.conf" <<EOF
[reader]
exe = $X/standin
[file /proc/vmstat]
why = its config turns numa off
config = /nonexistent/standin.conf
config_arg = --config
config_section = s
config_key = numa
config_value = no
EOF
printf '[s]\n\tnuma = no\n' > "$C/off.conf"
printf '[s]\n\tnuma = auto\n' > "$C/on.conf"
mkfifo "$C/fifo"
stop_daemon
NUMASTATD_KNOWN_READERS_PATH="$X:$SRCDIR/conf/readers.d" start_daemon "$T" --config="$T/conf"
ok $? "daemon restarted with a stand-in entry judged by its config file"
wait_for 15 sysctl_is 0
ok $? "  counting off"
# standin CONFIG: reads /proc/vmstat every 200 ms until killed, as "standin --config CONFIG".
standin() {
        "$X/standin" -c 'import sys, time
while True:
    open(sys.argv[1], "rb").read(); time.sleep(0.2)' "$T/proc/vmstat" --config "$1" &
        SPID=$!
}
standin_json() {
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["pid"] == int(sys.argv[1])]
print(r[0][sys.argv[2]] if r else "none")' "$SPID" "$1"
}
standin_seen() { [ "$(standin_json verdict)" != none ]; }
standin "$C/off.conf"
wait_for 10 standin_seen
if [ "$(stat -c %d "$C")" = "$(stat -c %d /)" ]; then
        is "$(standin_json verdict)" known "its config says numa = no: known"
        sysctl_is 0
        ok $? "  counting stayed off"
else
        skip "/var/tmp is not on the root file system: a config there is never read (another mount)"
        skip "/var/tmp is not on the root file system"
fi
kill "$SPID"; wait "$SPID" 2>/dev/null
standin "$T/off.conf.on-another-mount"
cp "$C/off.conf" "$T/off.conf.on-another-mount"
wait_for 10 standin_seen
is "$(standin_json why)" "counts: the file its command line names (--config) cannot be read" \
        "a config on another mount (tmpfs) is not read: counts (the option named, never its value)"
kill "$SPID"; wait "$SPID" 2>/dev/null
for c in on.conf fifo /dev/null /etc/shadow missing; do
        case $c in /*) f=$c ;; *) f=$C/$c ;; esac
        standin "$f"
        wait_for 10 standin_seen
        is "$(standin_json verdict)" known-counts "--config $c: its reads count"
        case $c in
        on.conf) is "$(standin_json why)" "counts: the file its command line names (--config) does not set [s] numa = no" \
                "  and say why, not what the file holds" ;;
        fifo|/dev/null) contains "$(standin_json why)" "cannot be read" "  not a regular file: not read" ;;
        esac
        kill "$SPID"; wait "$SPID" 2>/dev/null
done
wait_for 5 sysctl_is 1
ok $? "  counting is on for them"
wait_for 15 sysctl_is 0
ok $? "counting off again"

# A config file is opened as the reader that names it, never as root:
# uid 65534 naming a file only root may read gets nothing from it (its
# reads count), and learns nothing of it: whether it is there, or what it
# holds. (The same binary, copied where uid 65534 may run it.)
cp "$X/standin" "$C/standin"
chmod 755 "$C" "$C/standin"
printf '[s]\n\tnuma = no\n' > "$C/root-only.conf"
chmod 600 "$C/root-only.conf"
stop_daemon
sed -i "s|^exe = $X/standin\$|&\nexe = $C/standin|" "$X/standin.conf"
NUMASTATD_KNOWN_READERS_PATH="$X:$SRCDIR/conf/readers.d" start_daemon "$T" --config="$T/conf"
wait_for 15 sysctl_is 0
ok $? "daemon restarted, counting off"
nobody_standin() {
        setpriv --reuid=65534 --regid=65534 --clear-groups -- "$C/standin" -c 'import sys, time
while True:
    open(sys.argv[1], "rb").read(); time.sleep(0.2)' "$T/proc/vmstat" --config "$1" &
        SPID=$!
}
if [ "$(stat -c %d "$C")" = "$(stat -c %d /)" ]; then
        nobody_standin "$C/root-only.conf"
        wait_for 10 standin_seen
        is "$(standin_json verdict)" known-counts "uid 65534's --config naming a root-only file: its reads count"
        is "$(standin_json why)" "counts: the file its command line names (--config) cannot be read" "  as unreadable"
        wait_for 5 sysctl_is 1
        ok $? "  counting is on for it"
        kill "$SPID"; wait "$SPID" 2>/dev/null
        nobody_standin "$C/none-such.conf"
        wait_for 10 standin_seen
        is "$(standin_json why)" "counts: the file its command line names (--config) cannot be read" \
                "  a missing file reads the same"
        kill "$SPID"; wait "$SPID" 2>/dev/null
        chmod 644 "$C/root-only.conf"
        nobody_standin "$C/root-only.conf"
        wait_for 10 standin_seen
        is "$(standin_json verdict)" known "  made readable to it: known"
        kill "$SPID"; wait "$SPID" 2>/dev/null
else
        skip "/var/tmp is not on the root file system: a config there is never read (another mount)"
fi
wait_for 15 sysctl_is 0
ok $? "counting off again"

# ---- the upstream image: /bin/node_exporter inside its own root ----
R=$(mktemp -d "$T/image-XXXXXX")
mkdir -p "$R/bin" "$R/host/proc" "$R/host/sys" "$R/lib64" "$R/lib/x86_64-linux-gnu"
cp "$NE" "$R/bin/node_exporter"
for l in $(ldd "$NE" | grep -o '/[^ ]*'); do cp "$l" "$R$l"; done
exporter_in "$R" /bin/node_exporter
ok $? "node_exporter as /bin/node_exporter, chrooted, reads the tree through /host/proc"
is "$(scrapes 10)" 0 "  10 scrapes: counting stayed off"
is "$(reader_json known)" prometheus-node-exporter "  recognised by its executable inside its root"
# At the paths of SUSE's package, of the upstream tarball as the Ansible
# roles install it, and of the upstream example unit: the same entry.
known_at() {  # known_at EXE: the entry that knows the reads of /proc/vmstat by the binary EXE
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["exe"] == sys.argv[1] and r["path"] == "/proc/vmstat"]
print(r[-1]["known"] if r else "none")' "$1"
}
known_as_exporter() { [ "$(known_at "$1")" = prometheus-node-exporter ]; }
for p in /usr/bin/node_exporter /usr/local/bin/node_exporter /usr/sbin/node_exporter; do
        mkdir -p "$R${p%/*}"
        cp "$NE" "$R$p"
        exporter_in "$R" "$p"
        scrapes 2 > /dev/null
        wait_for 10 known_as_exporter "$R$p"
        ok $? "node_exporter as $p inside its root: known ($(known_at "$R$p"))"
done
exporter_in "$R" /bin/node_exporter '--collector.vmstat.fields=numa_hit'
wait_for 10 sysctl_is 1
ok $? "  with --collector.vmstat.fields=numa_hit its reads count"
kill "$NEPID"; wait "$NEPID" 2>/dev/null; NEPID=

# An unprivileged user who names any binary /bin/node_exporter in a root of
# their own fools the catalogue about their own reads only.
wait_for 15 sysctl_is 0
ok $? "counting off again"
U=$(mktemp -d /tmp/numastatd-user-XXXXXX)
cleanup_trees+=("$U")
mkdir -p "$U/bin" "$U/host/proc" "$U/lib64" "$U/lib/x86_64-linux-gnu"
cp /bin/dash "$U/bin/node_exporter"
for l in $(ldd /bin/dash | grep -o '/[^ ]*'); do cp "$l" "$U$l"; done
chown -R 65534:65534 "$U"
chmod 755 "$U"
mkfifo "$U/wait"
chown 65534:65534 "$U/wait"
# dash as /bin/node_exporter (its read builtin reads the file), alive until
# released through the FIFO: a reader gone before the daemon looks counts.
as_nobody unshare -Urm sh -c 'mount --bind "$1/proc" "$2/host/proc" && exec chroot "$2" /bin/node_exporter -c "
i=0; while [ \$i -lt 20 ]; do read x < /host/proc/vmstat; i=\$((i + 1)); done; : > /done; read x < /wait"' \
        sh "$T" "$U" > "$T/fake-exporter.log" 2>&1 &
FAKE_NE=$!
fake_reads() {
        ctl --json=short readers | python3 -c 'import json, sys
print(sum(r["count"] for r in json.load(sys.stdin) if r["comm"] == "node_exporter" and r["uid"] == 65534))'
}
# (Reads queued together are one event: fewer than 20 are seen.)
fake_read_seen() { [ "$(fake_reads)" -ge 1 ]; }
wait_for 10 test -e "$U/done" && wait_for 10 fake_read_seen
ok $? "uid 65534 read /proc/vmstat 20 times as a fake /bin/node_exporter in its own root"
sysctl_is 0
ok $? "  counting stayed off: its own reads were judged known"
echo > "$U/wait"
wait "$FAKE_NE"
cat "$T/proc/vmstat" > /dev/null
wait_for 5 sysctl_is 1
ok $? "  an unknown reader's read still turns counting on"

# ---- upstream agents Debian does not package: stand-ins at their paths ----
# In a root and mount namespace of their own, as their packages install
# them: a copy of dash at the agent's path reading /host/proc/vmstat every
# 200 ms (a static busybox as /bin/sleep), with the agent's command line
# and configuration files. Known by the path in their root; Telegraf judged
# by its configuration, read there.
A=$(mktemp -d "$T/agents-XXXXXX")
mkdir -p "$A/usr/bin" "$A/bin" "$A/host/proc" "$A/etc/telegraf/telegraf.d" "$A/lib64" "$A/lib/x86_64-linux-gnu"
cp /bin/dash "$A/usr/bin/telegraf"
cp /bin/dash "$A/usr/bin/newrelic-infra"
OPS=/opt/google-cloud-ops-agent/subagents/opentelemetry-collector
mkdir -p "$A/etc/alloy" "$A/etc/otelcol-contrib" "$A$OPS" "$A/run/google-cloud-ops-agent-opentelemetry-collector"
for b in alloy grafana-agent otelcol-contrib mongod; do cp /bin/dash "$A/usr/bin/$b"; done
cp /bin/dash "$A$OPS/otelopscol"
# The Datadog Agent's tree as its package lays it out: empty checks.d, its
# site-packages and the list of what the package put there.
DD=/opt/datadog-agent
SITE=$DD/embedded/lib/python3.12/site-packages
mkdir -p "$A$DD/bin/agent" "$A/etc/datadog-agent/checks.d" "$A/etc/datadog-agent/conf.d/disk.d" \
         "$A$SITE/datadog_checks/disk" "$A$SITE/datadog_disk-7.1.0.dist-info" "$A$SITE/__pycache__"
cp /bin/dash "$A$DD/bin/agent/agent"
printf 'api_key: 0123456789abcdef\nsite: datadoghq.com\n' > "$A/etc/datadog-agent/datadog.yaml"
printf 'init_config:\ninstances:\n  - use_mount: false\n' > "$A/etc/datadog-agent/conf.d/disk.d/conf.yaml.default"
{
        echo '# DO NOT REMOVE/MODIFY - used by package removal tasks'
        (cd "$A$DD" && find "./${SITE#"$DD"/}" -mindepth 1)
} > "$A$DD/embedded/.installed_by_pkg.txt"
# Their shipped configurations (tests/data/agents/: Alloy's and Grafana
# Agent's as packaged; the collector's host_metrics as Splunk's agent has it).
cp "$SRCDIR/tests/data/agents/alloy-config.alloy" "$A/etc/alloy/config.alloy"
cp "$SRCDIR/tests/data/agents/grafana-agent.yaml" "$A/etc/grafana-agent.yaml"
cp "$SRCDIR/tests/data/agents/otelcol-hostmetrics.yaml" "$A/etc/otelcol-contrib/config.yaml"
cp "$SRCDIR/tests/data/agents/otelcol-hostmetrics.yaml" "$A/run/google-cloud-ops-agent-opentelemetry-collector/otel.yaml"
for l in $(ldd /bin/dash | grep -o '/[^ ]*'); do cp "$l" "$A$l"; done
if [ -x /bin/busybox ]; then cp /bin/busybox "$A/bin/sleep"; else cp /bin/sleep "$A/bin/sleep"; fi
# Telegraf's default configuration's inputs (1.25's etc/telegraf.conf; later
# versions generate the same), kernel_vmstat's sample commented out.
cat > "$A/etc/telegraf/telegraf.conf" <<'EOF2'
[agent]
  interval = "10s"
[[outputs.file]]
  files = ["stdout"]
[[inputs.cpu]]
[[inputs.disk]]
[[inputs.diskio]]
[[inputs.kernel]]
[[inputs.mem]]
[[inputs.processes]]
[[inputs.swap]]
[[inputs.system]]
# # Get kernel statistics from /proc/vmstat
# [[inputs.kernel_vmstat]]
#   # no configuration
EOF2
# The stand-ins' loop, a script named "run": "PATH run ARGS..." is the
# command line Alloy's unit gives (a subcommand first), and the others'
# options are found wherever they are.
mkdir "$A/stand-in"
echo 'while :; do read x < /host/proc/vmstat; sleep 0.2; done' > "$A/stand-in/run"
# agent PATH ARGS...: runs the stand-in at PATH in the root as "PATH run ARGS..."; AGENT_PID.
agent() {
        local path=$1
        shift
        unshare -m sh -c 'mount --bind "$1/proc" "$2/host/proc" && root=$2 && path=$3 && shift 3 &&
                exec chroot "$root" "$path" -c "cd /stand-in && exec \"\$0\" run \"\$@\"" "$path" "$@"' \
                sh "$T" "$A" "$path" "$@" > "$T/agent.log" 2>&1 &
        AGENT_PID=$!
}
agent_json() {  # agent_json COMM FIELD: FIELD of COMM's latest entry for /proc/vmstat
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin) if r["comm"] == sys.argv[1] and r["path"] == "/proc/vmstat"]
print(max(r, key=lambda e: e["last_seen"])[sys.argv[2]] if r else "none")' "$1" "$2"
}
agent_judged() { [ "$(agent_json "$1" pid)" != none ] && [ "$(agent_json "$1" pid)" != "$2" ]; }
agent_stop() { kill "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; }

agent /usr/bin/newrelic-infra newrelic-infra
wait_for 10 agent_judged newrelic-infra none
is "$(agent_json newrelic-infra verdict) $(agent_json newrelic-infra known)" "known newrelic-infra" \
   "New Relic's agent (a stand-in at /usr/bin/newrelic-infra): known"
agent_stop
agent /usr/bin/mongod --config /etc/mongod.conf
wait_for 10 agent_judged mongod none
is "$(agent_json mongod verdict) $(agent_json mongod known)" "known mongodb" \
   "mongod (a stand-in at /usr/bin/mongod), its FTDC reads every second: known"
agent_stop
wait_for 15 sysctl_is 0
ok $? "counting off"

# judged COMM PATH ARGS... : runs the stand-in at PATH with ARGS until its read is judged; prints "VERDICT: WHY".
judged() {
        local comm=$1 path=$2 before
        shift 2
        before=$(agent_json "$comm" pid)
        ${AGENT_RUNNER:-agent} "$path" "$@"
        wait_for 10 agent_judged "$comm" "$before"
        wait_for 5 bash -c "'$NUMASTATCTL' --socket='$SOCK' --json=short readers | grep -q '\"pid\":$AGENT_PID,[^}]*\"verdict\":\"known'"
        echo "$(agent_json "$comm" verdict): $(agent_json "$comm" why)"
        agent_stop
}
telegraf_judged() { judged telegraf /usr/bin/telegraf "$@"; }
FORBIDDEN="known-counts: counts: a line of its configuration matches the entry's config_forbids="
UNIT_ARGS=(telegraf -config /etc/telegraf/telegraf.conf -config-directory /etc/telegraf/telegraf.d)
TELEGRAF_WHY="no inputs.kernel_vmstat in its configuration, nor a statistics file or a glob under /proc or /sys: swap's fields only"
is "$(telegraf_judged "${UNIT_ARGS[@]}")" "known: known telegraf: $TELEGRAF_WHY" \
   "Telegraf (a stand-in), its unit's command line, the default inputs: known"
# How it was judged, as an operator asks: by pid, by name, and as another user.
TPID=$(agent_json telegraf pid)
X=$(ctl known-readers --explain="$TPID")
ok $? "numastatctl known-readers --explain=PID (the stand-in's)"
contains "$X" "telegraf (pid $TPID, uid 0), $A/usr/bin/telegraf" "  names the process and its binary (as the host sees it)"
contains "$X" "  recognised by: /usr/bin/telegraf" "  how its entry recognises it"
contains "$X" "    entry: telegraf, $SRCDIR/conf/readers.d/telegraf.conf:" "  the entry and the section that decided"
contains "$X" "    why: known telegraf: $TELEGRAF_WHY" "  why"
contains "$X" "    read: its command line; /etc/telegraf/telegraf.conf as its configuration; /etc/telegraf/telegraf.d as its configuration directory (0 files); its environment" \
         "  what the look read: its command line, the files it names, its environment"
contains "$X" "      unless /etc/telegraf/telegraf.conf (or the file --config -config names) or a *.conf (dot names too) below /etc/telegraf/telegraf.d" \
         "  and the condition, as the catalogue has it"
contains "$(ctl known-readers --explain=telegraf)" "telegraf (pid $TPID, uid 0)" "  --explain=NAME: the same reader"
X=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$NUMASTATCTL" --socket="$SOCK" known-readers --explain=telegraf)
contains "$X" "telegraf (another user's process: its judgement is shown to root)" "  uid 65534 asking: redacted"
# The entry it is known as is the catalogue's, public; why (what its
# configuration says), its pid and binary are root's to see.
contains "$X" "    entry: telegraf, $SRCDIR/conf/readers.d/telegraf.conf" "  the entry it is known as"
ok $([ "$(echo "$X" | grep -c "why:\|read:\|pid \|$A")" = 0 ]; echo $?) "  not why, what was read, its pid or its binary"
ctl known-readers --explain=999999999 > /dev/null 2>&1
is "$?" 5 "  a pid never seen reading: exit status 5"
printf '[[inputs.kernel_vmstat]]\n' > "$A/etc/telegraf/telegraf.d/vmstat.conf"
is "$(telegraf_judged "${UNIT_ARGS[@]}")" "$FORBIDDEN" \
   "  [[inputs.kernel_vmstat]] in telegraf.d: its reads count"
rm "$A/etc/telegraf/telegraf.d/vmstat.conf"
printf '  [[ inputs.kernel_vmstat ]]\n' >> "$A/etc/telegraf/telegraf.conf"
is "$(telegraf_judged "${UNIT_ARGS[@]}")" "$FORBIDDEN" \
   "  in telegraf.conf, spaced out: its reads count"
sed -i '$d' "$A/etc/telegraf/telegraf.conf"
is "$(telegraf_judged telegraf)" "known-counts: counts: its command line does not name one config (--config -config)" \
   "  without -config (it would look at \$TELEGRAF_CONFIG_PATH first): counts"
is "$(telegraf_judged "${UNIT_ARGS[@]}" --config /etc/telegraf/other.conf)" \
   "known-counts: counts: its command line does not name one config (--config -config)" \
   "  with two configs (it reads both): counts"
# Telegraf walks its -config-directory as filepath.Walk does: every *.conf
# below it, dot names too, but not directories named ..* (Kubernetes'
# mounts); and replaces ${VAR} from its environment.
TD=$A/etc/telegraf/telegraf.d
mkdir -p "$TD/sub/deeper" "$TD/..2026_12_07" "$TD/.hidden"
for place in sub/deeper/vm.conf .vm.conf .hidden/vm.conf; do
        printf '[[inputs.kernel_vmstat]]\n' > "$TD/$place"
        is "$(telegraf_judged "${UNIT_ARGS[@]}")" "$FORBIDDEN" "  [[inputs.kernel_vmstat]] in telegraf.d/$place: counts"
        rm "$TD/$place"
done
printf '[[inputs.kernel_vmstat]]\n' > "$TD/..2026_12_07/vm.conf"
printf '[[inputs.mem]]\n' > "$TD/sub/mem.conf"
is "$(telegraf_judged "${UNIT_ARGS[@]}")" "known: known telegraf: $TELEGRAF_WHY" \
   "  in telegraf.d/..2026_12_07/ (which Telegraf skips), and inputs.mem below: known"
rm "$TD/..2026_12_07/vm.conf"
ln -s /nonexistent.conf "$TD/sub/dangling.conf"
is "$(telegraf_judged "${UNIT_ARGS[@]}")" "known-counts: counts: /etc/telegraf/telegraf.d cannot be read" \
   "  a dangling link below telegraf.d (Telegraf would fail on it): counts"
rm "$TD/sub/dangling.conf"
printf '[[inputs.filestat]]\n  files = ["${STATS_FILE}"]\n' > "$TD/file.conf"
is "$(STATS_FILE=/var/log/syslog telegraf_judged "${UNIT_ARGS[@]}")" "known: known telegraf: $TELEGRAF_WHY" \
   "  filestat on \${STATS_FILE}, /var/log/syslog in its environment: known"
is "$(STATS_FILE=/proc/vmstat telegraf_judged "${UNIT_ARGS[@]}")" \
   "known-counts: counts: a line of its configuration, its variables replaced from its environment, matches the entry's config_forbids=" \
   "  with /proc/vmstat in its environment: counts"
rm "$TD/file.conf"
# A tail or file input parses whatever its path names: a link to a
# statistics file is not seen in the path's text, so any such input counts.
ln -s /proc/vmstat "$A/etc/telegraf/stats"
printf '[[inputs.tail]]\n  files = ["/etc/telegraf/stats"]\n  data_format = "value"\n' > "$TD/tail.conf"
is "$(telegraf_judged "${UNIT_ARGS[@]}")" "$FORBIDDEN" "  a tail input on a link to /proc/vmstat: counts"
rm "$TD/tail.conf" "$A/etc/telegraf/stats"

# Azure Monitor Agent's own Telegraf build, at its path, started as its
# metrics-sourcer unit does with the configuration the extension generates
# (telegraf_config_handler.py): the swap counters alone, known; the memory
# page counters (kernel_vmstat, a fieldpass not judged), counted.
AMA=/opt/microsoft/azuremonitoragent/bin
AMA_CONF=/var/lib/waagent/Microsoft.Azure.Monitor.AzureMonitorLinuxAgent-1.5.124/config/telegraf_configs
mkdir -p "$A$AMA" "$A$AMA_CONF/telegraf.d"
cp /bin/dash "$A$AMA/telegraf"
printf '[agent]\n  interval = "10s"\n[global_tags]\n  DeploymentId= "${DeploymentId}"\n[[outputs.influxdb]]\n  urls = ["unix:///run/azuremonitoragent/default_influx.socket"]\n' \
        > "$A$AMA_CONF/telegraf.conf"
printf '[[inputs.swap]]\n  fieldpass = ["free", "used", "used_percent"]\n  interval = "30s"\n' \
        > "$A$AMA_CONF/telegraf.d/swap.conf"
AMA_ARGS=(telegraf --config "$AMA_CONF/telegraf.conf" --config-directory "$AMA_CONF/telegraf.d")
is "$(DeploymentId=0000 judged telegraf "$AMA/telegraf" "${AMA_ARGS[@]}")" "known: known telegraf: $TELEGRAF_WHY" \
   "Azure Monitor Agent's Telegraf (a stand-in at its path), its swap counters: known"
printf '[[inputs.kernel_vmstat]]\n  fieldpass = ["pgpgin", "pgpgout", "total_pages"]\n' > "$A$AMA_CONF/telegraf.d/vmstat.conf"
is "$(DeploymentId=0000 judged telegraf "$AMA/telegraf" "${AMA_ARGS[@]}")" "$FORBIDDEN" \
   "  its memory page counters (kernel_vmstat): counts"

# Glances installed by pip (/usr/local/bin/glances) under Ubuntu 22.04's
# python3.10, in a root of its own: dash stands in for the interpreter
# (the interpreter is known by its path there, the script by its inode).
mkdir -p "$A/usr/local/bin"
cp /bin/dash "$A/usr/bin/python3.10"
printf 'while :; do read x < /host/proc/vmstat; sleep 0.2; done\n' > "$A/usr/local/bin/glances"
chmod 755 "$A/usr/local/bin/glances"
# script_agent INTERPRETER ARGS...: runs "INTERPRETER ARGS..." in the root; AGENT_PID.
script_agent() {
        unshare -m sh -c 'mount --bind "$1/proc" "$2/host/proc" && root=$2 && shift 2 && exec chroot "$root" "$@"' \
                sh "$T" "$A" "$@" > "$T/agent.log" 2>&1 &
        AGENT_PID=$!
}
is "$(AGENT_RUNNER=script_agent judged python3.10 /usr/bin/python3.10 /usr/local/bin/glances -s)" \
   "known: known glances: psutil's swap_memory uses pswpin and pswpout only" \
   "glances from pip (/usr/local/bin/glances) under python3.10: known"
cp "$A/usr/local/bin/glances" "$A/usr/local/bin/glances-copy"
is "$(AGENT_RUNNER=script_agent judged python3.10 /usr/bin/python3.10 /usr/local/bin/glances-copy -s)" \
   "unknown: None" "  a copy of its script (another inode): counts"

# ---- Vector: its host_metrics source, its configuration as it loads it ----
# With no option, /etc/vector/vector.yaml only (its unit's command line);
# with --config-dir (the Helm chart's agent), every *.yaml, *.yml, *.toml
# and *.json below that directory, dot files too, through links to
# directories, but not directories named ..* (Kubernetes' mounts), and
# then no default file. A source that reads any file counts wherever it is.
cp /bin/dash "$A/usr/bin/vector"
VK=$A/etc/vector-k8s
mkdir -p "$A/etc/vector" "$VK/..2026_12_07" "$A/srv/vector-more"
cp "$SRCDIR/tests/data/agents/vector.yaml" "$A/etc/vector/vector.yaml"
cp "$SRCDIR/tests/data/agents/vector-agent.yaml" "$VK/..2026_12_07/agent.yaml"
ln -s ..2026_12_07 "$VK/..data"
ln -s ..data/agent.yaml "$VK/agent.yaml"
vector_judged() { judged vector /usr/bin/vector "$@"; }
VECTOR_WHY="host_metrics keeps pswpin and pswpout of /proc/vmstat (heim's swap()), no numa_*"
is "$(vector_judged)" "known: known vector: $VECTOR_WHY" \
   "Vector (a stand-in) as its unit runs it, its shipped example as /etc/vector/vector.yaml: known"
printf 'sources:\n  logs:\n    type: file\n    include: ["/var/log/*.log"]\n' >> "$A/etc/vector/vector.yaml"
is "$(vector_judged)" "$FORBIDDEN" "  a file source in vector.yaml: its reads count"
is "$(vector_judged --config-dir /etc/vector-k8s/)" "known: known vector: $VECTOR_WHY" \
   "  --config-dir holding the Helm chart's agent.yaml (a link into ..data): known, vector.yaml not loaded"
mkdir "$VK/sources"
for place in sources/logs.yml .logs.toml ..2026_12_07/sources.yaml; do
        printf '[sources.logs]\ntype = "file"\n' > "$VK/$place"
        expect=$FORBIDDEN
        [ "$place" = ..2026_12_07/sources.yaml ] && expect="known: known vector: $VECTOR_WHY"
        is "$(vector_judged --config-dir /etc/vector-k8s/)" "$expect" "  a file source in $place: ${expect%%:*}"
        rm "$VK/$place"
done
printf 'type: file\n' > "$VK/sources/README.md"
is "$(vector_judged --config-dir /etc/vector-k8s/)" "known: known vector: $VECTOR_WHY" \
   "  a README.md (not a configuration's name) with one: known"
rm "$VK/sources/README.md"
printf '{"type": "lua"}\n' > "$A/srv/vector-more/parse.json"
ln -s /srv/vector-more "$VK/transforms"
is "$(vector_judged -C /etc/vector-k8s)" "$FORBIDDEN" "  a lua transform in a directory linked below it: counts"
rm "$VK/transforms"
is "$(vector_judged -C /etc/vector-k8s,/srv/vector-more)" \
   "known-counts: counts: the file its command line names (--config-dir -C) cannot be read" \
   "  two directories in one word (a list, not one it has): counts"
sed -i '/^sources:$/,$d' "$A/etc/vector/vector.yaml"
is "$(vector_judged -c /etc/vector/vector.yaml)" \
   "known-counts: counts: -c on its command line overrides what is checked" "  a file named with -c: counts"
is "$(VECTOR_CONFIG_DIR=/srv/vector-more vector_judged)" \
   "known-counts: counts: a variable of its environment matches the entry's environ_forbids=" \
   "  VECTOR_CONFIG_DIR in its environment: counts"
is "$(vector_judged)" "known: known vector: $VECTOR_WHY" "  vector.yaml as shipped again: known"

# ---- Fluent Bit: node_exporter_metrics, its configuration and plugins file ----
# Its -c file, and the plugins.conf its plugins_file names, looked for in
# its working directory (/) first, then beside the -c file.
FB=/opt/fluent-bit/bin
mkdir -p "$A$FB" "$A/etc/fluent-bit" "$A/srv/fluent-bit"
cp /bin/dash "$A$FB/fluent-bit"
cp "$SRCDIR/tests/data/agents/fluent-bit-metrics.conf" "$A/etc/fluent-bit/fluent-bit.conf"
cp "$SRCDIR/tests/data/agents/fluent-bit-plugins.conf" "$A/etc/fluent-bit/plugins.conf"
sed -i 's/^\[SERVICE\]$/&\n    plugins_file plugins.conf/' "$A/etc/fluent-bit/fluent-bit.conf"
cp "$A/etc/fluent-bit/"* "$A/srv/fluent-bit/"
fluent_bit_judged() { judged fluent-bit "$FB/fluent-bit" "$@"; }
FB_WHY="node_exporter_metrics keeps oom_kill, pgpg*, pswp* and pg*fault of /proc/vmstat (a fixed regex), no numa_*"
FB_ARGS=(-c /etc/fluent-bit/fluent-bit.conf)
is "$(fluent_bit_judged "${FB_ARGS[@]}")" "known: known fluent-bit: $FB_WHY" \
   "Fluent Bit (a stand-in) as its unit runs it, its node metrics example and plugins.conf: known"
printf '    Path /opt/fluent-bit/lib/in_more.so\n' >> "$A/srv/fluent-bit/plugins.conf"
is "$(fluent_bit_judged "${FB_ARGS[@]}")" "known: known fluent-bit: $FB_WHY" \
   "  an external plugin in another directory's plugins.conf: known"
is "$(fluent_bit_judged -c /srv/fluent-bit/fluent-bit.conf)" "$FORBIDDEN" \
   "  the -c file in that directory (its plugins.conf beside it): counts"
printf '[INPUT]\n    name tail\n    path /var/log/syslog\n' >> "$A/etc/fluent-bit/fluent-bit.conf"
is "$(fluent_bit_judged "${FB_ARGS[@]}")" "$FORBIDDEN" "  a tail input: counts"
cp "$A/srv/fluent-bit/fluent-bit.conf" "$A/etc/fluent-bit/fluent-bit.conf"
touch "$A/plugins.conf"
is "$(fluent_bit_judged "${FB_ARGS[@]}")" \
   "known-counts: counts: something in its root matches /plugins.conf" \
   "  a plugins.conf in its working directory (/), which it would load first: counts"
rm "$A/plugins.conf"
is "$(fluent_bit_judged "${FB_ARGS[@]}" -i tail)" \
   "known-counts: counts: -i on its command line overrides what is checked" "  an input on its command line: counts"

# ---- The CloudWatch agent: its etc, every file its start script names ----
CW=/opt/aws/amazon-cloudwatch-agent
mkdir -p "$A$CW/bin" "$A$CW/etc/amazon-cloudwatch-agent.d" "$A$CW/var"
cp /bin/dash "$A$CW/bin/amazon-cloudwatch-agent"
cp "$SRCDIR/tests/data/agents/cloudwatch-agent.toml" "$A$CW/etc/amazon-cloudwatch-agent.toml"
cp "$SRCDIR/tests/data/agents/cloudwatch-agent.yaml" "$A$CW/etc/amazon-cloudwatch-agent.yaml"
printf '{"CWAGENT_LOG_LEVEL":"INFO"}\n' > "$A$CW/etc/env-config.json"
printf '{"metrics":{"metrics_collected":{"swap":{"measurement":["swap_used_percent"]}}}}\n' \
        > "$A$CW/etc/amazon-cloudwatch-agent.d/file_config.json.tmp"
cw_judged() { judged amazon-cloudwat "$CW/bin/amazon-cloudwatch-agent" "$@"; }
CW_WHY="swap and hostmetrics' paging keep swap and paging fields of /proc/vmstat (gopsutil's SwapMemory), no numa_*"
CW_ARGS=(-config "$CW/etc/amazon-cloudwatch-agent.toml" -envconfig "$CW/etc/env-config.json"
         -otelconfig "$CW/etc/amazon-cloudwatch-agent.yaml" -pidfile "$CW/var/amazon-cloudwatch-agent.pid")
is "$(CWAGENT_ROLE_ARN=arn:aws:iam::1:role/x cw_judged "${CW_ARGS[@]}")" "known: known amazon-cloudwatch-agent: $CW_WHY" \
   "CloudWatch agent (a stand-in) as its start script runs it, swap metrics only: known"
printf 'receivers:\n    filelog/messages:\n        include:\n            - /var/log/messages\n' \
        > "$A$CW/etc/amazon-cloudwatch-agent.d/logs.yaml"
is "$(CWAGENT_ROLE_ARN=x cw_judged -otelconfig "$CW/etc/amazon-cloudwatch-agent.d/logs.yaml" "${CW_ARGS[@]}")" "$FORBIDDEN" \
   "  a filelog receiver in a YAML of its .d directory: counts"
mv "$A$CW/etc/amazon-cloudwatch-agent.d/logs.yaml" "$A/srv/logs.yaml"
is "$(CWAGENT_ROLE_ARN=x cw_judged -otelconfig /srv/logs.yaml "${CW_ARGS[@]}")" \
   "known-counts: counts: its command line names a configuration outside $CW/etc" \
   "  an -otelconfig outside its etc: counts"

# ---- Metricbeat: its -c file and the modules.d below its --path.config ----
# Its unit names both. The system module as shipped (7.x reads
# /proc/vmstat, no numa_*) is known; the linux module (8.x exports all of
# it) counts wherever Metricbeat would load it from: the -c file, or a file
# modules.d/*.yml matches below --path.config, dot names too (Go's Glob).
MB=/usr/share/metricbeat/bin
mkdir -p "$A$MB" "$A/etc/metricbeat/modules.d" "$A/srv/metricbeat/modules.d"
cp /bin/dash "$A$MB/metricbeat"
cp "$SRCDIR/tests/data/agents/metricbeat.yml" "$A/etc/metricbeat/metricbeat.yml"
cp "$SRCDIR/tests/data/agents/metricbeat-system.yml" "$A/etc/metricbeat/modules.d/system.yml"
LINUX_MODULE='- module: linux\n  metricsets: ["memory"]\n'
printf -- "$LINUX_MODULE" > "$A/etc/metricbeat/modules.d/linux.yml.disabled"
mb_judged() { judged metricbeat "$MB/metricbeat" "$@"; }
MB_WHY="the system module keeps pswp*, pgscan/pgsteal, thp_swpout and swap_ra of /proc/vmstat (7.x), no numa_*"
MB_ARGS=(--environment systemd -c /etc/metricbeat/metricbeat.yml --path.home /usr/share/metricbeat
         --path.config /etc/metricbeat --path.data /var/lib/metricbeat --path.logs /var/log/metricbeat)
is "$(mb_judged "${MB_ARGS[@]}")" "known: known metricbeat: $MB_WHY" \
   "Metricbeat (a stand-in) as its unit runs it, metricbeat.yml and modules.d/system.yml as shipped: known"
MB_K=$(ctl known-readers)
contains "$MB_K" "or a file modules.d/*.yml matches in /etc/metricbeat (or the one -path.config --path.config names, which it must) has a line matching" \
   "  known-readers says which files its condition judges"
contains "$MB_K" "(but for one matching ^[[:space:]]+path:" "  and the line it allows"
for place in modules.d/linux.yml modules.d/.linux.yml modules.d/.yml; do
        printf -- "$LINUX_MODULE" > "$A/etc/metricbeat/$place"
        is "$(mb_judged "${MB_ARGS[@]}")" "$FORBIDDEN" "  the linux module in $place: counts"
        rm "$A/etc/metricbeat/$place"
done
cp "$A/etc/metricbeat/metricbeat.yml" "$A/srv/metricbeat/metricbeat.yml"
printf -- "metricbeat.modules:\n$LINUX_MODULE" >> "$A/etc/metricbeat/metricbeat.yml"
is "$(mb_judged "${MB_ARGS[@]}")" "$FORBIDDEN" "  the linux module in metricbeat.yml: counts"
cp "$A/srv/metricbeat/metricbeat.yml" "$A/etc/metricbeat/metricbeat.yml"
printf -- "$LINUX_MODULE" > "$A/srv/metricbeat/modules.d/linux.yml"
is "$(mb_judged -c /etc/metricbeat/metricbeat.yml --path.config /srv/metricbeat)" "$FORBIDDEN" \
   "  --path.config naming another directory, the linux module in its modules.d: counts"
rm "$A/srv/metricbeat/modules.d/linux.yml"
is "$(mb_judged -c /etc/metricbeat/metricbeat.yml --path.config /srv/metricbeat)" \
   "known: known metricbeat: $MB_WHY" "  that modules.d without it: known"
rmdir "$A/srv/metricbeat/modules.d"
is "$(mb_judged -c /etc/metricbeat/metricbeat.yml --path.config /srv/metricbeat)" \
   "known: known metricbeat: $MB_WHY" "  a --path.config without modules.d (nothing to glob): known"
is "$(mb_judged -c /etc/metricbeat/metricbeat.yml --path.config /srv/none)" \
   "known-counts: counts: the file its command line names (-path.config --path.config) cannot be read" \
   "  a --path.config that does not exist: counts"
is "$(mb_judged -c /etc/metricbeat/metricbeat.yml --path.home /srv/metricbeat)" \
   "known-counts: counts: its command line names no -path.config --path.config" \
   "  no --path.config (path.home's, which a user may choose): counts"
is "$(mb_judged "${MB_ARGS[@]}" -E metricbeat.config.modules.path=/srv/x/*.yml)" \
   "known-counts: counts: -E on its command line overrides what is checked" "  an -E setting: counts"

# ---- Checkmk's agent: a bash script whose cat reads /proc/vmstat ----
# A stand-in at /usr/bin/check_mk_agent in a root of its own, run by this
# machine's bash and cat: hard links to them there (a child= and an
# interpreter= are known by their binary on the host; a look finds the
# interpreter in the process's root without crossing a mount, so not a
# bind mount), as its socket unit runs it: its kernel section's cat every
# 200 ms, and with PLUGIN set a plugin of its own (a bash script whose cat,
# by another name, reads the file too). The cat's reads are judged by the
# agent's entry, and by what /etc/check_mk, its spool and its environment
# say of the agent.
K=$(mktemp -d /var/tmp/numastatd-checkmk-XXXXXX)
cleanup_trees+=("$K")
mkdir -p "$K/usr/bin" "$K/host/proc" "$K/lib/x86_64-linux-gnu" "$K/lib64" "$K/etc" "$K/dev" \
         "$K/var/lib/check_mk_agent/spool" "$K/usr/lib/check_mk_agent/plugins"
CHECKMK_ROOT_OK=
if ln "$(readlink -f /usr/bin/bash)" "$K/usr/bin/bash" 2>/dev/null && ln "$(readlink -f /usr/bin/cat)" "$K/usr/bin/cat"; then
        CHECKMK_ROOT_OK=1
fi
cp "$(readlink -f /usr/bin/sleep)" "$K/usr/bin/sleep"
for l in $(ldd /usr/bin/bash /usr/bin/cat /usr/bin/sleep | grep -o '/[^ ]*' | sort -u); do cp "$l" "$K$l"; done
touch "$K/dev/null"
cat > "$K/usr/bin/check_mk_agent" <<'EOF2'
#!/usr/bin/bash
while :; do
        cat /host/proc/vmstat > /dev/null
        [ -z "$PLUGIN" ] || /usr/lib/check_mk_agent/plugins/numa
        sleep 0.2
done
EOF2
# The plugin's cat by another name (a link to it): its own line in readers.
ln -s cat "$K/usr/bin/numacat"
printf '#!/usr/bin/bash\nnumacat /host/proc/vmstat > /dev/null\n' > "$K/usr/lib/check_mk_agent/plugins/numa"
chmod 755 "$K/usr/bin/check_mk_agent" "$K/usr/lib/check_mk_agent/plugins/numa"
# checkmk_start [VAR=VALUE...]: runs the stand-in with that environment; AGENT_PID.
checkmk_start() {
        env "$@" unshare -m sh -c 'mount --bind "$1/proc" "$2/host/proc" && mount --bind /dev/null "$2/dev/null" &&
                exec chroot "$2" /usr/bin/check_mk_agent' sh "$T" "$K" > "$T/checkmk.log" 2>&1 &
        AGENT_PID=$!
}
# cat_judged SINCE [COMM]: "VERDICT: WHY" of the latest read by COMM (cat)
# after SINCE (µs), once it is judged for good (the looks done); else nothing.
cat_judged() {
        ctl --json=short readers | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin)
     if r["comm"] == sys.argv[2] and r["path"] == "/proc/vmstat" and r["last_seen"] > int(sys.argv[1])]
r = max(r, key=lambda e: e["last_seen"]) if r else None
ok = r and not any(w in (r["why"] or "") for w in ("not checked yet", "not looked into yet"))
print("%s: %s" % (r["verdict"], r["why"]) if ok else "")' "$1" "${2:-cat}"
}
cat_judged_since() { [ -n "$(cat_judged "$@")" ]; }
# checkmk_judged [VAR=VALUE...]: the stand-in's cat, judged: "VERDICT: WHY".
checkmk_judged() {
        local since
        since=$(date +%s%6N)
        checkmk_start "$@"
        wait_for 15 cat_judged_since "$since" ||
                { ctl readers | grep -E '^(cat|numacat) ' | sed 's/^/#   /'; sed 's/^/#   agent: /' "$T/checkmk.log"
                  grep -E 'ancestor|look|program of' "$DAEMON_LOG" | tail -n 8 | sed 's/^/#   daemon: /'; } >&2
        cat_judged "$since"
        agent_stop
}
if [ -n "$CHECKMK_ROOT_OK" ] && [ "$(stat -c %d "$K")" = "$(stat -c %d /)" ]; then
        CHECKMK_KNOWN="known: known checkmk-agent (run by it): the server's kernel checks keep pgmajfault, pswpin and pswpout"
        is "$(checkmk_judged)" "$CHECKMK_KNOWN" "Checkmk's agent (a stand-in): its kernel section's cat is known as the agent's"
        mkdir -p "$K/etc/check_mk"
        printf '# from the bakery\nMK_SKIP_PS=yes\nMK_SKIP_SYSTEMD="yes"\n' > "$K/etc/check_mk/exclude_sections.cfg"
        printf '# Disk /usr/lib/nagios/plugins/check_disk -w 10%%\n' > "$K/etc/check_mk/mrpe.cfg"
        printf 'logfile /var/log/syslog\n' > "$K/etc/check_mk/logwatch.cfg"     # a plugin's: not the agent's
        is "$(checkmk_judged)" "$CHECKMK_KNOWN" "  with sections excluded, a commented MRPE line and a plugin's file: known"
        CHECKMK_FORBIDDEN="known-counts: counts: run by checkmk-agent, a line of its configuration matches the entry's config_forbids="
        for line in 'Disk /usr/lib/nagios/plugins/check_disk -w 10%' 'Numa (interval=60) cat /proc/vmstat'; do
                printf '%s\n' "$line" > "$K/etc/check_mk/mrpe.cfg"
                is "$(checkmk_judged)" "$CHECKMK_FORBIDDEN" "  an MRPE command ($line; it runs in the agent's shell): counts"
        done
        rm "$K/etc/check_mk/mrpe.cfg"
        for line in 'MK_SKIP_PS=$(cat /proc/vmstat)' 'MK_SKIP_PS=yes; cat /proc/vmstat' 'cat /proc/vmstat'; do
                printf '%s\n' "$line" > "$K/etc/check_mk/exclude_sections.cfg"
                is "$(checkmk_judged)" "$CHECKMK_FORBIDDEN" "  exclude_sections.cfg (sourced) with $line: counts"
        done
        printf 'MK_SKIP_PS=yes\n' > "$K/etc/check_mk/exclude_sections.cfg"
        touch "$K/var/lib/check_mk_agent/spool/backup"
        is "$(checkmk_judged)" \
           "known-counts: counts: run by checkmk-agent, something in its root matches /var/lib/check_mk_agent/spool/*" \
           "  a spool file (the agent cats each one): counts"
        rm "$K/var/lib/check_mk_agent/spool/backup"
        is "$(checkmk_judged MK_CONFDIR=/srv/check_mk)" \
           "known-counts: counts: run by checkmk-agent, a variable of its environment matches the entry's environ_forbids=" \
           "  MK_CONFDIR in its environment (its configuration is elsewhere): counts"
        since=$(date +%s%6N)
        checkmk_start PLUGIN=1
        wait_for 15 cat_judged_since "$since" numacat
        X=$(cat_judged "$since" numacat)
        is "${X%%:*}" unknown "  a plugin's cat (its parent runs another script): no entry's, counts ($X)"
        wait_for 15 cat_judged_since "$since"
        is "$(cat_judged "$since")" "$CHECKMK_KNOWN" "  while the agent's own cat stays known"
        agent_stop
        wait_for 15 sysctl_is 0
        ok $? "counting off again"
else
        skip "/var/tmp is not on the file system of /usr/bin: no hard links to bash and cat for the Checkmk stand-in"
fi

# Grafana Alloy: its unit's "alloy run $CUSTOM_ARGS --storage.path=... $CONFIG_FILE".
ALLOY_WHY="known: known grafana-alloy: prometheus.exporter.unix with default collectors and fields: no numa_* of /proc/vmstat"
alloy_judged() { judged alloy /usr/bin/alloy "$@"; }
is "$(alloy_judged --storage.path=/var/lib/alloy/data /etc/alloy/config.alloy)" "$ALLOY_WHY" \
   "Alloy (a stand-in), its unit's command line and shipped config.alloy: known"
cp "$A/etc/alloy/config.alloy" "$A/etc/alloy/numa.alloy"
sed -i 's/disable_collectors       = \["mdadm"\]/enable_collectors = ["meminfo_numa"]/' "$A/etc/alloy/numa.alloy"
is "$(alloy_judged --storage.path=/var/lib/alloy/data /etc/alloy/numa.alloy)" \
   "$FORBIDDEN" \
   "  a config that enables meminfo_numa: counts"
printf 'loki.source.file "vm" {\n  targets = [{__path__ = "/proc/vmstat"}]\n}\n' > "$A/etc/alloy/numa.alloy"
is "$(alloy_judged /etc/alloy/numa.alloy)" "$FORBIDDEN" \
         "  a file source tailing /proc/vmstat: counts"
is "$(alloy_judged --storage.path /var/lib/alloy/data /etc/alloy/config.alloy)" \
   "known-counts: counts: its command line does not name one config after 'run' (options as --name=value)" \
   "  an option as two words (which word is the config?): counts"
is "$(alloy_judged /etc/alloy)" "known-counts: counts: the file its command line names (after 'run') cannot be read" \
   "  a directory of *.alloy files (not read): counts"

# Grafana Agent, static mode: its unit's "grafana-agent --config.file $CONFIG_FILE $CUSTOM_ARGS".
AGENT_ARGS=(--config.file /etc/grafana-agent.yaml -server.http.address=127.0.0.1:9090 -server.grpc.address=127.0.0.1:9091)
is "$(judged grafana-agent /usr/bin/grafana-agent "${AGENT_ARGS[@]}")" \
   "known: known grafana-agent: the node_exporter integration with default collectors and vmstat_fields: no numa_* of /proc/vmstat" \
   "Grafana Agent (a stand-in), its unit's command line and shipped grafana-agent.yaml: known"
is "$(judged grafana-agent /usr/bin/grafana-agent "${AGENT_ARGS[@]}" -config.expand-env)" \
   "known-counts: counts: -config.expand-env on its command line overrides what is checked" \
   "  with -config.expand-env (\${VAR} in the text): counts"
printf '    enable_collectors: [zoneinfo]\n' >> "$A/etc/grafana-agent.yaml"
is "$(judged grafana-agent /usr/bin/grafana-agent "${AGENT_ARGS[@]}")" "$FORBIDDEN" \
   "  enable_collectors: [zoneinfo]: counts"

# The OpenTelemetry collector: "otelcol-contrib --config=FILE"; the Ops Agent's otelopscol.
OTEL_WHY="known: known opentelemetry-collector: hostmetrics keeps swap and paging fields of /proc/vmstat only (gopsutil's SwapMemory)"
is "$(judged otelcol-contrib /usr/bin/otelcol-contrib --config=/etc/otelcol-contrib/config.yaml)" "$OTEL_WHY" \
   "otelcol-contrib (a stand-in) with host_metrics' paging scraper: known"
is "$(judged otelopscol "$OPS/otelopscol" --config=/run/google-cloud-ops-agent-opentelemetry-collector/otel.yaml)" \
   "$OTEL_WHY" "  the Ops Agent's otelopscol, at its path: known"
is "$(judged otelcol-contrib /usr/bin/otelcol-contrib --config=/etc/otelcol-contrib/config.yaml --set=receivers.x=y)" \
   "known-counts: counts: --set on its command line overrides what is checked" "  with --set: counts"
is "$(judged otelcol-contrib /usr/bin/otelcol-contrib --config=env:CONFIG)" \
   "known-counts: counts: the file its command line names (--config) cannot be read" "  a config from a URI: counts"
printf '  file_log:\n    include: [/proc/vmstat]\n' >> "$A/etc/otelcol-contrib/config.yaml"
is "$(judged otelcol-contrib /usr/bin/otelcol-contrib --config=/etc/otelcol-contrib/config.yaml)" "$FORBIDDEN" \
   "  a file_log receiver: counts"

# The Datadog Agent: its unit's "agent run -p PIDFILE".
dd_judged() { judged agent "$DD/bin/agent/agent" -p "$DD/run/agent.pid"; }
is "$(dd_judged)" "known: known datadog-agent: the checks it ships keep swap and paging fields of /proc/vmstat only (gopsutil's SwapMemory)" \
   "the Datadog Agent (a stand-in in its package's tree): known"
: > "$A/etc/datadog-agent/checks.d/custom_numa.py"
is "$(dd_judged)" "known-counts: counts: something in its root matches /etc/datadog-agent/checks.d/*" \
   "  a custom check in checks.d: counts"
rm "$A/etc/datadog-agent/checks.d/custom_numa.py"
mkdir "$A$SITE/datadog_numa_extra-1.0.0.dist-info"
is "$(dd_judged)" \
   "known-counts: counts: $DD/embedded/lib/python*/site-packages holds what $DD/embedded/.installed_by_pkg.txt does not list" \
   "  an integration installed after the package: counts"
rmdir "$A$SITE/datadog_numa_extra-1.0.0.dist-info"
is "$(DD_ADDITIONAL_CHECKSD=/srv/checks dd_judged)" \
   "known-counts: counts: a variable of its environment matches the entry's environ_forbids=" \
   "  DD_ADDITIONAL_CHECKSD in its environment: counts"
printf 'additional_checksd: /srv/checks\n' >> "$A/etc/datadog-agent/datadog.yaml"
is "$(dd_judged)" "$FORBIDDEN" "  additional_checksd in datadog.yaml: counts"
sed -i '$d' "$A/etc/datadog-agent/datadog.yaml"

# uid 65534, in a user namespace and a root of its own, dressed as the
# Datadog Agent: its tree decides its own reads only, and a list that is a
# FIFO, or a link to a list of root's outside its root, is never followed.
N=$(mktemp -d /tmp/numastatd-dd-XXXXXX)
cleanup_trees+=("$N")
cp -a "$A/." "$N/"
chown -R 65534:65534 "$N"
chmod 755 "$N"
nobody_agent() {
        local path=$1
        shift
        # setpriv itself in the background (not as_nobody, a function): $! is the agent.
        setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare -Urm sh -c 'mount --bind "$1/proc" "$2/host/proc" && root=$2 && path=$3 && shift 3 &&
                exec chroot "$root" "$path" -c "cd /stand-in && exec \"\$0\" run \"\$@\"" "$path" "$@"' \
                sh "$T" "$N" "$path" "$@" > "$T/agent.log" 2>&1 &
        AGENT_PID=$!
}
LIST=$DD/embedded/.installed_by_pkg.txt
is "$(AGENT_RUNNER=nobody_agent dd_judged)" \
   "known: known datadog-agent: the checks it ships keep swap and paging fields of /proc/vmstat only (gopsutil's SwapMemory)" \
   "uid 65534 as the Datadog Agent in a root of its own: its own reads judged by its tree"
rm "$N$LIST"
as_nobody mkfifo "$N$LIST"
is "$(AGENT_RUNNER=nobody_agent dd_judged)" \
   "known-counts: counts: $DD/embedded/lib/python*/site-packages or $LIST cannot be read" \
   "  its list a FIFO: never opened, counts (and judged at once)"
rm "$N$LIST"
cp "$A$LIST" "$T/root-only-list"
chmod 600 "$T/root-only-list"
as_nobody ln -s "$T/root-only-list" "$N$LIST"
is "$(AGENT_RUNNER=nobody_agent dd_judged)" \
   "known-counts: counts: $DD/embedded/lib/python*/site-packages or $LIST cannot be read" \
   "  its list a link to a root-only list outside its root: not followed there, counts"
wait_for 15 sysctl_is 0
ok $? "counting off"

done_testing
