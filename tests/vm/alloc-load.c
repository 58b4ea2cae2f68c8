/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Page allocator load and cost, for the VM tests.
 *
 *   alloc-load load SECONDS [NODE]     allocate, touch and free pages in a loop;
 *                                      prints "pages=N" (how many) at the end
 *   alloc-load mark                    executes the plugin's marker once, label 5:
 *                                      the counts of the CPU it runs on (taskset)
 *   alloc-load bench PAGES [NODE]      one timed round: ns per page, on stdout
 *   alloc-load sample SECONDS          the pages allocated (pgalloc_* of /proc/vmstat)
 *                                      in each second, one line per second: the
 *                                      macro study's trace and its ignored reader
 *                                      (a read of /proc/vmstat every second, by a
 *                                      process alive long enough to be named)
 *   alloc-load insn PAGES ROUNDS CPU SYSCTL ON OFF
 *                                      rounds for the instruction-counting plugin
 *                                      (tests/vm/insn-count.c): counting on and
 *                                      off alternately, each between two markers
 *
 * Each round maps PAGES anonymous pages bound to NODE (libnuma), without
 * transparent huge pages, touches every page (the fault allocates it from
 * the page allocator, which is where the NUMA counters are bumped) and
 * unmaps them (freed). The thread runs on NODE's CPUs so the allocations
 * are local (numa_hit, numa_local). */

#include <fcntl.h>
#include <numa.h>
#include <sched.h>
#include <stdbool.h>
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
        /* Base pages: one allocation per page, as the figures say. A kernel
         * with transparent huge pages always on (Debian's) would otherwise
         * serve the range with a few 2 MiB pages. */
        (void) madvise(p, len, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < len; i += page)
                p[i] = 1;
        if (node >= 0)
                numa_free(p, len);
        else
                munmap(p, len);
        return 0;
}

/* The marker insn-count.c watches for: "nopl 0x4e55LLLL(%rax,%rax,1)", an
 * 8-byte NOP whose displacement carries the label. */
#define MARK(label) __asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0" ::"i"(0x4e550000u | (label)) : "memory")
enum { MARK_ON_START = 1, MARK_ON_END = 2, MARK_OFF_START = 3, MARK_OFF_END = 4, MARK_SAMPLE = 5 };

static int write_sysctl(const char *path, const char *value) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -1;
        n = write(fd, value, strlen(value));
        close(fd);
        return n == (ssize_t) strlen(value) ? 0 : -1;
}

/* One measured phase: the kernel mode set, a pause for what the write
 * started elsewhere (on mainline, zeroing on every CPU) to finish, then
 * PAGES faulted in and freed between two markers. */
static int insn_phase(size_t pages, long page, int node, const char *sysctl, const char *value, bool on) {
        struct timespec settle = { 0, 50 * 1000 * 1000 };

        if (write_sysctl(sysctl, value) < 0) {
                fprintf(stderr, "alloc-load: cannot write %s to %s\n", value, sysctl);
                return -1;
        }
        nanosleep(&settle, NULL);
        if (on)
                MARK(MARK_ON_START);
        else
                MARK(MARK_OFF_START);
        if (round_pages(pages, page, node) < 0)
                return -1;
        if (on)
                MARK(MARK_ON_END);
        else
                MARK(MARK_OFF_END);
        return 0;
}

/* Paired rounds, the order alternating (on-off, off-on, ...) so that a
 * drift over the run cancels in the pairs. Pinned to CPU, memory on its
 * node; a warm-up round first. */
static int insn_rounds(size_t pages, int rounds, int cpu, const char *sysctl, const char *on, const char *off) {
        long page = sysconf(_SC_PAGESIZE);
        cpu_set_t set;
        int node;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) < 0) {
                perror("alloc-load: sched_setaffinity");
                return 1;
        }
        node = numa_available() >= 0 ? numa_node_of_cpu(cpu) : -1;
        if (write_sysctl(sysctl, on) < 0 || round_pages(pages, page, node) < 0)
                return 1;
        for (int r = 0; r < rounds; r++) {
                bool on_first = r % 2 == 0;
                if (insn_phase(pages, page, node, sysctl, on_first ? on : off, on_first) < 0 ||
                    insn_phase(pages, page, node, sysctl, on_first ? off : on, !on_first) < 0)
                        return 1;
        }
        if (write_sysctl(sysctl, on) < 0)
                return 1;
        printf("insn rounds=%d pages=%zu cpu=%d node=%d\n", rounds, pages, cpu, node);
        return 0;
}

/* The sum of the pgalloc_* lines of /proc/vmstat, read through fd. */
static long long pgalloc(int fd) {
        static char buf[1 << 16];
        long long sum = 0;
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

        if (n <= 0)
                return -1;
        buf[n] = '\0';
        for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                long long v;
                if (strncmp(line, "pgalloc_", 8) == 0 && sscanf(strchr(line, ' ') ?: "", " %lld", &v) == 1)
                        sum += v;
        }
        return sum;
}

/* One sample a second on the monotonic clock's own ticks, so that second
 * i's line is [i, i+1) after the start however long a read takes. */
static int sample(int seconds) {
        int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
        struct timespec at;
        long long prev;

        if (fd < 0 || (prev = pgalloc(fd)) < 0)
                return 1;
        clock_gettime(CLOCK_MONOTONIC, &at);
        for (int i = 0; i < seconds; i++) {
                long long now;

                at.tv_sec++;
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0)
                        ;
                now = pgalloc(fd);
                if (now < 0)
                        return 1;
                printf("%lld\n", now - prev);
                fflush(stdout);
                prev = now;
        }
        close(fd);
        return 0;
}

int main(int argc, char *argv[]) {
        long page = sysconf(_SC_PAGESIZE);
        int node = argc > 3 ? atoi(argv[3]) : -1;

        if (argc == 2 && strcmp(argv[1], "mark") == 0) {
                MARK(MARK_SAMPLE);
                return 0;
        }
        if (argc == 3 && strcmp(argv[1], "sample") == 0)
                return sample(atoi(argv[2]));
        if (argc == 8 && strcmp(argv[1], "insn") == 0)
                return insn_rounds(strtoul(argv[2], NULL, 10), atoi(argv[3]), atoi(argv[4]), argv[5], argv[6],
                                   argv[7]);
        if (argc < 3 || (strcmp(argv[1], "load") != 0 && strcmp(argv[1], "bench") != 0)) {
                fprintf(stderr, "usage: alloc-load load SECONDS [NODE] | bench PAGES [NODE]\n"
                                "       alloc-load insn PAGES ROUNDS CPU SYSCTL ON OFF | mark | sample SECONDS\n");
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
                unsigned long long done = 0;
                while (now_ns() < end) {
                        if (round_pages(256, page, node) < 0)
                                return 1;
                        done += 256;
                }
                printf("pages=%llu\n", done);
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
