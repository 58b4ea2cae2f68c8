#!/bin/sh
# More than two nodes: the daemon sees every node, marks every node's files
# and keeps counters per node.
. /guest/tap.sh
SOCK=/run/numastatd/io.numastatd
N=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
LAST=$((N - 1))
diag "kernel $(uname -r), $N nodes, $(nproc) cpus"
printf '[policy]\nmode = strict\n[pressure]\ninterval = 200ms\n' > /tmp/numastatd.conf
numastatd --config=/tmp/numastatd.conf >/tmp/numastatd.log 2>&1 &
DPID=$!
wait_for 10 numastatctl --socket=$SOCK status >/dev/null 2>&1
S=$(numastatctl --socket=$SOCK --json=short)
is "$(echo "$S" | grep -o '"memory_total_bytes"' | wc -l)" "$N" "status lists all $N nodes"
echo "$S" | grep -q "\"watched\":\[[^]]*node$LAST/numastat"
ok $? "node$LAST's numastat is watched"
sleep 3 | cat /sys/devices/system/node/node$LAST/numastat - >/dev/null &
wait_for 10 sh -c "numastatctl --socket=$SOCK readers | grep -q 'read /sys/devices/system/node/node$LAST/numastat'"
ok $? "a read of node$LAST's numastat is seen"
alloc-load load 1 $LAST
sleep 0.5
is "$(numastatctl --socket=$SOCK --json=short | grep -o '"nodes":\[{"numa_hit"[^]]*' | grep -o '"id":' | wc -l)" "$N" "counters kept for all $N nodes"
numastatctl --socket=$SOCK status
kill $DPID; wait $DPID 2>/dev/null
done_testing
