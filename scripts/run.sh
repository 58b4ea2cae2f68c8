#!/bin/sh
# Installs dependencies, builds, starts numastatd on this machine and shows
# `numastatctl status`. The daemon keeps running in the background; stop it
# with `kill $(cat /run/numastatd/numastatd.pid)` (it then leaves counting on).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh

mkdir -p /run/numastatd
if [ -f /run/numastatd/numastatd.pid ] && kill -0 "$(cat /run/numastatd/numastatd.pid)" 2>/dev/null; then
        echo "run.sh: stopping the numastatd started earlier"
        pid=$(cat /run/numastatd/numastatd.pid)
        kill "$pid"
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi
# The repo's config is the documented defaults; /etc/numastatd.conf wins if present.
# The daemon judges readers by the source tree's catalogue, conf/readers.d
# (build/numastatd-uninstalled says where it is), as the package by its own.
config=/etc/numastatd.conf
[ -f "$config" ] || config=conf/numastatd.conf
build/numastatd --config="$config" >/run/numastatd/numastatd.log 2>&1 &
echo $! >/run/numastatd/numastatd.pid
for _ in $(seq 1 50); do
        build/numastatctl status >/dev/null 2>&1 && break
        sleep 0.1
done
build/numastatctl status || { echo "run.sh: numastatd did not start:" >&2; cat /run/numastatd/numastatd.log >&2; exit 1; }
echo
echo "numastatd runs as pid $(cat /run/numastatd/numastatd.pid), log in /run/numastatd/numastatd.log."
echo "Try: build/numastatctl monitor, build/numastatctl set-policy coarse, kill $(cat /run/numastatd/numastatd.pid)"
