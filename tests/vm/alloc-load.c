/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Page allocator load and cost, for the VM tests.
 *
 *   alloc-load load SECONDS [NODE]     allocate, touch and free pages in a loop
 *   alloc-load bench PAGES [NODE]      one timed round: ns per page, on stdout
 *
 * Each round maps PAGES anonymous pages bound to NODE (libnuma), touches
 * every page (the fault allocates it from the page allocator, which is where
 * the NUMA counters are bumped) and unmaps them (freed). The thread runs on
 * NODE's CPUs so the allocations are local (numa_hit, numa_local). */

#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int round_pages(size_t pages, long page, int node) {
        size_t len = pages * page;
        char *p = node >= 0 ? numa_alloc_onnode(len, node) : mmap(NULL, len, PROT_READ | PROT_WRITE,
                                                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (!p || p == MAP_FAILED)
                return -1;
        for (size_t i = 0; i < len; i += page)
                p[i] = 1;
        if (node >= 0)
                numa_free(p, len);
        else
                munmap(p, len);
        return 0;
}

int main(int argc, char *argv[]) {
        long page = sysconf(_SC_PAGESIZE);
        int node = argc > 3 ? atoi(argv[3]) : -1;

        if (argc < 3 || (strcmp(argv[1], "load") != 0 && strcmp(argv[1], "bench") != 0)) {
                fprintf(stderr, "usage: alloc-load load SECONDS [NODE] | bench PAGES [NODE]\n");
                return 2;
        }
        if (node >= 0) {
                if (numa_available() < 0 || numa_run_on_node(node) < 0) {
                        fprintf(stderr, "alloc-load: cannot run on node %d\n", node);
                        return 1;
                }
        }
        if (strcmp(argv[1], "load") == 0) {
                double end = now_ns() + atof(argv[2]) * 1e9;
                while (now_ns() < end)
                        if (round_pages(256, page, node) < 0)
                                return 1;
                return 0;
        }

        size_t pages = strtoul(argv[2], NULL, 10);
        round_pages(pages, page, node);         /* warm up page tables and caches */
        double t0 = now_ns();
        if (round_pages(pages, page, node) < 0)
                return 1;
        printf("%.1f\n", (now_ns() - t0) / pages);
        return 0;
}
