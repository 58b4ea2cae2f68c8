#!/bin/bash
# The daemon as scripts/run.sh starts it from the build tree (no
# NUMASTATD_KNOWN_READERS_PATH): it judges readers by the source tree's
# catalogue, which the build names in numastatd-uninstalled beside it. A
# copy of the binary without that file, or whose file names an empty or
# unreadable directory, says so in `numastatctl status`, naming where it
# looked.
. "$(dirname "$0")/lib.sh"
unset NUMASTATD_KNOWN_READERS_PATH

T=$(make_tree mainline)
cleanup_trees+=("$T")
# The administrator's catalogue, looked in first: under configure's
# sysconfdir, which make check passes (/usr/local/etc with the default
# prefix, /etc as scripts/build.sh configures); run alone, the directory of
# the default configuration file the daemon's --help names.
sysconfdir=${TEST_SYSCONFDIR:-$("$NUMASTATD" --help | sed -n 's|.*(default \(/[^ )]*\)/numastatd\.conf).*|\1|p')}
ETC_READERS=$sysconfdir/numastatd/readers.d

shipped=$(cd "$SRCDIR/conf/readers.d" && ls -- *.conf | sed 's/\.conf$//' | sort)
is "$(cat "$BUILDDIR/numastatd-uninstalled" 2>/dev/null)" "$SRCDIR/conf/readers.d" \
        "the build names the source tree's catalogue beside the daemon"

start_daemon "$T" --config="$SRCDIR/conf/numastatd.conf"
ok $? "the build tree's daemon starts with the shipped configuration, as scripts/run.sh starts it"
listed=$(ctl --json=short known-readers | python3 -c 'import json, sys
for k in json.load(sys.stdin)["known_readers"]: print(k["name"])' | sort)
is "$listed" "$shipped" "known-readers lists every shipped entry ($(echo $shipped))"
dirs=$(ctl --json=short known-readers | json_get dirs)
contains "$dirs" "\"$SRCDIR/conf/readers.d\"" "  found in the source tree's conf/readers.d"
status=$(ctl status)
case "$status" in
*Warning:*known*) ok 1 "status has no catalogue warning"; printf '%s\n' "$status" | sed 's/^/#   /' ;;
*) ok 0 "status has no catalogue warning" ;;
esac
stop_daemon

# A copy elsewhere: its marker file names an empty directory.
mkdir -p "$T/bin" "$T/empty"
cp "$NUMASTATD" "$T/bin/numastatd"
echo "$T/empty" > "$T/bin/numastatd-uninstalled"
NUMASTATD=$T/bin/numastatd start_daemon "$T" --config="$SRCDIR/conf/numastatd.conf"
ok $? "a daemon whose catalogue directory is empty starts"
status=$(ctl status)
contains "$status" "Warning: known readers are on, but no catalogue entry is loaded: every read counts" \
        "  status warns that the catalogue is on but empty"
contains "$status" "looked in: $ETC_READERS, $T/empty" "  saying where it looked"
contains "$(ctl known-readers)" "No known readers in $ETC_READERS, $T/empty" \
        "  known-readers says where it looked"
is "$(ctl --json=short status | json_get sources.known_readers)" 0 "  GetStatus: known_readers 0"
stop_daemon

# Its marker names a file, not a directory: unreadable, and said so.
echo x > "$T/not-a-dir"
echo "$T/not-a-dir" > "$T/bin/numastatd-uninstalled"
NUMASTATD=$T/bin/numastatd start_daemon "$T" --config="$SRCDIR/conf/numastatd.conf"
contains "$(ctl status)" "Warning: known readers: cannot read $T/not-a-dir: Not a directory" \
        "an unreadable catalogue directory is named in status"
stop_daemon

# With known = no, nothing to warn about.
printf '[readers]\nknown = no\n' > "$T/known-off.conf"
NUMASTATD=$T/bin/numastatd start_daemon "$T" --config="$T/known-off.conf"
case "$(ctl status)" in
*Warning:*known*) ok 1 "known = no: no catalogue warning" ;;
*) ok 0 "known = no: no catalogue warning" ;;
esac
stop_daemon

# The environment wins over the marker.
NUMASTATD_KNOWN_READERS_PATH=$SRCDIR/conf/readers.d NUMASTATD=$T/bin/numastatd start_daemon "$T" \
        --config="$SRCDIR/conf/numastatd.conf"
is "$(ctl --json=short status | json_get sources.known_readers)" "$(echo "$shipped" | wc -l)" \
        "NUMASTATD_KNOWN_READERS_PATH wins over the marker file"
stop_daemon

done_testing
