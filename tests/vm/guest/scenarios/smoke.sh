#!/bin/sh
# Scenario "smoke": proves the VM harness and the kernel config are fit for
# numastatd tests. TAP on $VM_RESULTS (the results port), details on stdout.
# Expects vm_nodes / vm_cpus from the kernel command line (run-vm.sh sets them).
# Optional: /usr/local/bin/fanotify-probe (tests/vm/smoke/fanotify-probe.c).
R=${VM_RESULTS:-/dev/ttyS1}
nodes_want=${vm_nodes:-2}
cpus_want=${vm_cpus:-4}
n=0 failed=0

tap() { echo "$*" >>"$R"; echo "smoke: $*"; }
ok() { n=$((n + 1)); tap "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); tap "not ok $n - $*"; }
skip() { n=$((n + 1)); tap "ok $n # SKIP $*"; }
check() { # check DESCRIPTION COMMAND...
        d=$1; shift
        if "$@"; then ok "$d"; else notok "$d"; fi
}
both_uevents() {
        grep -q '^offline@/devices/system/cpu/cpu3$' /tmp/uevents &&
                grep -q '^online@/devices/system/cpu/cpu3$' /tmp/uevents
}
numa_hit() { awk '$1 == "numa_hit" { print $2 }' "/sys/devices/system/node/node$1/numastat"; }

echo "smoke: kernel $(uname -r), want $nodes_want nodes, $cpus_want cpus"

# 1 topology
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
check "$nodes NUMA nodes in /sys/devices/system/node (want $nodes_want)" [ "$nodes" -eq "$nodes_want" ]
cpus=$(grep -c ^processor /proc/cpuinfo)
per=$((cpus_want / nodes_want))
check "$cpus cpus online (want $cpus_want); node0 cpulist $(cat /sys/devices/system/node/node0/cpulist) (want 0-$((per - 1)))" \
        [ "$cpus" -eq "$cpus_want" -a "$(cat /sys/devices/system/node/node0/cpulist)" = "0-$((per - 1))" ]

# 2 vm.numa_stat (mainline >= 4.15), or numa_stats_mode on the patched kernel
for f in numa_stat numa_stats_mode vmstat_mode; do
        [ -e /proc/sys/vm/$f ] && echo "smoke: /proc/sys/vm/$f = $(cat /proc/sys/vm/$f)"
done
if [ -e /proc/sys/vm/numa_stat ]; then
        check "vm.numa_stat is 1" [ "$(cat /proc/sys/vm/numa_stat)" = 1 ]
        before=$(numa_hit 0)
        echo 0 >/proc/sys/vm/numa_stat
        after=$(numa_hit 0)
        echo "smoke: node0 numa_hit $before -> $after after writing 0"
        check "writing 0 to vm.numa_stat zeroes node0 numa_hit ($before -> $after)" [ "$before" -gt 0 -a "$after" -eq 0 ]
        if echo 2 >/proc/sys/vm/numa_stat 2>/dev/null; then
                notok "writing 2 to vm.numa_stat fails (EINVAL)"
        else
                ok "writing 2 to vm.numa_stat fails (EINVAL)"
        fi
        echo 1 >/proc/sys/vm/numa_stat
        # allocate a little on a CPU of node 0, so that node 0 counts numa_hit
        taskset 1 sh -c 'cat /proc/vmstat >/dev/null; ls -R /sys/devices/system/node >/dev/null; x=$(seq 1 20000)'
        again=$(numa_hit 0)
        check "writing 1 restarts counting (vm.numa_stat=$(cat /proc/sys/vm/numa_stat), node0 numa_hit $again)" \
                [ "$(cat /proc/sys/vm/numa_stat)" = 1 -a "$again" -gt 0 ]
elif [ -e /proc/sys/vm/numa_stats_mode ]; then
        # patched kernel (2017 proposal v3, tests/vm/patches/5.10): strict|coarse|auto
        m=$(cat /proc/sys/vm/numa_stats_mode)
        check "vm.numa_stats_mode reads a mode ($m)" [ "$m" = strict -o "$m" = coarse -o "$m" = auto ]
        echo strict >/proc/sys/vm/numa_stats_mode
        taskset 1 sh -c 'x=$(seq 1 20000)'
        before=$(numa_hit 0)
        echo coarse >/proc/sys/vm/numa_stats_mode
        after=$(numa_hit 0)
        check "strict -> coarse zeroes node0 numa_hit ($before -> $after)" [ "$before" -gt 0 -a "$after" -eq 0 ]
        echo bogus >/proc/sys/vm/numa_stats_mode 2>/dev/null
        check "an invalid mode is ignored (reads $(cat /proc/sys/vm/numa_stats_mode))" \
                [ "$(cat /proc/sys/vm/numa_stats_mode)" = coarse ]
        echo strict >/proc/sys/vm/numa_stats_mode
        taskset 1 sh -c 'x=$(seq 1 20000)'
        again=$(numa_hit 0)
        check "strict restarts counting (mode $(cat /proc/sys/vm/numa_stats_mode), node0 numa_hit $again)" \
                [ "$(cat /proc/sys/vm/numa_stats_mode)" = strict -a "$again" -gt 0 ]
else
        notok "neither vm.numa_stat nor vm.numa_stats_mode"
        skip "no NUMA statistics sysctl"
        skip "no NUMA statistics sysctl"
        skip "no NUMA statistics sysctl"
fi

# 3 fanotify
if [ -d /proc/sys/fs/fanotify ]; then
        ok "fanotify in the kernel (/proc/sys/fs/fanotify: $(ls /proc/sys/fs/fanotify | tr '\n' ' '))"
elif [ -x /usr/local/bin/fanotify-probe ]; then
        ok "fanotify in the kernel (no /proc/sys/fs/fanotify before 5.13; probe below)"
else
        notok "fanotify in the kernel: no /proc/sys/fs/fanotify and no probe"
fi
if [ -x /usr/local/bin/fanotify-probe ]; then
        out=$(/usr/local/bin/fanotify-probe /proc/vmstat 2>&1); rc=$?
        check "fanotify sees a reader of /proc/vmstat: $out" [ $rc -eq 0 ]
        out=$(/usr/local/bin/fanotify-probe /sys/devices/system/node/node0/numastat 2>&1); rc=$?
        check "fanotify sees a reader of node0/numastat: $out" [ $rc -eq 0 ]
else
        skip "fanotify-probe not in the image"
        skip "fanotify-probe not in the image"
fi

# 4 cpu hotplug and uevents
c=/sys/devices/system/cpu/cpu3
if [ -e $c/online ]; then
        : >/tmp/uevents
        uevent sh -c 'echo "$ACTION@$DEVPATH" >>/tmp/uevents' &
        uev=$!
        sleep 0.3
        echo 0 >$c/online
        off=$(cat $c/online)
        onl_off=$(cat /sys/devices/system/cpu/online)
        echo 1 >$c/online
        on=$(cat $c/online)
        onl_on=$(cat /sys/devices/system/cpu/online)
        check "cpu3 offline (online=$off, cpus online $onl_off) and back (online=$on, cpus online $onl_on)" \
                [ "$off" = 0 -a "$on" = 1 ]
        sleep 0.3
        kill $uev 2>/dev/null
        echo "smoke: uevents: $(tr '\n' ' ' </tmp/uevents)"
        check "uevents offline@ and online@/devices/system/cpu/cpu3 (netlink kobject uevent)" \
                both_uevents
else
        notok "cpu3 has no online file (HOTPLUG_CPU?)"
        notok "no uevent test"
fi

tap "1..$n"
echo "smoke: $failed of $n failed"
[ "$failed" -eq 0 ]
