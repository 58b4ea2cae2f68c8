# A fake mainline kernel for --root trees: publishes /proc/vmstat and the
# nodes' numastat with a pgalloc total growing at a chosen rate, and zeroes
# the NUMA counters when vm.numa_stat goes 1 -> 0, as mainline does.
# Commands arrive as a file ROOT/ctl: "rate N" (pages/s), "hit A B" (node
# numa_hit values). Run: python3 fake-kernel.py ROOT
import os, sys, time
root = sys.argv[1]
ctl = root + "/ctl"          # "rate N" / "hit N": commands from the test
vm = root + "/proc/vmstat"
nodes = [root + "/sys/devices/system/node/node%d/numastat" % n for n in (0, 1)]
sysctl = root + "/proc/sys/vm/numa_stat"
pgalloc, hit, rate, last_mode = 0, [1000, 2000], 0, "1"

def put(path, text):
    # In place (the fanotify marks are on this inode), one write of a
    # fixed-width text, so a concurrent reader never sees a short file.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    os.pwrite(fd, text.encode(), 0)
    os.close(fd)

def publish():
    put(vm, "nr_free_pages 1000\npgalloc_dma 0\npgalloc_normal %020d\n"
            "numa_hit %012d\nnuma_miss 0\nnuma_foreign 0\nnuma_interleave 0\n"
            "numa_local %012d\nnuma_other 0\n" % (pgalloc, sum(hit), sum(hit)))
    for i, p in enumerate(nodes):
        put(p, "numa_hit %012d\nnuma_miss 0\nnuma_foreign 0\ninterleave_hit 0\n"
               "local_node %012d\nother_node 0\n" % (hit[i], hit[i]))

publish()
t = time.monotonic()
while True:
    time.sleep(0.01)
    now = time.monotonic()
    pgalloc += int(rate * (now - t)); t = now
    try:
        cmd = open(ctl).read().split()
        os.unlink(ctl)
        if cmd[0] == "rate": rate = int(cmd[1])
        if cmd[0] == "hit": hit = [int(cmd[1]), int(cmd[2])]
    except (FileNotFoundError, IndexError):
        pass
    mode = open(sysctl).read().strip()
    if mode == "0" and last_mode == "1":
        hit = [0, 0]         # 1 -> 0 zeroes the counters
    last_mode = mode
    publish()
