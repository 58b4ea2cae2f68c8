#!/bin/bash
# Metrics: numastatctl metrics prints the state in the Prometheus text
# format (promtool accepts it without a warning), with values that match
# the status; [metrics] textfile keeps the same text in a file, replaced
# atomically, mode 0644, removed at a clean stop; the real node_exporter's
# textfile collector serves it over HTTP.
. "$(dirname "$0")/lib.sh"

require_root "fanotify_init needs CAP_SYS_ADMIN"
fake_kernel_tree metrics
mkdir -p "$T/textfile"
PROM="$T/textfile/numastatd.prom"
{ auto_conf; printf '[metrics]\ntextfile = %s\ninterval = 200ms\n' "$PROM"; } > "$T/conf"
# The unit's umask: the file must still be readable by the collector.
umask 077
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts with a metrics textfile"
umask 022
have_promtool() { command -v promtool >/dev/null; }
# value NAME [LABELS] < TEXT: the sample's value ("" if absent)
value() {
        python3 -c 'import re, sys
name, labels = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
for line in sys.stdin:
    m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$", line.rstrip("\n"))
    if m and m.group(1) == name and (m.group(2) or "") == (("{" + labels + "}") if labels else ""):
        print(m.group(3)); break' "$@"
}

M=$(ctl metrics)
ok $? "numastatctl metrics answers"
is "$(value numastatd_counting <<< "$M")" 1 "numastatd_counting 1 while counting (status: $(ctl --json=short | json_get counting))"
is "$(value numastatd_policy 'policy="auto"' <<< "$M")" 1 "  numastatd_policy{policy=\"auto\"} 1"
is "$(value numastatd_info 'version="0.1.0",backend="numa_stat"' <<< "$M")" 1 "  numastatd_info names the backend"
if have_promtool; then
        OUT=$(promtool check metrics <<< "$M" 2>&1)
        ok $? "promtool check metrics accepts it${OUT:+: $OUT}"
        is "$OUT" "" "  without a warning"
else
        skip "promtool is missing (Debian package prometheus; scripts/install-deps.sh --test installs it)"
        skip "promtool is missing"
fi

# A reader whose name needs escaping, then pressure: counting off.
python3 -c 'import ctypes, sys; ctypes.CDLL(None).prctl(15, b"we\"ird\nname", 0, 0, 0); open(sys.argv[1], "rb").read()' \
        "$T/proc/vmstat"
fake rate 50000
wait_for 15 sysctl_is 0
ok $? "pressure: counting off"
M=$(ctl metrics)
is "$(value numastatd_counting <<< "$M")" 0 "numastatd_counting 0"
S=$(ctl --json=short)
is "$(value numastatd_transitions_total 'cause="pressure-above"' <<< "$M")" \
   "$(echo "$S" | python3 -c 'import json,sys; print(sum(t["cause"] == "pressure-above" for t in json.load(sys.stdin)["transitions"]))')" \
   "numastatd_transitions_total{cause=\"pressure-above\"} matches the history"
is "$(value numastatd_reads_total 'comm="we\\\"ird\\nname",file="/proc/vmstat",ignored="false",verdict="unknown",source=""' <<< "$M")" 1 \
   "a reader named we\"ird<newline>name is one series, its label C-escaped"
ok $(python3 -c 'import sys; v = float(sys.argv[1]); sys.exit(0 if v > 0 else 1)' "$(value numastatd_counting_on_seconds_total <<< "$M")"; echo $?) \
   "  numastatd_counting_on_seconds_total moves"
is "$(value numastatd_node_numa_hit_total 'node="0"' <<< "$M" | grep -c .)" 1 "  per-node counters carry a node label"
if have_promtool; then
        OUT=$(promtool check metrics <<< "$M" 2>&1)
        ok $? "promtool still accepts it, with readers and transitions${OUT:+: $OUT}"
else
        skip "promtool is missing"
fi

# ---- the textfile ----
wait_for 5 test -s "$PROM"
ok $? "the textfile is written"
is "$(stat -c %a "$PROM")" 644 "  mode 0644, whatever the daemon's umask"
wait_for 5 bash -c "grep -q '^numastatd_counting 0\$' '$PROM'"
ok $? "  and follows the state (numastatd_counting 0)"
is "$(ls -A "$T/textfile" | grep -v '^numastatd.prom$' | wc -l)" 0 "  no temporary file left beside it"
# The directory's owner (prometheus, on Debian) cannot make the writes fail
# by taking the temporary file's name first: it is random now. A leftover
# of ours from a crash is removed; someone else's file is left alone.
chown 65534:65534 "$T/textfile"
setpriv --reuid=65534 --regid=65534 --clear-groups -- mkdir "$T/textfile/.numastatd.prom.$DAEMON_PID.tmp"
: > "$T/textfile/.numastatd.prom.0123456789abcdef.tmp"
setpriv --reuid=65534 --regid=65534 --clear-groups -- touch "$T/textfile/.numastatd.prom.fedcba9876543210.tmp"
before=$(stat -c %i "$PROM")
replaced() { [ "$(stat -c %i "$PROM")" != "$before" ]; }
wait_for 10 replaced
ok $? "  with the old temporary name taken by the directory's owner, the textfile is still replaced (a new inode)"
ok $([ ! -e "$T/textfile/.numastatd.prom.0123456789abcdef.tmp" ]; echo $?) "  a leftover temporary file of ours is removed"
ok $([ -e "$T/textfile/.numastatd.prom.fedcba9876543210.tmp" ]; echo $?) "  another user's file of that name is not"
rm -rf "$T/textfile"/.numastatd.prom.*.tmp
chown 0:0 "$T/textfile"
if have_promtool; then
        OUT=$(promtool check metrics < "$PROM" 2>&1)
        ok $? "  promtool accepts the file${OUT:+: $OUT}"
else
        skip "promtool is missing"
fi

# ---- the real node_exporter serves it ----
NE=$(command -v prometheus-node-exporter || true)
if [ -n "$NE" ]; then
        PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        "$NE" --web.listen-address="127.0.0.1:$PORT" --collector.disable-defaults --collector.textfile \
                --collector.textfile.directory="$T/textfile" > "$T/node_exporter.log" 2>&1 &
        NEPID=$!
        scrape() { python3 -c 'import sys, urllib.request
print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())' "$PORT"; }
        wait_for 10 scrape > /dev/null 2>&1
        ok $? "node_exporter serves /metrics on 127.0.0.1:$PORT"
        W=$(scrape 2>/dev/null)
        is "$(value numastatd_counting <<< "$W")" "$(ctl --json=short | json_get counting | sed 's/true/1/; s/false/0/')" \
           "  with numastatd_counting as the status has it"
        is "$(value node_textfile_scrape_error <<< "$W")" 0 "  and no textfile scrape error"
        contains "$(echo "$W" | grep '^numastatd_transitions_total{cause="pressure-above"}')" " 1" \
                 "  numastatd_transitions_total{cause=\"pressure-above\"} there too"
        kill "$NEPID"
        wait "$NEPID" 2>/dev/null
else
        for _ in 1 2 3 4; do skip "prometheus-node-exporter is missing (scripts/install-deps.sh --test installs it)"; done
fi

# ---- a clean stop removes it; a bad path is refused ----
stop_daemon TERM
ok $([ ! -e "$PROM" ]; echo $?) "a clean stop removes the textfile"
printf '[metrics]\ntextfile = relative.prom\n' > "$T/bad.conf"
OUT=$("$NUMASTATD" --check-config --config="$T/bad.conf" 2>&1)
ok $([ $? -ne 0 ]; echo $?) "--check-config refuses a relative textfile"
contains "$OUT" "not absolute" "  saying why"
printf '[metrics]\ntextfile = /tmp/numastatd.txt\n' > "$T/bad.conf"
contains "$("$NUMASTATD" --check-config --config="$T/bad.conf" 2>&1)" "NAME.prom" "  and one the collector would not read"
# A symbolic link on the way (someone else's directory) is not followed.
ln -s "$T/textfile" "$T/link"
{ auto_conf; printf '[metrics]\ntextfile = %s/link/numastatd.prom\ninterval = 200ms\n' "$T"; } > "$T/conf"
start_daemon "$T" --config="$T/conf"
wait_for 5 bash -c "'$NUMASTATCTL' --socket='$SOCK' --json=short | grep -q '\"metrics_error\":\"cannot open'"
ok $? "a symbolic link on the textfile's path: not followed, the error in status"
contains "$(ctl status)" "Warning: metrics textfile: cannot open the directory" "  numastatctl status warns"
ok $([ ! -e "$T/textfile/numastatd.prom" ]; echo $?) "  nothing written through it"
stop_daemon
done_testing
