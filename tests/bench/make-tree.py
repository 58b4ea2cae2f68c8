#!/usr/bin/env python3
"""A --root tree shaped like a big NUMA machine, for make bench-scale:

    make-tree.py DIR CPUS NODES

/proc/vmstat, /proc/sys/vm/numa_stat, and /proc/zoneinfo with a Normal zone
per node (plus DMA and DMA32 on node 0) whose pagesets list every CPU, as
the kernel prints them; /sys/devices/system/node/nodeN with cpulist,
meminfo, numastat and vmstat, the CPUs split evenly over the nodes."""
import os
import sys


def zone(node, name, cpus, threshold, start_pfn):
    lines = [f"Node {node}, zone {name:>8}",
             "  per-node stats" if name == "DMA" else None,
             "  pages free     286875", "        boost    0", "        min      9369", "        low      11711",
             "        high     14053", "        spanned  5505024", "        present  5505024",
             "        managed  360448", "        cma      0", "        protection: (0, 0, 0, 0, 0)",
             "      nr_free_pages 286875", "      numa_hit     840014", "      numa_miss    0",
             "      numa_foreign 0", "      numa_interleave 1142", "      numa_local   840014",
             "      numa_other   0", "  pagesets"]
    for c in range(cpus):
        lines += [f"    cpu: {c}", "              count:    381", "              high:     3346",
                  "              batch:    63", f"  vm stats threshold: {threshold}"]
    lines += ["  node_unreclaimable:  0", f"  start_pfn:           {start_pfn}"]
    return "\n".join(x for x in lines if x is not None) + "\n"


def main():
    root, cpus, nodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    per = cpus // nodes
    os.makedirs(f"{root}/proc/sys/vm", exist_ok=True)
    with open(f"{root}/proc/sys/vm/numa_stat", "w") as f:
        f.write("1\n")
    with open(f"{root}/proc/vmstat", "w") as f:
        f.write("nr_free_pages 1000\npgalloc_dma 0\npgalloc_dma32 100\npgalloc_normal 100000\npgalloc_movable 0\n"
                "numa_hit 100\nnuma_miss 0\nnuma_foreign 0\nnuma_interleave 0\nnuma_local 100\nnuma_other 0\n")
    with open(f"{root}/proc/zoneinfo", "w") as f:
        pfn = 1
        for n in range(nodes):
            for name in (["DMA", "DMA32"] if n == 0 else []) + ["Normal"]:
                f.write(zone(n, name, cpus, 125, pfn))
                pfn += 1 << 20
    for n in range(nodes):
        d = f"{root}/sys/devices/system/node/node{n}"
        os.makedirs(d, exist_ok=True)
        with open(f"{d}/cpulist", "w") as f:
            f.write(f"{n * per}-{(n + 1) * per - 1}\n" if per > 1 else f"{n * per}\n")
        with open(f"{d}/meminfo", "w") as f:
            f.write(f"Node {n} MemTotal:       67108864 kB\n")
        with open(f"{d}/numastat", "w") as f:
            f.write("numa_hit 100\nnuma_miss 0\nnuma_foreign 0\ninterleave_hit 0\nlocal_node 100\nother_node 0\n")
        with open(f"{d}/vmstat", "w") as f:
            f.write("nr_free_pages 1000\nnuma_hit 100\nnuma_miss 0\n")


main()
