/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Page allocator load and cost, for the VM tests.
 *
 *   alloc-load load SECONDS [NODE]     allocate, touch and free pages in a loop;
 *                                      prints "pages=N" (how many) at the end
 *   alloc-load mark                    executes the plugin's marker once, label 5:
 *                                      the counts of the CPU it runs on (taskset)
 *   alloc-load bench PAGES [NODE]      one timed round: ns per page, on stdout
 *   alloc-load load SECONDS NODE TRACE  the same (NODE -1: any), and the pages of
 *                                      each second since the start, a line each,
 *                                      in TRACE: the macro study's trace
 *   alloc-load read COMM FILE HOLD_MS  a reader named COMM: reads FILE, prints its
 *                                      numa_hit, stays HOLD_MS
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
#include <sys/prctl.h>
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

/* alloc-load read: as a reader named comm, reads file once, prints its
 * numa_hit (-1 if it has none) and stays hold_ms, so that the daemon can
 * name it while it lives (0: gone at once, like sadc). */
static int read_as(const char *comm, const char *file, int hold_ms) {
        static char buf[1 << 16];
        long long hit = -1;
        ssize_t n, len = 0;
        int fd;

        prctl(PR_SET_NAME, comm, 0, 0, 0);
        fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 1;
        while (len < (ssize_t) sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
                len += n;
        close(fd);
        buf[len] = '\0';
        for (char *line = buf; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
                if (sscanf(line, "numa_hit %lld", &hit) == 1)
                        break;
        printf("%lld\n", hit);
        fflush(stdout);
        if (hold_ms > 0)
                usleep(hold_ms * 1000);
        return 0;
}

int main(int argc, char *argv[]) {
        long page = sysconf(_SC_PAGESIZE);
        int node = argc > 3 ? atoi(argv[3]) : -1;

        if (argc == 2 && strcmp(argv[1], "mark") == 0) {
                MARK(MARK_SAMPLE);
                return 0;
        }
        if (argc == 5 && strcmp(argv[1], "read") == 0)
                return read_as(argv[2], argv[3], atoi(argv[4]));
        if (argc == 8 && strcmp(argv[1], "insn") == 0)
                return insn_rounds(strtoul(argv[2], NULL, 10), atoi(argv[3]), atoi(argv[4]), argv[5], argv[6],
                                   argv[7]);
        if (argc < 3 || (strcmp(argv[1], "load") != 0 && strcmp(argv[1], "bench") != 0)) {
                fprintf(stderr, "usage: alloc-load load SECONDS [NODE] | bench PAGES [NODE]\n"
                                "       alloc-load insn PAGES ROUNDS CPU SYSCTL ON OFF | mark\n"
                                "       alloc-load load SECONDS NODE TRACE | read COMM FILE HOLD_MS\n");
                return 2;
        }
        if (node >= 0) {
                if (numa_available() < 0 || numa_run_on_node(node) < 0) {
                        fprintf(stderr, "alloc-load: cannot run on node %d\n", node);
                        return 1;
                }
        }
        if (strcmp(argv[1], "load") == 0) {
                double start = now_ns(), end = start + atof(argv[2]) * 1e9, tick = start + 1e9, now;
                unsigned long long done = 0, second = 0;
                FILE *trace = argc > 4 ? fopen(argv[4], "we") : NULL;

                if (argc > 4 && !trace)
                        return 1;
                while ((now = now_ns()) < end) {
                        /* Seconds it was stopped in (SIGSTOP) have no pages. */
                        for (; trace && now >= tick; tick += 1e9, second = 0)
                                fprintf(trace, "%llu\n", second);
                        if (round_pages(256, page, node) < 0)
                                return 1;
                        done += 256;
                        second += 256;
                }
                for (; trace && tick <= end + 0.5e9; tick += 1e9, second = 0)
                        fprintf(trace, "%llu\n", second);      /* the last second(s) */
                if (trace)
                        fclose(trace);
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
