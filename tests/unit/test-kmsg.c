/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel log's word on NUMA statistics: records parsed exactly, and the
 * monitor on a FIFO standing in for /dev/kmsg under a tree. */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kmsg.h"
#include "macro.h"
#include "tap.h"
#include "time-util.h"

static void test_parse(void) {
        static const struct {
                const char *record;
                KmsgNuma what;
                uint64_t seq;
        } cases[] = {
                { "6,1234,5678901,-;numa_stats_mode: auto, enable numa statistics on read\n", KMSG_NUMA_AUTO_TRIGGERED, 1234 },
                { "6,7,1,-;numa_stats_mode: auto, numa statistics enabled at the next read\n", KMSG_NUMA_AUTO_ARMED, 7 },
                { "6,8,1,-;numa_stats_mode: auto, numa statistics stay enabled\n", KMSG_NUMA_AUTO_ON, 8 },
                { "6,9,1,-;numa_stats_mode: coarse, disable numa statistics, and clear numa counters\n", KMSG_NUMA_COARSE, 9 },
                { "6,10,1,-;numa_stats_mode: strict, enable numa statistics\n", KMSG_NUMA_STRICT, 10 },
                { "6,11,1,-;vmstat_mode: auto, enable numa statistics on read\n", KMSG_NUMA_AUTO_TRIGGERED, 11 },
                { "6,12,1,-;enable numa statistics\n", KMSG_NUMA_MAINLINE_ON, 12 },
                { "6,13,1,-;disable numa statistics, and clear numa counters\n", KMSG_NUMA_MAINLINE_OFF, 13 },
                /* with a dictionary continuation line */
                { "6,14,1,-;numa_stats_mode: auto, enable numa statistics on read\n SUBSYSTEM=x\n", KMSG_NUMA_AUTO_TRIGGERED, 14 },
                /* not ours: near misses */
                { "4,15,1,-;numa_stats_mode: ignoring invalid value 'sometimes'\n", KMSG_NUMA_NONE, 15 },
                { "6,16,1,-;someone said: enable numa statistics\n", KMSG_NUMA_NONE, 16 },
                { "6,17,1,-;enable numa statistics soon\n", KMSG_NUMA_NONE, 17 },
                /* written to /dev/kmsg from user space (LOG_USER): not the kernel */
                { "14,18,1,-;numa_stats_mode: auto, enable numa statistics on read\n", KMSG_NUMA_NONE, 18 },
                { "12,19,1,-;enable numa statistics\n", KMSG_NUMA_NONE, 19 },
                { ",20,1,-;enable numa statistics\n", KMSG_NUMA_NONE, 20 },
                { "no separator at all", KMSG_NUMA_NONE, 0 },
                { "", KMSG_NUMA_NONE, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t seq = 99;
                KmsgNuma w = kmsg_parse_record(cases[i].record, strlen(cases[i].record), &seq);
                ok(w == cases[i].what, "%s → %s", cases[i].record[0] ? cases[i].record : "(empty)",
                   kmsg_numa_to_string(w));
                is_u64(seq, cases[i].seq, "  sequence number");
        }
}

static unsigned heard[_KMSG_NUMA_MAX];
static unsigned wakeups;

static void on_kmsg(KmsgMonitor *k, const unsigned counts[_KMSG_NUMA_MAX], void *userdata) {
        for (int w = 0; w < _KMSG_NUMA_MAX; w++)
                heard[w] += counts[w];
        wakeups++;
}

static void test_monitor_on_fifo(void) {
        char root[] = "/tmp/numastatd-kmsg-XXXXXX", path[128], cmd[160];
        static const char lines[] =
                "6,1,1,-;numa_stats_mode: coarse, disable numa statistics, and clear numa counters\n"
                "6,2,1,-;unrelated\n"
                "6,3,1,-;numa_stats_mode: auto, numa statistics enabled at the next read\n"
                " SUBSYSTEM=ignored\n"
                "6,4,1,-;numa_stats_mode: auto, enable numa";
        static const char rest[] = " statistics on read\n";
        unsigned counts[_KMSG_NUMA_MAX];
        KmsgMonitor *k = NULL;
        sd_event *e = NULL;
        int w;

        if (!mkdtemp(root) || snprintf(path, sizeof path, "%s/dev", root) < 0 || mkdir(path, 0755) < 0)
                abort();
        snprintf(path, sizeof path, "%s/dev/kmsg", root);
        if (mkfifo(path, 0600) < 0 || sd_event_new(&e) < 0)
                abort();
        is_int(kmsg_monitor_new(e, root, on_kmsg, NULL, &k), 0, "a FIFO stands in for /dev/kmsg under a tree");
        w = open(path, O_WRONLY | O_CLOEXEC);
        if (w < 0 || write(w, lines, sizeof lines - 1) != sizeof lines - 1)
                abort();
        is_int(kmsg_monitor_take(k, counts), 2,
               "two NUMA records, the unrelated one and the dictionary skipped, the unfinished one kept");
        ok(counts[KMSG_NUMA_COARSE] == 1 && counts[KMSG_NUMA_AUTO_ARMED] == 1 && counts[KMSG_NUMA_NONE] == 1,
           "  coarse, armed, and one unrelated");
        is_int(wakeups, 0, "  taken, nobody is called back");
        is_int(kmsg_monitor_take(k, counts), 0, "taken once: nothing more");
        if (write(w, rest, sizeof rest - 1) != sizeof rest - 1)
                abort();
        for (int i = 0; i < 20 && wakeups < 1; i++)
                (void) sd_event_run(e, 50 * USEC_PER_MSEC);
        is_int(wakeups, 1, "the rest of a line completes it, through the event loop");
        ok(heard[KMSG_NUMA_AUTO_TRIGGERED] == 1 && heard[KMSG_NUMA_COARSE] == 0, "  triggered, and only that");

        close(w);
        kmsg_monitor_free(k);
        k = NULL;
        is_int(kmsg_monitor_new(e, "/nonexistent-root", on_kmsg, NULL, &k), -ENOENT, "no kmsg: -ENOENT");
        sd_event_unref(e);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        if (system(cmd) != 0)
                printf("# could not remove the test directory\n");
}

int main(void) {
        test_parse();
        test_monitor_on_fifo();
        return tap_done();
}
