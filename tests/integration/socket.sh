#!/bin/bash
# Where root creates and removes its socket file (--socket=): never through
# a directory or symbolic link someone else controls, never over something
# that is not a socket, never stealing a live daemon's socket, a stale one
# replaced, and at exit only the very socket it bound is removed.
. "$(dirname "$0")/lib.sh"

require_root "the tree has directories and links owned by uid 65534"

T=$(make_tree mainline); cleanup_trees+=("$T")
printf '[policy]\nmode = strict\n' > "$T/conf"
D="$T/sockets"
mkdir -p "$D/theirs" "$D/sticky/rootdir" "$D/target" "$D/open"
chown 65534:65534 "$D/theirs"
chmod 1777 "$D/sticky"
chmod 0777 "$D/open"
ln -s "$D/target" "$D/sticky/link"
chown -h 65534:65534 "$D/sticky/link"

# try SOCKET: runs the daemon in the foreground; it should refuse at once.
try() {
        timeout 10 "$NUMASTATD" --root="$T" --socket="$1" --runtime-dir="$T/run/numastatd" --config="$T/conf" 2>&1
}

OUT=$(try "$D/theirs/sub/io.numastatd")
is "$?" 1 "a socket under another user's directory: refused"
contains "$OUT" "Refusing the socket $D/theirs/sub/io.numastatd: $D/theirs is owned by another user" "naming the directory"
ok $([ ! -e "$D/theirs/sub" ]; echo $?) "and root created nothing in it"

OUT=$(try "$D/sticky/link/io.numastatd")
is "$?" 1 "through another user's symbolic link in a sticky directory: refused"
contains "$OUT" "$D/sticky/link is a symbolic link owned by another user" "saying so"
ok $([ ! -e "$D/target/io.numastatd" ]; echo $?) "nothing created where the link points"

OUT=$(try "$D/open/io.numastatd")
is "$?" 1 "in a world-writable directory that is not sticky: refused"
contains "$OUT" "$D/open is writable by others and not sticky" "saying so"

echo "precious" > "$D/sticky/rootdir/io.numastatd"
OUT=$(try "$D/sticky/rootdir/io.numastatd")
is "$?" 1 "a regular file where the socket goes: refused"
contains "$OUT" "something that is not a socket is there" "saying so"
is "$(cat "$D/sticky/rootdir/io.numastatd")" precious "and the file is untouched"
rm "$D/sticky/rootdir/io.numastatd"

ln -s "$D/target/victim" "$D/sticky/rootdir/io.numastatd"
OUT=$(try "$D/sticky/rootdir/io.numastatd")
is "$?" 1 "a symbolic link where the socket goes: refused"
ok $([ -L "$D/sticky/rootdir/io.numastatd" ] && [ ! -e "$D/target/victim" ]; echo $?) \
        "the link stays and nothing is created through it"
rm "$D/sticky/rootdir/io.numastatd"

# A stale socket (its process gone) is replaced, in a /tmp-like directory.
SOCK="$D/sticky/rootdir/io.numastatd"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$SOCK"
ok $([ -S "$SOCK" ]; echo $?) "a stale socket is there"
STALE_INO=$(stat -c %i "$SOCK")
ln "$SOCK" "$D/stale-link"      # keeps its inode number from being reused
"$NUMASTATD" --root="$T" --socket="$SOCK" --runtime-dir="$T/run/numastatd" --config="$T/conf" \
        > "$T/daemon.log" 2>&1 &
DAEMON_PID=$!
wait_for 10 ctl status > /dev/null
ok $? "the stale socket is replaced: the daemon serves on it"
ok $([ "$(stat -c %i "$SOCK")" != "$STALE_INO" ]; echo $?) "with a new socket file"

OUT=$(try "$SOCK")
is "$?" 1 "a second daemon on the live socket refuses"
contains "$OUT" "Another numastatd is listening on $SOCK" "saying so"
check "and the first still serves" ctl status

# At exit only the socket it bound is removed: put something else there.
mv "$SOCK" "$D/sticky/rootdir/moved-away"
echo "someone else's" > "$SOCK"
stop_daemon
is "$DAEMON_STATUS" 0 "the daemon stops cleanly"
is "$(cat "$SOCK" 2>/dev/null)" "someone else's" "what replaced its socket is left alone"
contains "$(cat "$T/daemon.log")" "Leaving $SOCK alone" "and the log says so"
rm -f "$SOCK" "$D/sticky/rootdir/moved-away"

# The ordinary case still removes its own socket.
start_daemon "$T" --config="$T/conf"
ok $? "daemon starts on the default test socket"
stop_daemon
ok $([ ! -e "$SOCK" ]; echo $?) "its own socket is removed at exit"

done_testing
