# A fake kernel for --root trees: publishes /proc/vmstat and the nodes'
# numastat with a pgalloc total growing at a chosen rate, and behaves like
# the kernel the tree stands for when its sysctl is written:
#
#   mainline  vm.numa_stat: 1 -> 0 stops counting and zeroes the counters
#   v3        numa_stats_mode (seed 003 v3): coarse stops counting and zeroes;
#             strict counts; auto keeps the current state, and if counting is
#             off, the first read of a statistics file turns it on (armed ->
#             triggered)
#   v2        the same under the v1/v2 name vmstat_mode
#
# Commands arrive as a file ROOT/ctl: "rate N" (pages/s), "hit A B" (node
# numa_hit values), "grow on|off" (numa_hit follows pgalloc while counting).
# The state is published in ROOT/state ("mode=auto counting=0 resets=2
# hit=0"): tests read it there, since reading the statistics files would be
# a read.
#
# What a real kernel does inside a read or a write, this one does a moment
# later, from inotify: it sees every write of the sysctl (IN_CLOSE_WRITE)
# but only the value left by the last of a burst, so two or more writes
# ending in "auto" are taken as the daemon's arming (coarse, then auto).
# Run: python3 fake-kernel.py ROOT [mainline|v3|v2]
import ctypes, os, select, struct, sys, time

root = sys.argv[1]
kind = sys.argv[2] if len(sys.argv) > 2 else "mainline"
ctl = root + "/ctl"
vm = root + "/proc/vmstat"
nodes = [root + "/sys/devices/system/node/node%d/numastat" % n for n in (0, 1)]
sysctl = root + {"mainline": "/proc/sys/vm/numa_stat", "v3": "/proc/sys/vm/numa_stats_mode",
                 "v2": "/proc/sys/vm/vmstat_mode"}[kind]
pgalloc, hit, rate, grow, resets = 0, [1000, 2000], 0, False, 0
counting = True
mode = open(sysctl).read().strip()
if kind != "mainline" and mode == "auto":
    counting = False          # patched kernels boot with auto armed

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
    tmp = root + "/state.tmp"
    with open(tmp, "w") as f:
        f.write("mode=%s counting=%d resets=%d hit=%d\n" % (mode, counting, resets, sum(hit)))
    os.rename(tmp, root + "/state")

def zero():
    global hit, resets
    hit = [0, 0]
    resets += 1

# inotify, by hand: the Python standard library has no binding.
libc = ctypes.CDLL(None, use_errno=True)
IN_ACCESS, IN_MODIFY, IN_CLOSE_WRITE, IN_NONBLOCK = 0x1, 0x2, 0x8, 0o4000
ino = libc.inotify_init1(IN_NONBLOCK)
# inotify merges an event into an identical one queued last: the MODIFY of
# each write keeps two CLOSE_WRITEs apart, so every write is counted.
wd_sysctl = libc.inotify_add_watch(ino, sysctl.encode(), IN_CLOSE_WRITE | IN_MODIFY)
stats_wds = set()

def watch_stats():
    for p in [vm, root + "/proc/zoneinfo"] + nodes + [root + "/sys/devices/system/node/node%d/vmstat" % n for n in (0, 1)]:
        if os.path.exists(p):
            stats_wds.add(libc.inotify_add_watch(ino, p.encode(), IN_ACCESS))

def events():
    """(wd, mask) of every queued inotify event."""
    out = []
    try:
        buf = os.read(ino, 65536)
    except BlockingIOError:
        return out
    i = 0
    while i + 16 <= len(buf):
        wd, mask, cookie, n = struct.unpack_from("iIII", buf, i)
        out.append((wd, mask))
        i += 16 + n
    return out

def settled(evs):
    """evs, and the rest of a burst of sysctl writes: wait until the writer
    has been quiet for a while, so that a writer slowed down between its two
    writes (a loaded machine, a sanitizer build) is still seen as one."""
    while any(w == wd_sysctl for w, _ in evs):
        time.sleep(0.05)
        # The allocator does not stop while a sysctl is written: a rate
        # over these 50 ms must not read as a quiet stretch.
        advance()
        publish()
        more = events()
        evs += more
        if not any(w == wd_sysctl for w, _ in more):
            break
    return evs

def advance():
    """pgalloc, and while counting (with grow on) the hits, grown at rate
    since the last call."""
    global pgalloc, hit, t
    now = time.monotonic()
    grown = int(rate * (now - t))
    pgalloc += grown
    if grow and counting and grown:
        hit = [hit[0] + grown // 2, hit[1] + grown - grown // 2]
    t = now

publish()
watch_stats()
t = time.monotonic()
while True:
    select.select([ino], [], [], 0.01)
    advance()
    took = False
    try:
        cmd = open(ctl).read().split()
        took = True
        if cmd[0] == "rate": rate = int(cmd[1])
        if cmd[0] == "hit": hit = [int(cmd[1]), int(cmd[2])]
        if cmd[0] == "grow": grow = cmd[1] == "on"
    except (FileNotFoundError, IndexError):
        pass
    # In order: reads before a burst of writes happened in the old state.
    evs = settled(events())
    new = open(sysctl).read().strip()
    # A write that landed while the value was read belongs to this burst:
    # the value may already be its. Take it in and read again.
    time.sleep(0.005)
    more = events()
    while any(w == wd_sysctl for w, _ in more):
        evs += settled(more)
        new = open(sysctl).read().strip()
        time.sleep(0.005)
        more = events()
    evs += more
    i = 0
    while i < len(evs):
        wd, mask = evs[i]
        if wd == wd_sysctl:
            writes = 0
            while i < len(evs) and evs[i][0] == wd_sysctl:
                writes += 1 if evs[i][1] & IN_CLOSE_WRITE else 0
                i += 1
            last = i >= len(evs) or not any(w == wd_sysctl for w, _ in evs[i:])
            value = new if last else mode    # only the last burst's value is known
            if kind == "mainline":
                if value == "0" and mode == "1":
                    counting = False
                    zero()
                elif value == "1":
                    counting = True
            elif value == "coarse" or (value == "auto" and writes >= 2 and mode != "coarse"):
                # coarse, or the daemon's arming: coarse then auto
                if counting or mode != "coarse":
                    zero()
                counting = False
            elif value == "strict":
                counting = True
            # auto written once keeps the current state
            mode = value
            continue
        if wd in stats_wds and mask & IN_ACCESS and kind != "mainline" and mode == "auto" and not counting:
            counting = True     # an armed auto, triggered by a read
        i += 1
    publish()
    # Taken once published: a test that waits for the file to go sees the
    # files as the command left them.
    if took:
        os.unlink(ctl)
